import type { DatabaseType, Quoting } from '../../dialects/types.js';

/**
 * What the engine needs from a dialect to keep its two tracking tables: the DDL, a timestamp
 * literal, how to tell "someone else created it first" and "the lock row already exists" apart
 * from real failures, and how rows are changed.
 *
 * Each dialect folder implements it in `tracking.ts`; the engine loads only the one it uses.
 */
export interface TrackingDialect {
  /**
   * How tracking rows change:
   * - `sql`: plain INSERT / UPDATE / DELETE, and the lock is atomic through the lock table's
   *   primary key (PostgreSQL, MySQL/MariaDB, SQLite);
   * - `append`: every change is an INSERT of the row's new state with a higher `seq` and a
   *   `deleted` flag, read back with `FINAL` (ClickHouse: no transactions, no unique keys, and
   *   `ALTER TABLE ... DELETE` mutations run asynchronously on older servers).
   */
  readonly writeMode: 'sql' | 'append';
  /** Statements creating the migrations table when it is missing (idempotent). */
  createMigrationsTable(q: Quoting, table: string): string[];
  /** Statements creating the lock table when it is missing (idempotent). */
  createLockTable(q: Quoting, table: string): string[];
  /** A query returning at least one row exactly when the table exists in the connection's current schema/database. */
  tableExists(q: Quoting, table: string): string;
  /** A literal the `applied_at` / `locked_at` column accepts, meaning the given instant in UTC. */
  timestamp(q: Quoting, at: Date): string;
  /** The error means a concurrent `CREATE TABLE IF NOT EXISTS` won the race (re-check, then carry on). */
  isAlreadyExists(error: unknown): boolean;
  /** The error is a primary-key / unique violation (the lock row is held). */
  isUniqueViolation(error: unknown): boolean;
}

/** Walk an error and its `cause` chain, yielding each object (driver errors sit under MtoolError.cause). */
export function* errorChain(error: unknown): Generator<Record<string, unknown>> {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && typeof current === 'object' && current !== null; depth++) {
    yield current as Record<string, unknown>;
    current = (current as { cause?: unknown }).cause;
  }
}

/** True when any error in the chain has one of the given values in `code`, `errno`, `sqlState` or `serverCode`. */
export function chainHasCode(error: unknown, codes: readonly (string | number)[]): boolean {
  for (const e of errorChain(error)) {
    for (const key of ['code', 'errno', 'sqlState', 'sqlstate', 'serverCode']) {
      const value = e[key];
      if ((typeof value === 'string' || typeof value === 'number') && codes.includes(value)) return true;
    }
  }
  return false;
}

const LOADERS: Record<DatabaseType, () => Promise<{ tracking: TrackingDialect }>> = {
  postgresql: () => import('../../dialects/postgresql/tracking.js'),
  mysql: () => import('../../dialects/mysql/tracking.js'),
  mariadb: () => import('../../dialects/mysql/tracking.js'),
  sqlite: () => import('../../dialects/sqlite/tracking.js'),
  clickhouse: () => import('../../dialects/clickhouse/tracking.js'),
};

/** Load the tracking SQL of one database type (only that dialect's module is imported). */
export async function loadTrackingDialect(type: DatabaseType): Promise<TrackingDialect> {
  return (await LOADERS[type]()).tracking;
}
