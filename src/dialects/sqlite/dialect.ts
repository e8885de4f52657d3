import type { SchemaIR } from '../../schema/ir.js';
import type { Capabilities, Connection, ConnectOptions, Dialect, IntrospectOptions, TrackingSql } from '../types.js';
import { parseVersionNumbers } from '../server-version.js';
import { sqliteQuoting } from './quoting.js';
import { sqliteSessionGuard } from './session-guard.js';

/** SQLite: transactional DDL and savepoints; no schemas, enums, or concurrent index builds. */
const sqliteCapabilities: Capabilities = {
  transactionalDdl: true,
  transactions: true,
  savepoints: true,
  singleWriter: true,
  concurrentIndexes: false,
  catalogSnapshots: false,
  atomicLock: true, // BEGIN IMMEDIATE takes the database's write lock
  schemas: false,
  namedEnums: false,
  foreignKeys: true, // with PRAGMA foreign_keys = ON, which connect sets
  returning: true, // SQLite >= 3.35; better-sqlite3 bundles a newer one
  sequences: false,
};

/** `PRAGMA foreign_keys = ...`: the session's foreign-key checks, which connect turns on. */
const SWITCHES_FOREIGN_KEYS = /^PRAGMA\s+(?:main\.)?foreign_keys\b/i;

/** An INSERT into the schema table, as `sqlite3 .dump` writes a virtual table; the CREATE statement it holds. */
const SCHEMA_INSERT = /^INSERT\s+INTO\s+["'`]?sqlite_(?:schema|master)\b/i;
const VIRTUAL_TABLE_SQL = /'(CREATE\s+VIRTUAL\s+TABLE\b(?:[^']|'')*)'/i;

/**
 * better-sqlite3 opens databases in SQLite's defensive mode, where the schema table cannot be
 * written even under `PRAGMA writable_schema`: the way `sqlite3 .dump` writes a virtual table
 * (FTS5, R*Tree). The error says only "table sqlite_master may not be modified".
 */
function schemaWriteHint(statement: string, error: unknown): string | undefined {
  if (!SCHEMA_INSERT.test(statement) || !(error instanceof Error) || !/may not be modified/.test(error.message)) return undefined;
  const create = VIRTUAL_TABLE_SQL.exec(statement)?.[1]?.replace(/''/g, "'");
  return (
    'mtool opens SQLite in defensive mode, where the schema table cannot be written, not even under PRAGMA writable_schema (how `sqlite3 .dump` writes a virtual table, FTS5 or R*Tree): ' +
    `write the CREATE statement it holds instead${create ? ` (${create})` : ''}, leave out the CREATE TABLE and INSERT lines of the tables it keeps its data in (<name>_data, <name>_idx, ...), which it creates itself, and insert its rows into the virtual table.`
  );
}

/** SQLite over `better-sqlite3` (imported on the first connect). */
export const sqliteDialect: Dialect = {
  type: 'sqlite',
  splitDialect: 'sqlite',
  capabilities: sqliteCapabilities,
  quote: sqliteQuoting,
  async connect(options: ConnectOptions): Promise<Connection> {
    const { connectSqlite } = await import('./driver.js');
    return connectSqlite(options);
  },
  parseServerVersion: (raw) => parseVersionNumbers(raw, 'sqlite'),
  sessionSwitch: (text) => (SWITCHES_FOREIGN_KEYS.test(text) ? 'foreign-keys' : undefined),
  sessionGuard: sqliteSessionGuard,
  failureHint: schemaWriteHint,
  // Each connection owns its database handle: nothing is shared.
  dispose: async () => undefined,
  async introspect(conn: Connection, options?: IntrospectOptions): Promise<SchemaIR> {
    const { introspectSqlite } = await import('./introspector.js');
    return introspectSqlite(conn, options);
  },
  // Loaded on first use: commands that render nothing (migrate, status) do not pay for it.
  async renderSchema(ir: SchemaIR): Promise<string[]> {
    return (await import('./renderer.js')).renderSqliteSchema(ir);
  },
  async renderTable(ir: SchemaIR, tableKey: string): Promise<string[]> {
    return (await import('./renderer.js')).renderSqliteTable(ir, tableKey);
  },
  async tracking(): Promise<TrackingSql> {
    return (await import('./tracking.js')).tracking;
  },
};
