import type { DatabaseType, Dialect, IntrospectOptions } from '../dialects/types.js';
import { MtoolError } from '../errors.js';
import type { SchemaIR } from './ir.js';

export type { IntrospectOptions } from '../dialects/types.js';

/** Tables mtool itself keeps in a database; introspection leaves them out unless told otherwise. */
export const MTOOL_TRACKING_TABLES: readonly string[] = ['_mtool_migrations', 'mtool_lock', '_mtool_seeds', '_mtool_model_state'];

/** The schema members of a {@link Dialect}: introspect (lazily loaded) and the synchronous renderers. */
export type SchemaIo = Pick<Dialect, 'introspect' | 'renderSchema' | 'renderTable'>;

/**
 * The introspector and renderers of a database type: its `Dialect` itself (one path, kept for
 * callers that hold a type rather than a dialect). The dialect registry is imported here on
 * first use, so importing this module loads no dialect code.
 * @throws MtoolError `MTOOL_CONFIG` for an unknown database type.
 * @example const io = await schemaIo('postgresql'); const ir = await io.introspect(conn);
 */
export async function schemaIo(type: DatabaseType): Promise<SchemaIo> {
  const { getDialect } = await import('../dialects/index.js');
  return getDialect(type);
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
