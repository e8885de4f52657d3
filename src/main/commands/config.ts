import type { CommandDescriptor } from './command.js';

export const configCommand: CommandDescriptor = {
  name: 'config',
  description: 'Show the loaded configuration: where it came from and every field of every database, credentials masked.',
  examples: ['mtool config', 'mtool --dev config --json'],
  run: async (ctx) => (await import('./actions/config.js')).showConfig(ctx),
};
