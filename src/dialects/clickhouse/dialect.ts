import type { SchemaIR } from '../../schema/ir.js';
import type { Capabilities, Connection, ConnectOptions, Dialect, IntrospectOptions, SessionGuard, TrackingSql } from '../types.js';
import { parseVersionNumbers } from '../server-version.js';
import { clickhouseMutations } from './mutations.js';
import { clickhouseQuoting } from './quoting.js';

/** ClickHouse: no transactions, savepoints, row locks, enforced foreign keys or sequences. */
export const clickhouseCapabilities: Capabilities = {
  transactionalDdl: false,
  transactions: false,
  savepoints: false,
  singleWriter: false,
  concurrentIndexes: false,
  catalogSnapshots: false,
  atomicLock: false,
  schemas: false, // ClickHouse "databases" are the only namespace
  namedEnums: false, // Enum8/Enum16 are column types
  foreignKeys: false,
  returning: false,
  sequences: false,
};

/**
 * Statements that leave something in the session for the statements after it: `SET` (not
 * `SET ROLE` / `SET DEFAULT ROLE`) and `CREATE TEMPORARY TABLE`. (`USE` does not: each request
 * names the URL's database.)
 */
const CHANGES_SESSION = /^(?:SET\s+(?!(?:DEFAULT\s+)?ROLE\b)|CREATE\s+TEMPORARY\s+TABLE\b)/i;

/** After such a file the connection goes on in a new session. */
const RENEW: SessionGuard = { renewSession: true };

/**
 * ClickHouse over HTTP (`@clickhouse/client`, old 18.x and current servers) or in process
 * (`chdb://` URLs, the `chdb` package). Both imported on the first connect.
 */
export const clickhouseDialect: Dialect = {
  type: 'clickhouse',
  splitDialect: 'clickhouse',
  capabilities: clickhouseCapabilities,
  quote: clickhouseQuoting,
  backgroundWork: clickhouseMutations,
  async connect(options: ConnectOptions): Promise<Connection> {
    const { connectClickHouse } = await import('./driver.js');
    return connectClickHouse(options);
  },
  parseServerVersion: (raw) => parseVersionNumbers(raw, 'clickhouse'),
  sessionGuard: (statements) => (statements.some((s) => CHANGES_SESSION.test(s.text)) ? RENEW : undefined),
  // HTTP clients and chdb sessions belong to their connections and go with them.
  dispose: async () => undefined,
  async introspect(conn: Connection, options?: IntrospectOptions): Promise<SchemaIR> {
    const { introspectClickHouse } = await import('./introspector.js');
    return introspectClickHouse(conn, options);
  },
  // Loaded on first use: commands that render nothing (migrate, status) do not pay for it.
  async renderSchema(ir: SchemaIR): Promise<string[]> {
    return (await import('./renderer.js')).renderClickHouseSchema(ir);
  },
  async renderTable(ir: SchemaIR, tableKey: string): Promise<string[]> {
    return (await import('./renderer.js')).renderClickHouseTable(ir, tableKey);
  },
  async tracking(): Promise<TrackingSql> {
    return (await import('./tracking.js')).tracking;
  },
};
