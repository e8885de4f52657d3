import { DATABASE_OPTION, type CommandDescriptor } from './command.js';

export const initCommand: CommandDescriptor = {
  name: 'init',
  description:
    'Create migrations/ and migrations/<database>/ and a commented mtool.config.ts (SQLite by default). Never touches a database; safe to repeat: existing files are kept.',
  options: [DATABASE_OPTION],
  examples: ['mtool init', 'mtool init --database app'],
  run: async (ctx, input) => (await import('./actions/init.js')).init(ctx, input),
};
