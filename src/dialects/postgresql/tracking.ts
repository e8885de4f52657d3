import type { TrackingSql } from '../types.js';
import { chainHasCode } from '../error-chain.js';

/**
 * PostgreSQL tracking tables. The lock is atomic through the lock table's primary key: the
 * second INSERT of row 1 fails with 23505 at once (the first was committed on its own).
 *
 * `CREATE TABLE IF NOT EXISTS` is not race-free on PostgreSQL: two sessions can both see the
 * table missing and the loser fails with 23505 on `pg_type_typname_nsp_index` (or 42P07), so those
 * errors mean "someone else created it" and the engine re-checks.
 */
export const tracking: TrackingSql = {
  writeMode: 'sql',
  createMigrationsTable: (q, table) => [
    `CREATE TABLE IF NOT EXISTS ${q.ident(table)} (
  filename varchar(255) PRIMARY KEY,
  version varchar(32) UNIQUE,
  checksum char(64) NOT NULL,
  type varchar(32) NOT NULL,
  description text NOT NULL,
  applied_at timestamptz NOT NULL,
  execution_ms integer NOT NULL,
  applied_by varchar(255) NOT NULL
)`,
  ],
  createLockTable: (q, table) => [
    `CREATE TABLE IF NOT EXISTS ${q.ident(table)} (
  id integer PRIMARY KEY CHECK (id = 1),
  locked_at timestamptz NOT NULL,
  host varchar(255) NOT NULL,
  pid integer NOT NULL,
  command varchar(255) NOT NULL,
  token varchar(64) NOT NULL
)`,
  ],
  existingTables: (q, tables) =>
    `SELECT tablename AS name FROM pg_catalog.pg_tables WHERE schemaname = current_schema() AND tablename IN (${tables.map((t) => q.literal(t)).join(', ')})`,
  timestamp: (q, at) => `${q.literal(at.toISOString())}::timestamptz`,
  isAlreadyExists: (error) => chainHasCode(error, ['42P07', '23505', '42710']),
  isUniqueViolation: (error) => chainHasCode(error, ['23505']),
  // insufficient_privilege.
  isPermissionDenied: (error) => chainHasCode(error, ['42501']),
  permissionHint:
    'the user mtool connects as must be allowed to create tables where its unqualified names go (on PostgreSQL 15 and later only the owner may create in schema public: ' +
    'GRANT CREATE ON SCHEMA public TO that user, or set pgSchema to a schema it may create in), or run the first migrate as a user that may',
};
