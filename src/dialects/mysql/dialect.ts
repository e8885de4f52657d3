import type { SchemaIR } from '../../schema/ir.js';
import type { Connection, ConnectOptions, Dialect, IntrospectOptions, TrackingSql } from '../types.js';
import { renderMysqlSchema, renderMysqlTable } from './renderer.js';
import { mariadbFlavour, mysqlFlavour, type MysqlFlavour } from './flavour.js';
import { mysqlQuoting } from './quoting.js';

/** Build the dialect of one flavour: the driver, quoting and splitter are the same for both. */
export function createMysqlDialect(flavour: MysqlFlavour): Dialect {
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
    // One connection is one mysql2 connection: nothing is shared.
    dispose: async () => undefined,
    async introspect(conn: Connection, options?: IntrospectOptions): Promise<SchemaIR> {
      const { introspectMysql } = await import('./introspector.js');
      return introspectMysql(conn, options);
    },
    // Pure and small, so it loads with the dialect and rendering stays synchronous (+6 modules, ~5 ms CPU on the registry import).
    renderSchema: renderMysqlSchema,
    renderTable: renderMysqlTable,
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
