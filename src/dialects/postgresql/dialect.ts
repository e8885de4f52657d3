import type { SchemaIR } from '../../schema/ir.js';
import type { Capabilities, Connection, ConnectOptions, Dialect, IntrospectOptions, ServerVersion, SessionSwitch, TrackingSql } from '../types.js';
import { parseVersionNumbers } from '../server-version.js';
import { postgresQuoting } from './quoting.js';
import { postgresSessionGuard } from './session-guard.js';
import { postgresServerSessions } from './server-sessions.js';

/** PostgreSQL: transactional DDL, savepoints, `CREATE INDEX CONCURRENTLY`, schemas, named enums. */
const postgresCapabilities: Capabilities = {
  transactionalDdl: true,
  transactions: true,
  savepoints: true,
  singleWriter: false,
  concurrentIndexes: true,
  catalogSnapshots: true,
  atomicLock: true,
  schemas: true,
  namedEnums: true,
  foreignKeys: true,
  returning: true,
  sequences: true,
};

/**
 * Statements that change the session's search_path: SET [SESSION | LOCAL] search_path / SCHEMA,
 * RESET search_path / ALL, DISCARD ALL, set_config('search_path', ...) anywhere in a statement,
 * and a DO block that names search_path (`EXECUTE format('SET search_path TO %I', ...)`): the
 * tracking row after it would look for mtool's table in that schema.
 */
const SWITCHES_SCHEMA = /^(?:SET\s+(?:(?:SESSION|LOCAL)\s+)?(?:search_path|SCHEMA)\b|RESET\s+(?:search_path|ALL)\b|DISCARD\s+ALL\b|DO\b[\s\S]*\bsearch_path\b)|\bset_config\s*\(\s*'search_path'/i;
/** `SET session_replication_role = replica`: triggers, foreign keys included, stop firing for the migrations after it. */
const SWITCHES_REPLICATION_ROLE = /^SET\s+(?:(?:SESSION|LOCAL)\s+)?session_replication_role\b|\bset_config\s*\(\s*'session_replication_role'/i;
/** Statements that change the role the session acts as: SET [SESSION | LOCAL] ROLE, SET SESSION AUTHORIZATION (also in a DO block's EXECUTE), set_config('role', ...). */
const SWITCHES_ROLE = /^(?:SET\s+|DO\b[\s\S]*\bSET\s+)(?:(?:SESSION|LOCAL)\s+)?(?:ROLE|SESSION\s+AUTHORIZATION)\b|\bset_config\s*\(\s*'role'/i;

/** `CREATE [UNIQUE] INDEX CONCURRENTLY [IF NOT EXISTS] [name]`: the index name, when the statement gives one. */
const CREATES_INDEX_CONCURRENTLY = /^CREATE\s+(?:UNIQUE\s+)?INDEX\s+CONCURRENTLY\s+(?:IF\s+NOT\s+EXISTS\s+)?(?!ON\b)("(?:[^"]|"")+"|[\w$]+(?:\.[\w$]+)?)?/i;

/**
 * A `CREATE INDEX CONCURRENTLY` that fails while building (a duplicate key, a cancel, a deadlock)
 * leaves its index in the catalog, marked INVALID, and running the migration again then fails
 * with 'already exists'. Not after errors of the statement itself (class 42: syntax, unknown
 * names, privileges), which fail before the index exists, except 42P07, that index existing.
 */
function concurrentIndexHint(statement: string, error: unknown): string | undefined {
  const match = CREATES_INDEX_CONCURRENTLY.exec(statement);
  if (!match) return undefined;
  const sqlState = (error as { sqlState?: unknown }).sqlState;
  const name = match[1];
  const drop = name ? `DROP INDEX CONCURRENTLY IF EXISTS ${name}` : 'DROP INDEX CONCURRENTLY on it (SELECT indexrelid::regclass FROM pg_index WHERE NOT indisvalid finds it)';
  if (sqlState === '42P07') return `An index of that name exists: if an earlier CREATE INDEX CONCURRENTLY failed, it is that one, left INVALID; ${drop} and run the command again.`;
  if (typeof sqlState === 'string' && sqlState.startsWith('42')) return undefined;
  return `A CREATE INDEX CONCURRENTLY that fails leaves its index behind, marked INVALID: ${drop} before running the command again.`;
}

/**
 * 55P04 (unsafe_new_enum_value_usage): a value added by `ALTER TYPE ... ADD VALUE` used in the
 * transaction that added it. The server's hint says it must be committed first; where a
 * migration runs in one transaction, that means in another migration or outside a transaction.
 */
function newEnumValueHint(error: unknown): string | undefined {
  if ((error as { sqlState?: unknown }).sqlState !== '55P04') return undefined;
  return 'A migration runs in one transaction, so an enum value it adds cannot be used until it commits: move the statements that use the value to the next migration, or mark this file `-- mtool: no-transaction` (each statement then commits on its own).';
}

/** The driver module, once a connection was asked for. */
let driver: Promise<typeof import('./driver.js')> | undefined;

/** The PostgreSQL dialect over the `pg` package (imported on the first connect). */
export const postgresDialect: Dialect = {
  type: 'postgresql',
  splitDialect: 'postgresql',
  capabilities: postgresCapabilities,
  quote: postgresQuoting,
  async connect(options: ConnectOptions): Promise<Connection> {
    const { connectPostgres } = await (driver ??= import('./driver.js'));
    return connectPostgres(options);
  },
  // `15.20 (Debian 15.20-0+deb12u1)`, `16beta1`.
  parseServerVersion: (raw: string): ServerVersion => parseVersionNumbers(raw, 'postgresql'),
  sessionSwitch: (text: string): SessionSwitch | undefined =>
    SWITCHES_SCHEMA.test(text) ? 'schema' : SWITCHES_ROLE.test(text) ? 'role' : SWITCHES_REPLICATION_ROLE.test(text) ? 'foreign-keys' : undefined,
  sessionGuard: postgresSessionGuard,
  failureHint: (statement, error) => concurrentIndexHint(statement, error) ?? newEnumValueHint(error),
  serverSessions: postgresServerSessions,
  async dispose(): Promise<void> {
    // No connection was ever made: there are no pools, and no reason to load the driver module.
    if (driver) await (await driver).endPostgresPools();
  },
  async introspect(conn: Connection, options?: IntrospectOptions): Promise<SchemaIR> {
    const { introspectPostgres } = await import('./introspector.js');
    return introspectPostgres(conn, options);
  },
  // Loaded on first use: commands that render nothing (migrate, status) do not pay for it.
  async renderSchema(ir: SchemaIR): Promise<string[]> {
    return (await import('./renderer.js')).renderPostgresSchema(ir);
  },
  async renderTable(ir: SchemaIR, tableKey: string): Promise<string[]> {
    return (await import('./renderer.js')).renderPostgresTable(ir, tableKey);
  },
  async tracking(): Promise<TrackingSql> {
    return (await import('./tracking.js')).tracking;
  },
};
