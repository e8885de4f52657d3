/**
 * The dialect registry. Importing it loads no driver package: each dialect imports its driver
 * (pg, mysql2, better-sqlite3, @clickhouse/client, chdb) inside `connect`, so `mtool --help` and
 * commands on SQLite never load the others.
 */
import { MtoolError } from '../errors.js';
import { clickhouseDialect } from './clickhouse/dialect.js';
import { mariadbDialect, mysqlDialect } from './mysql/dialect.js';
import { postgresDialect } from './postgresql/dialect.js';
import { sqliteDialect } from './sqlite/dialect.js';
import { DATABASE_TYPES, type DatabaseType, type Dialect } from './types.js';

const DIALECTS: Readonly<Record<DatabaseType, Dialect>> = {
  postgresql: postgresDialect,
  mysql: mysqlDialect,
  mariadb: mariadbDialect,
  sqlite: sqliteDialect,
  clickhouse: clickhouseDialect,
};

/**
 * The dialect of a database type.
 * @throws MtoolError `MTOOL_CONFIG` for a type mtool does not know.
 * @example const conn = await getDialect('postgresql').connect({ databaseName: 'app', url, root });
 */
export function getDialect(type: DatabaseType): Dialect {
  const dialect = Object.hasOwn(DIALECTS, type) ? DIALECTS[type] : undefined;
  if (!dialect) throw new MtoolError('MTOOL_CONFIG', `unknown database type '${String(type)}'; use one of: ${DATABASE_TYPES.join(', ')}`);
  return dialect;
}

/** Release what every dialect shares between connections (PostgreSQL pools); for shutdown. */
export async function disposeDialects(): Promise<void> {
  await Promise.all(Object.values(DIALECTS).map((d) => d.dispose()));
}

export type { Capabilities, Connection, ConnectOptions, DatabaseType, Dialect, Quoting, QueryResult, Row, ServerVersion, SqlValue } from './types.js';
