import type { CommandDescriptor } from './command.js';

export const databaseListCommand: CommandDescriptor = {
  name: 'database list',
  description: 'List the configured databases: name, type, default flag and masked URL. Read-only.',
  examples: ['mtool database list', 'mtool database list --json'],
  run: async (ctx) => (await import('./actions/database-list.js')).databaseList(ctx),
};
