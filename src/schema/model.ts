import type { ColumnBuilder } from './columns.js';
import type { ChIndexSpec, ForeignKeySpec, IndexBuilder } from './indexes.js';
import type { SqlExpression } from './sql.js';

/**
 * Brand on every model object (tables, views, dictionaries, enums) so model discovery can tell
 * models apart from anything else a module exports: `isModel(value)`.
 */
export const MODEL: unique symbol = Symbol.for('mtool.model');

export type AnyColumn = ColumnBuilder<unknown, boolean>;
export type ColumnMap = Record<string, AnyColumn>;

/** Named enum (`pgEnum`). On PostgreSQL a `CREATE TYPE`; elsewhere its values are inlined. */
export interface EnumModel {
  kind: 'enum';
  name: string;
  schema: string | undefined;
  values: readonly string[];
}

/** ClickHouse table options (the spec's engine spec, `ChIndexSpec` for skip indexes). */
export interface ClickHouseTableOptions {
  /** Engine with arguments, e.g. `MergeTree()`, `ReplacingMergeTree(ver)`. Required. */
  engine: string;
  orderBy?: string | readonly string[];
  partitionBy?: string;
  primaryKey?: string | readonly string[];
  sampleBy?: string;
  ttl?: string;
  settings?: Record<string, string | number | boolean>;
  projections?: readonly { name: string; query: string }[];
  indexes?: readonly ChIndexSpec[];
}

/** A unique constraint given in table options (`uniques`). */
export type UniqueInput = readonly string[] | { columns: readonly string[]; name?: string; nullsNotDistinct?: boolean };

export interface TableOptions {
  /** PostgreSQL schema of the table (ignored by other dialects). */
  pgSchema?: string;
  comment?: string;
  /** Composite primary key, in key order (instead of `.primaryKey()` on columns). */
  primaryKey?: readonly string[];
  indexes?: readonly IndexBuilder[];
  foreignKeys?: readonly ForeignKeySpec[];
  uniques?: readonly UniqueInput[];
  /** Check constraints by name. */
  checks?: Record<string, SqlExpression | string>;
  /** ClickHouse engine spec; required for ClickHouse tables. */
  backendTable?: ClickHouseTableOptions;
  /** Open slot for dialect or plugin attributes, copied to the IR's `attrs`. */
  attrs?: Record<string, unknown>;
}

export const TABLE_OPTION_KEYS = ['pgSchema', 'comment', 'primaryKey', 'indexes', 'foreignKeys', 'uniques', 'checks', 'backendTable', 'attrs'] as const;

export interface TableModel {
  kind: 'table';
  name: string;
  columns: ColumnMap;
  options: TableOptions;
}

export interface MaterializedViewOptions {
  /** Target table (model or table key) for `TO` views. */
  to?: { readonly [MODEL]: TableModel } | string;
  /** Engine for views without `to`. */
  engine?: string;
  orderBy?: string | readonly string[];
  partitionBy?: string;
  query: string | SqlExpression;
  columns?: ColumnMap;
  comment?: string;
}

export interface MaterializedViewModel {
  kind: 'materialized_view';
  name: string;
  columns: ColumnMap;
  options: MaterializedViewOptions;
}

export interface DictionaryOptions {
  columns: ColumnMap;
  primaryKey: string | readonly string[];
  /** `{ type: 'clickhouse', host: 'localhost', table: 'src' }` → `SOURCE(CLICKHOUSE(host 'localhost' table 'src'))`. */
  source: { type: string } & Record<string, string | number>;
  /** `'hashed'` or `{ type: 'complex_key_hashed', ... }`. */
  layout: string | ({ type: string } & Record<string, string | number>);
  /** Seconds: `300` means `LIFETIME(MIN 0 MAX 300)`. */
  lifetime: number | { min: number; max: number };
  comment?: string;
}

export interface DictionaryModel {
  kind: 'dictionary';
  name: string;
  columns: ColumnMap;
  options: DictionaryOptions;
}

export type ModelDef = TableModel | MaterializedViewModel | DictionaryModel | EnumModel;

/** Anything carrying the model brand. */
export interface Model<D extends ModelDef = ModelDef> {
  readonly [MODEL]: D;
}

/** True for tables, materialized views, dictionaries and enums defined with `mtool/schema`. */
export function isModel(value: unknown): value is Model {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as Record<symbol, unknown>)[MODEL] === 'object'
  );
}

/** The definition behind a model object. */
export function modelOf<D extends ModelDef>(model: Model<D>): D {
  return model[MODEL];
}
