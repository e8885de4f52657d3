import type { MigrationKind } from '../../parser/migration-name.js';
import type { DatabaseType } from '../../dialects/types.js';

/** One row of the migrations tracking table (`_mtool_migrations` by default). */
export interface MigrationRecord {
  /** Key of the row: the file's name, e.g. `app__0003_add_users.sql`. */
  filename: string;
  /** `NNNN` for versioned migrations, null for repeatables. */
  version: string | null;
  /** SHA-256 hex of the file bytes when it was (last) applied. */
  checksum: string;
  type: MigrationKind;
  description: string;
  /** ISO 8601 UTC. */
  appliedAt: string;
  executionMs: number;
  /** `user@host` of the process that applied it. */
  appliedBy: string;
}

/** What planning a `migrate` reads of a tracking row (TrackingStore.tracked): which file, at which checksum. */
export type TrackedMigration = Pick<MigrationRecord, 'filename' | 'version' | 'checksum' | 'type'>;

/** Who holds the migration lock (one row of `mtool_lock`). */
export interface LockHolder {
  host: string;
  pid: number;
  command: string;
  /** ISO 8601 UTC. */
  lockedAt: string;
  /** Random value identifying one acquisition, so a process only ever releases its own lock (see lock-token.ts). */
  token: string;
  /**
   * The server session that runs the holder's migrations (PostgreSQL backend pid, MySQL/MariaDB
   * thread id), carried in the token; absent in tokens written without one.
   */
  serverSession?: number;
}

/** What happened to one migration in a run. */
export interface MigrationOutcome {
  filename: string;
  version: string | null;
  type: MigrationKind;
  /** `applied`: executed and recorded; `baselined`: recorded without executing; `rolled_back`; `would_apply`/`would_baseline`/`would_roll_back` under `--dry-run`. */
  action: 'applied' | 'baselined' | 'rolled_back' | 'would_apply' | 'would_baseline' | 'would_roll_back';
  durationMs: number;
  /** The file ran outside a transaction (directive or detected statement). */
  outsideTransaction?: boolean;
}

/** Result of `migrate`, `rollback` or `downgrade` on one database. */
export interface RunResult {
  database: string;
  databaseType: DatabaseType;
  command: 'migrate' | 'rollback' | 'downgrade';
  outcomes: MigrationOutcome[];
  /** Under `--dry-run`: the SQL that would run, file by file, and why a file would run outside a transaction. */
  dryRunSql?: { filename: string; statements: string[]; outsideTransaction?: string }[];
  /** Highest applied version after the run, null when none. */
  currentVersion: string | null;
  durationMs: number;
}

/** State of one migration file or record in `status`. */
export interface StatusEntry {
  filename: string;
  version: string | null;
  type: MigrationKind;
  /**
   * `applied`; `pending`; `changed` (a repeatable-on-change file whose checksum differs: runs on the next migrate);
   * `missing` (recorded as applied, file no longer on disk); `blocked` (a pending versioned file
   * whose version is below the highest applied one: `migrate` refuses to run until it is renumbered).
   */
  state: 'applied' | 'pending' | 'changed' | 'missing' | 'blocked';
  appliedAt: string | null;
  checksum: string;
  /** Why the entry is `blocked` and what to do; null otherwise. */
  note: string | null;
}

/** Result of `status` on one database. Field names follow the spec's status response. */
export interface StatusResult {
  database: string;
  databaseType: DatabaseType;
  currentVersion: string | null;
  appliedMigrations: number;
  pendingMigrations: number;
  lockActive: boolean;
  entries: StatusEntry[];
}

export interface HistoryResult {
  database: string;
  databaseType: DatabaseType;
  records: MigrationRecord[];
}

export interface LockStatusResult {
  database: string;
  databaseType: DatabaseType;
  active: boolean;
  holder: LockHolder | null;
  /** Milliseconds since the lock was taken (null when inactive). */
  heldForMs: number | null;
  /** Whether the holder's process still runs; null when inactive or held from another host. */
  holderRunning: boolean | null;
  /**
   * Whether the holder's server session still runs (it goes on with what the run sent after the
   * run was killed); null when inactive, when the lock row names no session, or the server cannot tell.
   */
  holderSessionRunning: boolean | null;
  /** What to do about the lock, from the same look at the holder's process (null when inactive). */
  advice: string | null;
}

export interface UnlockResult {
  database: string;
  databaseType: DatabaseType;
  /** The holder that was removed, null when the lock was not held. */
  released: LockHolder | null;
}
