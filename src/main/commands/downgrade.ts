import { DATABASE_OPTION, type CommandDescriptor } from './command.js';
import { RUN_LOG_OPTIONS } from './migrate.js';

export const downgradeCommand: CommandDescriptor = {
  name: 'downgrade',
  description:
    'Revert every applied versioned migration after the target version, newest first, under the migration lock. Versions at or before the target stay; fails when the target is not applied.',
  options: [
    DATABASE_OPTION,
    { name: 'to', short: 't', type: 'string', value: '<NNNN>', description: 'target version (required); it stays applied' },
    ...RUN_LOG_OPTIONS,
  ],
  examples: ['mtool downgrade --to 0003', 'mtool downgrade --database app --to 0001 --verbose'],
  run: async (ctx, input) => (await import('../engine/actions.js')).downgradeAction(ctx, input),
};
