import type { Connection, DatabaseType } from '../dialects/types.js';
import { MtoolError } from '../errors.js';
import type { SchemaIR } from './ir.js';

/** Tables mtool itself keeps in a database; introspection leaves them out unless told otherwise. */
export const MTOOL_TRACKING_TABLES: readonly string[] = ['_mtool_migrations', 'mtool_lock', '_mtool_seeds', '_mtool_model_state'];

export interface IntrospectOptions {
  /**
   * PostgreSQL: the schema whose tables are keyed without a prefix (default: the connection's
   * `current_schema()`, which is `pgSchema` when configured). ClickHouse: the database to read
   * (default `currentDatabase()`). Ignored elsewhere.
   */
  schema?: string;
  /** PostgreSQL: schemas to read (default: every non-system schema). */
  schemas?: readonly string[];
  /**
   * Table names (bare names, or PostgreSQL keys `schema.table`) to leave out. Default
   * {@link MTOOL_TRACKING_TABLES}; pass the configured `migrationTable`/`seedTable` names with them.
   */
  exclude?: readonly string[];
}

/** What each dialect folder's `introspector.ts` and `renderer.ts` provide. */
export interface SchemaIo {
  /** Read the live schema of the connection's database into the IR (a handful of catalog queries). */
  introspect(conn: Connection, options?: IntrospectOptions): Promise<SchemaIR>;
  /** Every statement that creates `ir` in an empty database, in dependency order. */
  renderSchema(ir: SchemaIR): string[];
  /** The statements of one table (create, its indexes, foreign keys, comments): `mtool snapshot TABLE`. */
  renderTable(ir: SchemaIR, tableKey: string): string[];
}

/**
 * The introspector and renderer of a dialect, loaded on first use (so a command on SQLite never
 * loads the ClickHouse code). Until the `Dialect` contract carries them, this is the entry point.
 * @example const io = await schemaIo('postgresql'); const ir = await io.introspect(conn);
 */
export async function schemaIo(type: DatabaseType): Promise<SchemaIo> {
  switch (type) {
    case 'postgresql': {
      const [i, r] = await Promise.all([import('../dialects/postgresql/introspector.js'), import('../dialects/postgresql/renderer.js')]);
      return { introspect: i.introspectPostgres, renderSchema: r.renderPostgresSchema, renderTable: r.renderPostgresTable };
    }
    case 'mysql':
    case 'mariadb': {
      const [i, r] = await Promise.all([import('../dialects/mysql/introspector.js'), import('../dialects/mysql/renderer.js')]);
      return { introspect: i.introspectMysql, renderSchema: r.renderMysqlSchema, renderTable: r.renderMysqlTable };
    }
    case 'sqlite': {
      const [i, r] = await Promise.all([import('../dialects/sqlite/introspector.js'), import('../dialects/sqlite/renderer.js')]);
      return { introspect: i.introspectSqlite, renderSchema: r.renderSqliteSchema, renderTable: r.renderSqliteTable };
    }
    case 'clickhouse': {
      const [i, r] = await Promise.all([import('../dialects/clickhouse/introspector.js'), import('../dialects/clickhouse/renderer.js')]);
      return { introspect: i.introspectClickHouse, renderSchema: r.renderClickHouseSchema, renderTable: r.renderClickHouseTable };
    }
    default:
      throw new MtoolError('MTOOL_CONFIG', `no introspector for database type '${String(type)}'`);
  }
}

/** Whether a table is left out by `exclude` (bare name or full key). */
export function isExcluded(name: string, key: string, options: IntrospectOptions): boolean {
  const list = options.exclude ?? MTOOL_TRACKING_TABLES;
  return list.includes(name) || list.includes(key);
}

/** A table key of the IR that the renderer was asked for but the IR lacks. */
export function unknownTable(ir: SchemaIR, key: string): MtoolError {
  const known = Object.keys(ir.tables).sort();
  return new MtoolError('MTOOL_USAGE', `table '${key}' is not in the schema; known tables: ${known.length > 0 ? known.join(', ') : '(none)'}`);
}
