import { ALL_OPTION, DATABASE_OPTION, type CommandDescriptor } from './command.js';

export const statusCommand: CommandDescriptor = {
  name: 'status',
  description:
    'Show applied versus pending migrations (read-only). Fails when an applied versioned file was changed (checksum mismatch).',
  options: [DATABASE_OPTION, ALL_OPTION],
  examples: ['mtool status', 'mtool status --all --json', 'mtool status --database app'],
  run: async (ctx, input) => (await import('../engine/actions.js')).statusAction(ctx, input),
};
