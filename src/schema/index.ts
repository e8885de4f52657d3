/**
 * `mtool/schema`: define models in TypeScript and compile them to the schema IR.
 * @example
 * import { table, col, index, pgEnum, sql } from 'mtool/schema';
 * export const userStatus = pgEnum('user_status', ['active', 'banned']);
 * export const users = table('users', {
 *   id: col.bigint().primaryKey(),
 *   email: col.varchar(255).notNull(),
 *   status: col.enum(userStatus).notNull().default('active'),
 *   created_at: col.timestamp().notNull().default(sql`CURRENT_TIMESTAMP`),
 * }, { indexes: [index('email').unique()] });
 */
export { col, ColumnBuilder, columnDef, isColumnBuilder } from './columns.js';
export type { ColumnDef, ColumnKind, DefaultInput, ReferenceOptions, TimestampOptions } from './columns.js';
export { pgEnum } from './enums.js';
export type { PgEnum } from './enums.js';
export { index, chIndex, foreignKey, autoName, IndexBuilder } from './indexes.js';
export type { ChIndexSpec, ForeignKeyInput, ForeignKeySpec, IndexDef, SortSpec, NullsOrder } from './indexes.js';
export { table, materializedView, dictionary } from './table.js';
export type { Table, MaterializedView, Dictionary, InferRow } from './table.js';
export { MODEL, isModel, modelOf } from './model.js';
export type {
  ClickHouseTableOptions,
  DictionaryOptions,
  MaterializedViewOptions,
  Model,
  ModelDef,
  TableOptions,
  UniqueInput,
} from './model.js';
export { sql, sqlText, isSql } from './sql.js';
export type { SqlExpression } from './sql.js';
export { compileModels } from './compile.js';
export type { CompileOptions } from './compile.js';
export { NATIVE_TYPES } from './native-types.js';
export { normalizeType, canonicalNativeType } from './normalize-type.js';
export type { NormalizedType, NormalizeTypeOptions } from './normalize-type.js';
export { canonicalJson, sha256Hex } from './canonical-json.js';
export * from './ir.js';
