import { DATABASE_OPTION, type CommandDescriptor } from './command.js';

export const newCommand: CommandDescriptor = {
  name: 'new',
  description:
    'Create an empty migration file with -- upgrade and -- rollback sections. The version is the highest existing one plus 1 unless --version is given.',
  args: [{ name: 'description', required: true, description: 'what the migration does (becomes the file name, snake case)' }],
  options: [
    DATABASE_OPTION,
    { name: 'version', type: 'string', value: '<NNNN>', description: 'four-digit version to use (versioned migrations only)' },
    {
      name: 'type',
      short: 't',
      type: 'string',
      value: '<type>',
      description: 'versioned (default), ra / runs_always, roc / runs_on_change',
      choices: ['versioned', 'ra', 'runs_always', 'roc', 'runs_on_change'],
    },
  ],
  examples: ['mtool new "add users table"', 'mtool new refresh_views --type ra', 'mtool new backfill --database app --version 0007'],
  run: async (ctx, input) => (await import('./actions/new-migration.js')).newMigration(ctx, input),
};
