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
