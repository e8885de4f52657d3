import type { CommandDescriptor } from './command.js';

export const versionCommand: CommandDescriptor = {
  name: 'version',
  description: 'Show the mtool version (and the Node.js version running it).',
  examples: ['mtool version', 'mtool version --json'],
  run: async () => (await import('./actions/version.js')).showVersion(),
};
