import { DATABASE_OPTION, type CommandDescriptor } from './command.js';
import { RUN_LOG_OPTIONS } from './migrate.js';

export const rollbackCommand: CommandDescriptor = {
  name: 'rollback',
  description:
    "Run the -- rollback sections of the most recently applied versioned migrations, newest first, under the migration lock. Every migration to revert is checked (file present, rollback section, not irreversible) before anything runs.",
  options: [
    DATABASE_OPTION,
    { name: 'count', short: 'c', type: 'string', value: '<n>', description: 'roll back the last n versioned migrations (default 1)' },
    { name: 'to-version', short: 't', type: 'string', value: '<NNNN>', description: 'roll back every migration above this applied version (it stays applied; one that is not applied is refused)' },
    ...RUN_LOG_OPTIONS,
  ],
  examples: ['mtool rollback', 'mtool rollback --count 3', 'mtool rollback --database app --to-version 0002'],
  run: async (ctx, input) => (await import('../engine/actions.js')).rollbackAction(ctx, input),
};
