import { DATABASE_OPTION, type CommandDescriptor } from './command.js';

export const lockStatusCommand: CommandDescriptor = {
  name: 'lock-status',
  description:
    'Print "Migration lock: INACTIVE" or "Migration lock: ACTIVE" with who holds it, for how long, and whether its process still runs on this host (a reused pid is told apart on Linux) (read-only).',
  options: [DATABASE_OPTION],
  examples: ['mtool lock-status', 'mtool lock-status --database app --json'],
  run: async (ctx, input) => (await import('../engine/actions.js')).lockStatusAction(ctx, input),
};
