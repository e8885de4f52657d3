import { ALL_OPTION, DATABASE_OPTION, type CommandDescriptor, type OptionSpec } from './command.js';

/** `--verbose` and `--perf`, shared by migrate, rollback and downgrade. */
export const RUN_LOG_OPTIONS: readonly OptionSpec[] = [
  { name: 'verbose', short: 'v', type: 'boolean', description: 'log each migration as it starts and finishes' },
  { name: 'perf', type: 'boolean', description: 'log every SQL statement with its duration' },
];

export const migrateCommand: CommandDescriptor = {
  name: 'migrate',
  description:
    'Apply pending migrations under the migration lock: versioned files in version order, each in its own transaction where the database allows it, then RA__ files and changed ROC__ files. Creates the tracking tables when missing.',
  options: [
    DATABASE_OPTION,
    ALL_OPTION,
    { name: 'count', short: 'c', type: 'string', value: '<n>', description: 'apply at most n versioned migrations' },
    { name: 'to-version', short: 't', type: 'string', value: '<NNNN>', description: 'apply versioned migrations up to and including this version (one a migration has)' },
    { name: 'baseline', type: 'boolean', description: 'with --to-version: record pending migrations up to it as applied without running them' },
    { name: 'dry-run', type: 'boolean', description: 'print the SQL that would run; never writes, creates a table or takes the lock' },
    { name: 'defer-snapshots', type: 'boolean', description: 'write only the final schema snapshot of the batch' },
    ...RUN_LOG_OPTIONS,
  ],
  examples: ['mtool migrate', 'mtool migrate --all', 'mtool migrate --database app --to-version 0003', 'mtool migrate --dry-run', 'mtool migrate --baseline --to-version 0005'],
  run: async (ctx, input) => (await import('../engine/actions.js')).migrateAction(ctx, input),
};
