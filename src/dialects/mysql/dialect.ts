import type { SchemaIR } from '../../schema/ir.js';
import type { Connection, ConnectOptions, Dialect, IntrospectOptions, TrackingSql } from '../types.js';
import { mariadbFlavour, mysqlFlavour, type MysqlFlavour } from './flavour.js';
import { mysqlQuoting } from './quoting.js';
import { executed } from './executable-comment.js';
import { mysqlSessionGuard } from './session-guard.js';
import { mysqlServerSessions } from './server-sessions.js';

/** `USE db`: the statements after it (and a tracking row written unqualified) go to another database. */
const SWITCHES_DATABASE = /^USE\b/i;
/**
 * `SET [SESSION] autocommit = 0` (also `@@autocommit`, or among other assignments): nothing after
 * it commits until a COMMIT, the lock's release included, which the session's end then rolls back.
 */
const SWITCHES_AUTOCOMMIT = /^SET\b[\s\S]*?(?:^|[\s,.@])autocommit\s*(?:=|:=)/i;
/** `SET foreign_key_checks = 0`: the migrations after it would not be checked either. */
const SWITCHES_FOREIGN_KEYS = /^SET\b[\s\S]*?(?:^|[\s,.@])foreign_key_checks\s*(?:=|:=)/i;

/**
 * Statements before which the server commits the open transaction: DDL (not on temporary
 * tables), LOCK / UNLOCK TABLES, account and privilege statements, table maintenance, FLUSH,
 * RESET, plugins, a new transaction, `SET autocommit = 1`, and the key cache statements.
 */
const COMMITS_IMPLICITLY =
  /^(?:(?:CREATE|ALTER|DROP)\s+(?!TEMPORARY\b)|(?:RENAME|TRUNCATE|LOCK|UNLOCK|GRANT|REVOKE|ANALYZE|OPTIMIZE|REPAIR|CHECK|FLUSH|RESET|INSTALL|UNINSTALL|BEGIN|START|COMMIT|CACHE\s+INDEX|LOAD\s+INDEX)\b|SET\s+(?:PASSWORD\b|(?:SESSION\s+|@@(?:SESSION\.)?)?autocommit\s*:?=))/i;

/**
 * Statements that may commit it, depending on what they run: a procedure (`CALL`) or a prepared
 * statement (`EXECUTE`) holding DDL commits as the DDL would, out of mtool's sight.
 */
const MAY_COMMIT = /^(?:CALL|EXECUTE)\b/i;

/** Build the dialect of one flavour: the driver, quoting and splitter are the same for both. */
function createMysqlDialect(flavour: MysqlFlavour): Dialect {
  return {
    type: flavour.type,
    splitDialect: 'mysql',
    capabilities: flavour.capabilities,
    quote: mysqlQuoting,
    async connect(options: ConnectOptions): Promise<Connection> {
      const { connectMysql } = await import('./driver.js');
      return connectMysql(options, flavour);
    },
    parseServerVersion: (raw) => flavour.parseServerVersion(raw),
    sessionSwitch: (statement) => {
      const text = executed(statement);
      return SWITCHES_DATABASE.test(text) ? 'schema' : SWITCHES_AUTOCOMMIT.test(text) ? 'autocommit' : SWITCHES_FOREIGN_KEYS.test(text) ? 'foreign-keys' : undefined;
    },
    sessionGuard: mysqlSessionGuard,
    commitsImplicitly: (statement) => {
      const text = executed(statement);
      return COMMITS_IMPLICITLY.test(text) || (MAY_COMMIT.test(text) ? 'maybe' : false);
    },
    serverSessions: mysqlServerSessions,
    // One connection is one mysql2 connection: nothing is shared.
    dispose: async () => undefined,
    async introspect(conn: Connection, options?: IntrospectOptions): Promise<SchemaIR> {
      const { introspectMysql } = await import('./introspector.js');
      return introspectMysql(conn, options);
    },
    // Loaded on first use: commands that render nothing (migrate, status) do not pay for it.
    async renderSchema(ir: SchemaIR): Promise<string[]> {
      return (await import('./renderer.js')).renderMysqlSchema(ir);
    },
    async renderTable(ir: SchemaIR, tableKey: string): Promise<string[]> {
      return (await import('./renderer.js')).renderMysqlTable(ir, tableKey);
    },
    // MySQL and MariaDB keep their tracking tables alike.
    async tracking(): Promise<TrackingSql> {
      return (await import('./tracking.js')).tracking;
    },
  };
}

/** MySQL over `mysql2` (imported on the first connect). */
export const mysqlDialect: Dialect = createMysqlDialect(mysqlFlavour);
/** MariaDB: the MySQL dialect with the MariaDB flavour. */
export const mariadbDialect: Dialect = createMysqlDialect(mariadbFlavour);
