import { ALL_OPTION, DATABASE_OPTION, type CommandDescriptor } from './command.js';

export const historyCommand: CommandDescriptor = {
  name: 'history',
  description: 'List applied migrations in the order they were applied, with time, checksum, duration and who applied them (read-only).',
  options: [DATABASE_OPTION, ALL_OPTION],
  examples: ['mtool history', 'mtool history --database app --json', 'mtool history --all'],
  run: async (ctx, input) => (await import('../engine/actions.js')).historyAction(ctx, input),
};
