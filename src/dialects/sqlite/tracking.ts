import type { TrackingSql } from '../types.js';
import { chainHasCode, errorChain } from '../error-chain.js';

/**
 * SQLite tracking tables. SQLite serialises writers on the database file, so `CREATE TABLE IF NOT
 * EXISTS` cannot race and the lock row's primary key makes acquisition atomic. Timestamps are
 * ISO 8601 UTC text, which sorts and reads back exactly.
 */
export const tracking: TrackingSql = {
  writeMode: 'sql',
  createMigrationsTable: (q, table) => [
    `CREATE TABLE IF NOT EXISTS ${q.ident(table)} (
  filename TEXT NOT NULL PRIMARY KEY,
  version TEXT UNIQUE,
  checksum TEXT NOT NULL,
  type TEXT NOT NULL,
  description TEXT NOT NULL,
  applied_at TEXT NOT NULL,
  execution_ms INTEGER NOT NULL,
  applied_by TEXT NOT NULL
)`,
  ],
  createLockTable: (q, table) => [
    `CREATE TABLE IF NOT EXISTS ${q.ident(table)} (
  id INTEGER NOT NULL PRIMARY KEY CHECK (id = 1),
  locked_at TEXT NOT NULL,
  host TEXT NOT NULL,
  pid INTEGER NOT NULL,
  command TEXT NOT NULL,
  token TEXT NOT NULL
)`,
  ],
  existingTables: (q, tables) => `SELECT name FROM sqlite_master WHERE type = 'table' AND name IN (${tables.map((t) => q.literal(t)).join(', ')})`,
  timestamp: (q, at) => q.literal(at.toISOString()),
  isAlreadyExists: (error) => [...errorChain(error)].some((e) => /\balready exists\b/.test(String(e.message ?? ''))),
  isUniqueViolation: (error) =>
    chainHasCode(error, ['SQLITE_CONSTRAINT_PRIMARYKEY', 'SQLITE_CONSTRAINT_UNIQUE']),
  // A file or folder mtool may not write (SQLITE_READONLY, or SQLITE_CANTOPEN for the journal).
  isPermissionDenied: (error) => chainHasCode(error, ['SQLITE_READONLY', 'SQLITE_READONLY_DIRECTORY', 'SQLITE_CANTOPEN']),
  permissionHint: 'mtool must be able to write the database file and the folder it is in (SQLite writes its journal beside the file): check their owner and permissions',
  // The single writer's lock: while it is held no other process can insert a lock row or change
  // the tracking table, so holding it with no lock row found excludes them as a committed row does.
  lockTransaction: 'BEGIN IMMEDIATE',
};
