import type { ConnectOptions, Connection, Dialect } from '../../dialects/types.js';
import type { MigrationFile } from '../../parser/migration-file.js';
import type { MigrationRecord } from './types.js';

/** A versioned migration applied (and recorded) in this run. */
export interface AppliedMigration {
  file: MigrationFile;
  record: MigrationRecord;
}

/** The database an event is about, and the connection `migrate` runs on. */
export interface HookContext {
  database: string;
  conn: Connection;
  dialect: Dialect;
}

/** Before a pending versioned migration runs. */
export interface BeforeMigrationEvent extends HookContext {
  file: MigrationFile;
  /** Versioned migrations the batch still means to apply, this one included (fewer run when one fails). */
  remaining: number;
}

/** Before a run of pending versioned migrations: see {@link EngineHooks.runLength}. */
export interface BeforeRunEvent extends HookContext {
  /** The batch's versioned migrations not run yet, in order (at least one). */
  pending: readonly MigrationFile[];
  /** Versioned migrations the batch still means to apply (fewer run when one fails). */
  remaining: number;
}

/**
 * After a versioned migration ran and its tracking row was written. Where migrations are grouped
 * into one transaction (SQLite), it is not committed yet: see {@link EngineHooks.afterCommit}.
 */
export interface AfterMigrationEvent extends HookContext, AppliedMigration {}

/** Versioned migrations that are now committed, in the order they ran. */
export interface AfterCommitEvent extends HookContext {
  committed: readonly AppliedMigration[];
}

/**
 * `--defer-snapshots`: the batch's last versioned migrations are about to run; every migration
 * before them is committed.
 */
export interface BeforeTailEvent extends HookContext {
  /** The versioned migrations still to run, in order (fewer run when one fails). */
  pending: readonly MigrationFile[];
  /** For another connection to the database: `conn` is busy with `pending` meanwhile. */
  connectOptions: ConnectOptions;
}

export interface AfterBatchEvent extends HookContext {
  /** Versioned migrations applied and committed in this run, in order (not baselined ones); empty only after `beforeTail`. */
  applied: AppliedMigration[];
  /** `--defer-snapshots`: the per-migration hooks were not called; write the final state now. */
  deferred: boolean;
  /** A versioned migration failed after those in `applied`; its changes were rolled back or need repair. */
  failed: boolean;
}

/**
 * Extension points of `migrate`, for the schema-snapshot and model-state writers (spec: a
 * snapshot after each versioned migration; with `--defer-snapshots` only after the batch).
 * A hook that throws logs a warning and does not fail the migration (spec: "write failure only
 * logs a warning"). Hooks run while the lock is held, on the migration connection, between
 * migrations: never while a statement of a migration runs.
 *
 * Order for each pending versioned migration, unless `--defer-snapshots`:
 * `beforeVersionedMigration` → (the migration runs) → `afterVersionedMigration` → `afterCommit`
 * once the transaction holding it commits (at once, or with the later migrations of its group).
 * A migration that fails gets neither after-hook. `afterBatch` comes once, after the last
 * commit, whenever at least one versioned migration was applied (also when a later one failed)
 * or `beforeTail` was called.
 * The schema a hook reads between migrations includes every migration that ran before it,
 * committed or not (same connection). With {@link EngineHooks.runLength}, migrations run in runs
 * the hook allows, and their after-hooks come at the run's end.
 */
export interface EngineHooks {
  /**
   * With `--defer-snapshots`, where each migration commits as it ends (not SQLite's groups): how
   * many of the batch's last versioned migrations {@link beforeTail} comes before (Infinity: all).
   */
  tailSize?(dialect: Dialect): number;
  /**
   * Called once, before the last {@link tailSize} versioned migrations (or all, when fewer) are
   * sent; they wait for it (what need not be ready before they start should not be awaited).
   * Must not use `conn` nor throw. What it leaves running, `afterBatch` awaits: it is called
   * whenever this was, also when no migration was applied.
   */
  beforeTail?(event: BeforeTailEvent): Promise<void>;
  /**
   * After {@link beforeTail}: versioned migrations of the tail that are now committed, in the order
   * they ran (where several go to the server in one message, as the message ends). The next
   * migrations wait for it: it must return at once, and not use `conn` nor throw.
   */
  tailCommitted?(event: AfterCommitEvent): void;
  beforeVersionedMigration?(event: BeforeMigrationEvent): Promise<void>;
  /**
   * Where the executor can send several migrations in one message (not SQLite's groups, `--perf`
   * or `--verbose` progress): called before the next pending versioned migrations instead of
   * {@link beforeVersionedMigration}, with the same duties for the first of them. Returns how many
   * of them (from the first; at least one) may run back to back with no hook between them. Once
   * they ran (or up to the one that failed), {@link afterVersionedMigration} is called for each in
   * order, then {@link afterCommit}: what the schema was between two of them cannot be read then.
   */
  runLength?(event: BeforeRunEvent): Promise<number>;
  afterVersionedMigration?(event: AfterMigrationEvent): Promise<void>;
  afterCommit?(event: AfterCommitEvent): Promise<void>;
  afterBatch?(event: AfterBatchEvent): Promise<void>;
}
