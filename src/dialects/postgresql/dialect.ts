import type { SchemaIR } from '../../schema/ir.js';
import type { Capabilities, Connection, ConnectOptions, Dialect, IntrospectOptions, ServerVersion, TrackingSql } from '../types.js';
import { renderPostgresSchema, renderPostgresTable } from './renderer.js';
import { parseVersionNumbers } from '../server-version.js';
import { postgresQuoting } from './quoting.js';

/** PostgreSQL: transactional DDL, savepoints, `CREATE INDEX CONCURRENTLY`, schemas, named enums. */
export const postgresCapabilities: Capabilities = {
  transactionalDdl: true,
  transactions: true,
  savepoints: true,
  concurrentIndexes: true,
  atomicLock: true,
  schemas: true,
  namedEnums: true,
  foreignKeys: true,
  returning: true,
  sequences: true,
};

/** The PostgreSQL dialect over the `pg` package (imported on the first connect). */
export const postgresDialect: Dialect = {
  type: 'postgresql',
  splitDialect: 'postgresql',
  capabilities: postgresCapabilities,
  quote: postgresQuoting,
  async connect(options: ConnectOptions): Promise<Connection> {
    const { connectPostgres } = await import('./driver.js');
    return connectPostgres(options);
  },
  // `15.20 (Debian 15.20-0+deb12u1)`, `16beta1`.
  parseServerVersion: (raw: string): ServerVersion => parseVersionNumbers(raw, 'postgresql'),
  async dispose(): Promise<void> {
    const { endPostgresPools } = await import('./driver.js');
    await endPostgresPools();
  },
  async introspect(conn: Connection, options?: IntrospectOptions): Promise<SchemaIR> {
    const { introspectPostgres } = await import('./introspector.js');
    return introspectPostgres(conn, options);
  },
  // Pure and small, so it loads with the dialect and rendering stays synchronous (+6 modules, ~5 ms CPU on the registry import).
  renderSchema: renderPostgresSchema,
  renderTable: renderPostgresTable,  async tracking(): Promise<TrackingSql> {
    return (await import('./tracking.js')).tracking;
  },
};
