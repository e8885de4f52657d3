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

/**
 * A statement longer than the server's `max_query_size` (256 KiB by default), the most of a
 * statement ClickHouse parses: an INSERT's VALUES data past it is read as data, so only the
 * statement's other text counts. 18.x says `Syntax error: ... Max query size exceeded`.
 */
function querySizeHint(error: unknown): string | undefined {
  if (!(error instanceof Error) || !/\bMax query size exceeded\b/i.test(error.message)) return undefined;
  return (
    "The statement is longer than the server's max_query_size (262144 bytes unless the server sets it otherwise), the most of a statement ClickHouse parses " +
    "(an INSERT's VALUES data past it does not count): put `SET max_query_size = <bytes>;` before it in the migration file (the setting lasts for that file), or split the statement."
  );
}

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
  failureHint: (_statement, error) => querySizeHint(error),
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
