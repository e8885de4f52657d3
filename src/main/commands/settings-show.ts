import { ALL_OPTION, type CommandDescriptor } from './command.js';

export const settingsShowCommand: CommandDescriptor = {
  name: 'settings show',
  description:
    'Show the settings of the default database, of the named one, or of all with --all. Read-only; credentials in URLs are masked.',
  args: [{ name: 'name', required: false, description: 'database name (default: the default database)' }],
  options: [ALL_OPTION],
  examples: ['mtool settings show', 'mtool settings show app --json', 'mtool settings show --all'],
  run: async (ctx, input) => (await import('./actions/settings-show.js')).settingsShow(ctx, input),
};
