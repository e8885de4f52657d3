import type { TrackingSql } from '../types.js';
import { chainHasCode } from '../error-chain.js';

/**
 * ClickHouse tracking tables.
 *
 * ClickHouse has no transactions, no unique keys and, on older servers such as 18.16,
 * `ALTER TABLE ... DELETE` is an asynchronous mutation: a row deleted that way may still be read
 * back a moment later. So rows are never updated or deleted in place. Every change INSERTs the
 * row's new state with a larger `seq` (and `deleted = 1` for a removal) into a
 * `ReplacingMergeTree(seq)`; readers use `FINAL`, which keeps only the highest `seq` per key at
 * read time, whether or not the background merge has run. An INSERT is visible as soon as it
 * returns, so this is synchronous and exact.
 *
 * A new state's `seq` is computed by the server as the row is written: above every `seq` of its
 * key (of any lock row, for the lock table), and not below the writer's clock (TrackingStore's
 * nextSeqSql). So a change beats the state it changes whatever the clocks of the hosts that wrote
 * them.
 *
 * The lock cannot be atomic without a unique key. An acquisition first reads the live rows and
 * fails with LockError when there is one; else it inserts its own row (keyed by a random token),
 * waits briefly, then reads every live row: the lowest `seq` (then token) holds the lock and every
 * other inserter withdraws its row and fails with LockError. A row inserted after another was
 * visible has the higher `seq`, so this only arbitrates between runs that passed the first read
 * together. Remaining race: both can believe they won if an insert computes its `seq` before the
 * other row is visible and then stalls for longer than the settle delay. Run migrations for a
 * ClickHouse database from one place at a time (a deploy job), or put the web integration's Redis
 * lock in front, when that matters.
 */
export const tracking: TrackingSql = {
  writeMode: 'append',
  createMigrationsTable: (q, table) => [
    `CREATE TABLE IF NOT EXISTS ${q.ident(table)} (
  filename String,
  version Nullable(String),
  checksum String,
  type String,
  description String,
  applied_at DateTime('UTC'),
  execution_ms UInt64,
  applied_by String,
  seq UInt64,
  deleted UInt8
) ENGINE = ReplacingMergeTree(seq) ORDER BY filename`,
  ],
  createLockTable: (q, table) => [
    `CREATE TABLE IF NOT EXISTS ${q.ident(table)} (
  token String,
  locked_at DateTime('UTC'),
  host String,
  pid UInt32,
  command String,
  seq UInt64,
  deleted UInt8
) ENGINE = ReplacingMergeTree(seq) ORDER BY token`,
  ],
  existingTables: (q, tables) =>
    `SELECT name FROM system.tables WHERE database = currentDatabase() AND name IN (${tables.map((t) => q.literal(t)).join(', ')})`,
  timestamp: (q, at) => `toDateTime(${q.literal(at.toISOString().slice(0, 19).replace('T', ' '))}, 'UTC')`,
  // 57: TABLE_ALREADY_EXISTS (a concurrent CREATE ... IF NOT EXISTS).
  isAlreadyExists: (error) => chainHasCode(error, [57, '57', 'TABLE_ALREADY_EXISTS']),
  isUniqueViolation: () => false,
  isPermissionDenied: (error) => chainHasCode(error, [497, '497', 'ACCESS_DENIED']),
  permissionHint:
    'the user mtool connects as must be allowed to create tables in the database (not readonly in its users.xml profile; GRANT CREATE TABLE, INSERT, SELECT on current servers), or run the first migrate as a user that may',
};
