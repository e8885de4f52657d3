import { DATABASE_OPTION, type CommandDescriptor } from './command.js';

export const checkDbCommand: CommandDescriptor = {
  name: 'check-db',
  description:
    'Inspect the live schema of a database (mtool tracking tables left out): a readable listing (txt), the canonical schema IR (json), the same as YAML (yaml), or the SQL that recreates it in an empty database (sql). Global --json selects json when --out is not given.',
  options: [DATABASE_OPTION, { name: 'out', short: 'o', type: 'string', value: '<format>', description: 'txt (default), json, yaml or sql', choices: ['txt', 'json', 'yaml', 'sql'] }],
  examples: ['mtool check-db', 'mtool check-db --out sql > schema.sql', 'mtool check-db --database app --out yaml'],
  run: async (ctx, input) => (await import('../models/check-db-action.js')).checkDbAction(ctx, input),
};
