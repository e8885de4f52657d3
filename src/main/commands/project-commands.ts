import { ALL_OPTION, DATABASE_OPTION, type CommandDescriptor } from './command.js';

/**
 * The project commands (set up a project, inspect its configuration): init, new, settings show,
 * database list, config, version and seed. Their descriptors share this one module instead of a
 * file each because every descriptor module is loaded at start-up (the command list feeds the
 * parser and help): seven files cost `mtool --version` about 5 ms of CPU on the development
 * machine (bench/startup.mjs). Implementations stay in `actions/`, imported when a command runs.
 */

export const initCommand: CommandDescriptor = {
  name: 'init',
  description:
    'Create migrations/ and migrations/<database>/ and a commented mtool.config.ts (SQLite by default), and add .mtool/cache/ to .gitignore. Never touches a database; safe to repeat: existing files are kept.',
  options: [DATABASE_OPTION],
  examples: ['mtool init', 'mtool init --database app'],
  run: async (ctx, input) => (await import('./actions/init.js')).init(ctx, input),
};

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

export const settingsShowCommand: CommandDescriptor = {
  name: 'settings show',
  description:
    'Show the settings of the default database, of the named one, or of all with --all. Read-only; credentials in URLs are masked.',
  args: [{ name: 'name', required: false, description: 'database name (default: the default database)' }],
  options: [ALL_OPTION],
  examples: ['mtool settings show', 'mtool settings show app --json', 'mtool settings show --all'],
  run: async (ctx, input) => (await import('./actions/settings-show.js')).settingsShow(ctx, input),
};

export const databaseListCommand: CommandDescriptor = {
  name: 'database list',
  description: 'List the configured databases: name, type, default flag and masked URL. Read-only.',
  examples: ['mtool database list', 'mtool database list --json'],
  run: async (ctx) => (await import('./actions/database-list.js')).databaseList(ctx),
};

export const configCommand: CommandDescriptor = {
  name: 'config',
  description: 'Show the loaded configuration: where it came from and every field of every database, credentials masked.',
  examples: ['mtool config', 'mtool --dev config --json'],
  run: async (ctx) => (await import('./actions/config.js')).showConfig(ctx),
};

export const versionCommand: CommandDescriptor = {
  name: 'version',
  description: 'Show the mtool version (and the Node.js version running it).',
  examples: ['mtool version', 'mtool version --json'],
  run: async () => (await import('./actions/version.js')).showVersion(),
};

/**
 * `seed ...` lives in the mtool-seeds plugin. Core keeps the command name so that any `seed`
 * subcommand tells the user what to install instead of "unknown command".
 */
export const seedCommand: CommandDescriptor = {
  name: 'seed',
  description: 'Seed data commands (create, apply, list, rollback, export); provided by the mtool-seeds plugin.',
  args: [{ name: 'subcommand', required: false, description: 'create | apply | list | rollback | export', variadic: true }],
  passThrough: true,
  examples: ['npm install mtool-seeds && mtool seed list'],
  run: async (ctx, input) => (await import('./actions/seed.js')).seed(ctx, input),
};
