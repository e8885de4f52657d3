import { DATABASE_OPTION, type CommandDescriptor } from './command.js';

export const snapshotCommand: CommandDescriptor = {
  name: 'snapshot',
  description:
    'Print the DDL of one live table: CREATE TABLE, its indexes and foreign keys for SQL databases; the create query stored in system.tables for ClickHouse. An unknown table fails (exit 1) and lists close names.',
  args: [{ name: 'table', required: true, description: 'table name (PostgreSQL: schema.table for tables outside the default schema)' }],
  options: [DATABASE_OPTION],
  examples: ['mtool snapshot users', 'mtool snapshot app.events --database app'],
  run: async (ctx, input) => (await import('../models/snapshot-action.js')).snapshotAction(ctx, input),
};
