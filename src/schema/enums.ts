import { MtoolConfigError } from '../errors.js';
import { checkEnumValues } from './columns.js';
import { MODEL, type EnumModel, type Model } from './model.js';
import { checkName, checkOptions } from './options.js';

export interface PgEnum<V extends readonly string[] = readonly string[]> extends Model<EnumModel> {
  readonly name: string;
  readonly schema: string | undefined;
  readonly values: V;
}

/**
 * A named enum type. On PostgreSQL it is `CREATE TYPE name AS ENUM (...)` (in `schema` when
 * given); MySQL, MariaDB and ClickHouse inline the values on the column; SQLite uses
 * `VARCHAR(n)` with a CHECK constraint.
 * @example export const userStatus = pgEnum('user_status', ['active', 'banned']);
 */
export function pgEnum<const V extends readonly string[]>(name: string, values: V, options: { schema?: string } = {}): PgEnum<V> {
  checkName('pgEnum()', 'name', name);
  checkOptions(`enum '${name}'`, options, ['schema']);
  if (!Array.isArray(values)) throw new MtoolConfigError(`enum '${name}': values must be an array of strings`);
  checkEnumValues(values, `enum '${name}'`);
  if (options.schema !== undefined) checkName(`enum '${name}'`, 'schema', options.schema);
  const def: EnumModel = { kind: 'enum', name, schema: options.schema, values: Object.freeze([...values]) };
  return Object.freeze({ [MODEL]: def, name, schema: options.schema, values: def.values as V });
}
