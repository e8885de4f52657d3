import type { CommandDescriptor } from './command.js';

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
