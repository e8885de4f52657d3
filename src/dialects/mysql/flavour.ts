import { parseVersionNumbers } from '../server-version.js';
import type { Capabilities, DatabaseType, ServerVersion } from '../types.js';

/**
 * What differs between MySQL and MariaDB, which share the wire protocol, the driver, the
 * quoting and the splitter. Everything else in this folder serves both.
 */
export interface MysqlFlavour {
  readonly type: Extract<DatabaseType, 'mysql' | 'mariadb'>;
  readonly capabilities: Capabilities;
  /** Split `SELECT VERSION()` into numbers. */
  parseServerVersion(raw: string): ServerVersion;
}

const shared = {
  transactionalDdl: false, // every DDL statement commits implicitly
  transactions: true,
  savepoints: true,
  singleWriter: false,
  concurrentIndexes: false,
  catalogSnapshots: false,
  atomicLock: true, // InnoDB SELECT ... FOR UPDATE
  schemas: false, // a "schema" is a database
  namedEnums: false, // ENUM is declared inline on the column
  foreignKeys: true,
} as const;

/** MySQL: no `RETURNING`, no sequences. */
export const mysqlFlavour: MysqlFlavour = {
  type: 'mysql',
  capabilities: { ...shared, returning: false, sequences: false },
  parseServerVersion(raw: string): ServerVersion {
    // A `mysql` database may well be served by MariaDB: report what the server says it is.
    return /mariadb/i.test(raw) ? mariadbFlavour.parseServerVersion(raw) : parseVersionNumbers(raw, 'mysql');
  },
};

/** MariaDB: `RETURNING` on INSERT/DELETE (10.5+), `CREATE SEQUENCE` (10.3+). */
export const mariadbFlavour: MysqlFlavour = {
  type: 'mariadb',
  capabilities: { ...shared, returning: true, sequences: true },
  parseServerVersion(raw: string): ServerVersion {
    // Through replication-era clients MariaDB announces itself as `5.5.5-10.11.6-MariaDB`: the
    // `5.5.5-` prefix is a compatibility shim, not the version.
    return { ...parseVersionNumbers(raw.replace(/^5\.5\.5-/, ''), /mariadb/i.test(raw) ? 'mariadb' : 'mysql'), raw };
  },
};
