import { DATABASE_OPTION, type CommandDescriptor } from './command.js';

export const generateModelsCommand: CommandDescriptor = {
  name: 'generate-models',
  description:
    "Reverse-engineer TypeScript models (mtool/schema) from the live schema: one <table>.ts per table plus index.ts, or models.ts with --single-file. Generated code starts with a review comment and needs manual review; files mtool did not generate are never overwritten, and files it generated earlier that this run does not write (tables renamed or dropped) are removed. --base module:export makes every table use that export (a function with table()'s signature, e.g. one adding shared options) instead of table().",
  options: [
    { name: 'output', short: 'o', type: 'string', value: '<dir>', description: 'output folder (default models)' },
    { name: 'tables', type: 'string', value: '<a,b>', description: 'only these tables' },
    { name: 'exclude-tables', type: 'string', value: '<a,b>', description: 'leave these tables out' },
    { name: 'clickhouse-engines', type: 'boolean', description: 'ClickHouse: write full engine specs (settings, TTL, projections, skip indexes) and materialized views and dictionaries' },
    { name: 'relationships', type: 'boolean', description: 'foreign keys reference the generated table models (imports) instead of table names' },
    { name: 'dialect', type: 'string', value: '<type>', description: 'write types for this database type (default: the database\'s own; another one prefers portable col.* types)', choices: ['postgresql', 'mysql', 'mariadb', 'sqlite', 'clickhouse'] },
    { name: 'single-file', type: 'boolean', description: 'write one models.ts instead of one file per table' },
    { name: 'base', type: 'string', value: '<module:export>', description: 'table factory to use instead of table(), e.g. ./src/db/base.js:appTable (paths relative to the project root)' },
    DATABASE_OPTION,
  ],
  examples: ['mtool generate-models', 'mtool generate-models --output src/models --tables users,orders', 'mtool generate-models --single-file --relationships', 'mtool generate-models --base ./src/db/base.js:appTable'],
  run: async (ctx, input) => (await import('../codegen/generate-models-action.js')).generateModelsAction(ctx, input),
};
