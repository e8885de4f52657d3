import type { TrackingSql } from '../types.js';
import { chainHasCode } from '../error-chain.js';

/**
 * MySQL and MariaDB tracking tables (InnoDB, so the lock row's primary key makes acquisition
 * atomic: the second INSERT fails with ER_DUP_ENTRY 1062). `applied_at` is a DATETIME(3) holding
 * UTC, written as a plain literal or, by `migrate`, as `UTC_TIMESTAMP(3)`, so the session time
 * zone never shifts it.
 */
export const tracking: TrackingSql = {
  writeMode: 'sql',
  createMigrationsTable: (q, table) => [
    `CREATE TABLE IF NOT EXISTS ${q.ident(table)} (
  filename VARCHAR(255) NOT NULL PRIMARY KEY,
  version VARCHAR(32) NULL UNIQUE,
  checksum CHAR(64) NOT NULL,
  type VARCHAR(32) NOT NULL,
  description TEXT NOT NULL,
  applied_at DATETIME(3) NOT NULL,
  execution_ms INT NOT NULL,
  applied_by VARCHAR(255) NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4`,
  ],
  createLockTable: (q, table) => [
    `CREATE TABLE IF NOT EXISTS ${q.ident(table)} (
  id INT NOT NULL PRIMARY KEY,
  locked_at DATETIME(3) NOT NULL,
  host VARCHAR(255) NOT NULL,
  pid INT NOT NULL,
  command VARCHAR(255) NOT NULL,
  token VARCHAR(64) NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4`,
  ],
  // One lookup per name: with a constant schema and name information_schema opens one table's
  // metadata, with an IN list it opens every table of the schema (1.4 ms against 0.4 ms at 1000 tables).
  existingTables: (q, tables) =>
    tables
      .map((t) => `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = ${q.literal(t)}`)
      .join(' UNION ALL '),
  timestamp: (q, at) => q.literal(at.toISOString().replace('T', ' ').replace('Z', '')),
  isAlreadyExists: (error) => chainHasCode(error, ['ER_TABLE_EXISTS_ERROR', 1050]),
  isUniqueViolation: (error) => chainHasCode(error, ['ER_DUP_ENTRY', 1062]),
  // ER_TABLEACCESS_DENIED_ERROR, ER_DBACCESS_DENIED_ERROR.
  isPermissionDenied: (error) => chainHasCode(error, ['ER_TABLEACCESS_DENIED_ERROR', 1142, 'ER_DBACCESS_DENIED_ERROR', 1044]),
  permissionHint:
    'the user mtool connects as needs CREATE, SELECT, INSERT, UPDATE and DELETE on the database (GRANT ... ON db.* TO that user), or run the first migrate as a user that has them',
};
