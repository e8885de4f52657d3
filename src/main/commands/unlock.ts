import { DATABASE_OPTION, type CommandDescriptor } from './command.js';

export const unlockCommand: CommandDescriptor = {
  name: 'unlock',
  description:
    'Force-release the migration lock (after a killed run). Make sure no mtool process is still migrating this database first: see `mtool lock-status`. Warns, and releases anyway, when the holder still runs on this host.',
  options: [DATABASE_OPTION],
  examples: ['mtool unlock', 'mtool unlock --database app'],
  run: async (ctx, input) => (await import('../engine/actions.js')).unlockAction(ctx, input),
};
