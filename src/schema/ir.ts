/**
 * The schema IR: one neutral, JSON-able model of a database schema. It IS the body of a schema
 * snapshot (`tables`, `enums`, `indexes`, `constraints`, spec "Schema snapshot"), so field names
 * keep the spec's snake_case spelling. Models compile to it (`compileModels`), introspection
 * produces it, snapshots and the model state file store it, the differ compares two of it.
 *
 * Rules that make two IRs of the same schema equal byte for byte (see `canonicalJson`):
 * - Every field listed as required is always present; "no value" is `null`, never a missing key.
 *   Optional (`?`) fields are present only when they apply (e.g. `length` only on varchar).
 * - Object maps carry no order; order that matters is stored explicitly (`position`, arrays).
 * - Index and constraint attributes are stored normalized (`normalizeIndex`,
 *   `normalizeConstraint`), so omitted attributes and their defaults compare equal.
 *
 * Keys:
 * - `tables`: the table name; a PostgreSQL table in a schema other than the database's default
 *   schema (`public` unless configured) is keyed `schema.table` and carries `schema`.
 * - `enums`: same rule as tables (PostgreSQL named enum types only; other dialects keep enum
 *   values inline on the column in `enum_values`).
 * - `indexes` and `constraints`: `<table key>.<name>` (see `objectKey`), because MySQL and
 *   PostgreSQL constraint names are only unique per table.
 */

import { setEntry } from './name-map.js';

/** Column types of the spec's normalized set. Any other type is stored as its native text with `raw: true`. */
export const NORMALIZED_TYPES = [
  'integer',
  'biginteger',
  'varchar',
  'text',
  'boolean',
  'timestamp',
  'numeric',
  'float',
  'bytes',
  'uuid',
  'enum',
] as const;
export type NormalizedTypeName = (typeof NORMALIZED_TYPES)[number];

/**
 * A column default. One shape for every dialect:
 * - `null`: no default.
 * - `{ kind: 'literal', value }`: a constant (`'active'`, `0`, `true`); strings are the unquoted value.
 * - `{ kind: 'expression', sql }`: SQL text evaluated by the server (`CURRENT_TIMESTAMP`,
 *   `gen_random_uuid()`), whitespace collapsed (see `normalizeDefaultSql`).
 */
export type DefaultIR = null | { kind: 'literal'; value: string | number | boolean } | { kind: 'expression'; sql: string };

/** PostgreSQL column metadata. */
export interface PgColumnMeta {
  /** Exactly what `format_type(atttypid, atttypmod)` prints, e.g. `character varying(255)`, `timestamp with time zone`. */
  native_type: string;
  /** `GENERATED ... AS IDENTITY` kind, or null. */
  identity: 'always' | 'by_default' | null;
  /** Explicit column collation, or null for the database default. */
  collation: string | null;
}

/** MySQL / MariaDB column metadata. */
export interface MyColumnMeta {
  /**
   * `information_schema.COLUMNS.COLUMN_TYPE`, lower case, with integer display widths removed
   * (`int(11)` → `int`, `bigint(20) unsigned` → `bigint unsigned`) except `tinyint(1)` (boolean).
   */
  native_type: string;
  unsigned: boolean;
  /** Explicit column collation, or null for the table default. */
  collation: string | null;
}

/** ClickHouse column metadata. */
export interface ChColumnMeta {
  /** `system.columns.type` verbatim, including `Nullable(...)` / `LowCardinality(...)` wrappers. */
  native_type: string;
  /** The type is wrapped in `LowCardinality(...)`. */
  low_cardinality: boolean;
  /** `CODEC(...)` text, or null (the 18.x server has no codecs). */
  codec: string | null;
  /** `DEFAULT` (or null when there is no default), `MATERIALIZED` or `ALIAS`. */
  default_kind: 'DEFAULT' | 'MATERIALIZED' | 'ALIAS' | null;
}

/** SQLite column metadata. */
export interface SqliteColumnMeta {
  /** The declared type as `PRAGMA table_info` reports it, upper-cased (`VARCHAR(255)`, `INTEGER`). */
  native_type: string;
}

/**
 * The fields of a column that say its type: what `normalizeType` decides from the native text
 * (see `columnType` in normalize-type.ts, which builds them), plus a PostgreSQL enum key.
 */
export interface ColumnTypeIR {
  /** Normalized type name, or the native type text when `raw` is true. */
  type: NormalizedTypeName | string;
  /** Present (true) only when `type` is native text outside the normalized set. */
  raw?: true;
  /** varchar length. */
  length?: number;
  /** numeric precision / scale (absent when the declaration has none). */
  precision?: number;
  scale?: number;
  /** timestamp columns only: true for `timestamp with time zone` (and equivalents). */
  timezone?: boolean;
  /** PostgreSQL: key of the named enum type in `enums`. */
  enum?: string;
  /** MySQL/MariaDB/ClickHouse inline enum: ordered values. */
  enum_values?: string[];
}

export interface ColumnIR extends ColumnTypeIR {
  name: string;
  /** 0-based position in the table's definition order (canonical JSON sorts keys, so order lives here). */
  position: number;
  nullable: boolean;
  primary_key: boolean;
  /** Server-generated integer key (identity / AUTO_INCREMENT / AUTOINCREMENT). Present only when true. */
  autoincrement?: true;
  default: DefaultIR;
  comment: string | null;
  pg_column?: PgColumnMeta;
  my_column?: MyColumnMeta;
  ch_column?: ChColumnMeta;
  sqlite_column?: SqliteColumnMeta;
  /** Open slot for dialect or plugin features. */
  attrs?: Record<string, unknown>;
}

export type ObjectType = 'table' | 'materialized_view' | 'dictionary' | 'view';

/** A ClickHouse projection (stored in the table spec, preserved on recreation). */
export interface ProjectionIR {
  name: string;
  query: string;
}

/** ClickHouse MergeTree-family (or other engine) table. */
export interface ChTableSpec {
  backend: 'clickhouse';
  /** Engine with its arguments, e.g. `MergeTree()`, `ReplacingMergeTree(ver)`. */
  engine: string;
  order_by: string | null;
  partition_by: string | null;
  primary_key: string | null;
  sample_by: string | null;
  ttl: string | null;
  /** `SETTINGS` values as text (`index_granularity: '8192'`). */
  settings: Record<string, string>;
  /** Sorted by name. */
  projections: ProjectionIR[];
}

/** ClickHouse materialized view. */
export interface ChMaterializedViewSpec {
  backend: 'clickhouse';
  /** Target table key for `TO <table>` views, or null when the view has its own engine. */
  to: string | null;
  /** Engine for views without `TO`, or null. */
  engine: string | null;
  order_by: string | null;
  partition_by: string | null;
  query: string;
}

/** ClickHouse dictionary. */
export interface ChDictionarySpec {
  backend: 'clickhouse';
  /** Key columns in order. */
  primary_key: string[];
  /** `SOURCE(TYPE(param value ...))`: type upper-cased, params as text. */
  source: { type: string; params: Record<string, string> };
  /** `LAYOUT(TYPE(param value ...))`. */
  layout: { type: string; params: Record<string, string> };
  lifetime: { min: number; max: number };
}

/** Non-ClickHouse tables: just the backend, plus dialect attributes when some exist. */
export interface PlainTableSpec {
  backend: 'postgresql' | 'mysql' | 'mariadb' | 'sqlite';
  [key: string]: unknown;
}

export type BackendTableSpec = ChTableSpec | ChMaterializedViewSpec | ChDictionarySpec | PlainTableSpec;

export interface TableIR {
  name: string;
  /** PostgreSQL schema, only when not the default schema. */
  schema?: string;
  object_type: ObjectType;
  columns: Record<string, ColumnIR>;
  /** Primary key columns in key order; `[]` when there is none (ClickHouse keys live in the table spec). */
  primary_key: string[];
  comment: string | null;
  backend_table_spec: BackendTableSpec;
  attrs?: Record<string, unknown>;
}

export interface EnumIR {
  name: string;
  schema?: string;
  /** Ordered labels. */
  values: string[];
}

/** Sort order of one index column. `nulls: null` means the default for that order. */
export interface ColumnSortIR {
  order: 'asc' | 'desc';
  nulls: 'first' | 'last' | null;
}

/**
 * An index, with every attribute make-migrations rule 8 compares. Stored normalized (see
 * `normalizeIndex`): defaults are `false`, `null`, `[]` or `{}`; `using` is lower case and null for
 * the default method (btree); `column_sorting` lists only columns that differ from ASC with default nulls.
 */
export interface IndexIR {
  name: string;
  /** Table key. */
  table: string;
  /** Column names or SQL expressions, in index order. */
  columns: string[];
  unique: boolean;
  using: string | null;
  where: string | null;
  include: string[];
  with_params: Record<string, string>;
  tablespace: string | null;
  nulls_not_distinct: boolean;
  column_sorting: Record<string, ColumnSortIR>;
  /** ClickHouse skip index type (`minmax`, `set(100)`, `bloom_filter(0.01)`), else null. */
  type: string | null;
  /** ClickHouse skip index granularity, else null. */
  granularity: number | null;
  concurrently: boolean;
  attrs?: Record<string, unknown>;
}

export type ReferentialAction = 'NO ACTION' | 'RESTRICT' | 'CASCADE' | 'SET NULL' | 'SET DEFAULT';

export interface ForeignKeyIR {
  kind: 'foreign_key';
  name: string;
  table: string;
  columns: string[];
  /** Key of the referenced table. */
  ref_table: string;
  ref_columns: string[];
  /** Upper case; default `NO ACTION`. */
  on_delete: ReferentialAction;
  on_update: ReferentialAction;
  deferrable: boolean;
  initially_deferred: boolean;
  attrs?: Record<string, unknown>;
}

export interface UniqueConstraintIR {
  kind: 'unique';
  name: string;
  table: string;
  columns: string[];
  nulls_not_distinct: boolean;
  attrs?: Record<string, unknown>;
}

export interface CheckConstraintIR {
  kind: 'check';
  name: string;
  table: string;
  /** The boolean SQL expression, whitespace collapsed. */
  expression: string;
  attrs?: Record<string, unknown>;
}

export type ConstraintIR = ForeignKeyIR | UniqueConstraintIR | CheckConstraintIR;

export interface SchemaIR {
  tables: Record<string, TableIR>;
  enums: Record<string, EnumIR>;
  indexes: Record<string, IndexIR>;
  constraints: Record<string, ConstraintIR>;
}

/** An empty schema. */
export function emptySchema(): SchemaIR {
  return { tables: {}, enums: {}, indexes: {}, constraints: {} };
}

/** Key of a table or enum: `name`, or `schema.name` when `schema` is set and is not the default schema. */
export function qualifiedKey(name: string, schema?: string | null, defaultSchema = 'public'): string {
  return schema && schema !== defaultSchema ? `${schema}.${name}` : name;
}

/** Key of an index or constraint in the `indexes` / `constraints` maps. */
export function objectKey(table: string, name: string): string {
  return `${table}.${name}`;
}

/** A table's columns in definition order (`position`): the order DDL lists them in. */
export function columnsInOrder(table: TableIR): ColumnIR[] {
  return Object.values(table.columns).sort((a, b) => a.position - b.position);
}

/** The constraints of one table, in key order (so rendered DDL is stable). */
export function tableConstraints(ir: SchemaIR, tableKey: string): ConstraintIR[] {
  return Object.keys(ir.constraints)
    .sort()
    .map((k) => ir.constraints[k]!)
    .filter((c) => c.table === tableKey);
}

/** The indexes of one table, in key order (so rendered DDL is stable). */
export function tableIndexes(ir: SchemaIR, tableKey: string): IndexIR[] {
  return Object.keys(ir.indexes)
    .sort()
    .map((k) => ir.indexes[k]!)
    .filter((i) => i.table === tableKey);
}

/** Collapse runs of whitespace and trim, so SQL fragments written differently compare equal. */
export function normalizeSqlText(sql: string): string {
  return sql.replace(/\s+/g, ' ').trim();
}

const ACTIONS: readonly ReferentialAction[] = ['NO ACTION', 'RESTRICT', 'CASCADE', 'SET NULL', 'SET DEFAULT'];

/** Normalize a referential action: case-insensitive, `null`/absent → `NO ACTION`. Returns undefined for an unknown word. */
export function normalizeAction(action: string | null | undefined): ReferentialAction | undefined {
  if (action === null || action === undefined || action === '') return 'NO ACTION';
  const upper = action.replace(/[_\s]+/g, ' ').trim().toUpperCase();
  return (ACTIONS as readonly string[]).includes(upper) ? (upper as ReferentialAction) : undefined;
}

/** Loose index input: any rule-8 attribute may be omitted or null. */
export type IndexInput = Pick<IndexIR, 'name' | 'table' | 'columns'> & {
  [K in Exclude<keyof IndexIR, 'name' | 'table' | 'columns'>]?: IndexIR[K] | null;
} & { column_sorting?: Record<string, Partial<ColumnSortIR> | null> | null };

/**
 * Fill defaults and canonicalize an index so two indexes compare by content (rule 8: omitted or
 * null attributes equal defaults). `using: 'btree'` becomes null; `nulls` equal to PostgreSQL's
 * default for the order (ASC NULLS LAST, DESC NULLS FIRST) becomes null; ASC entries with default
 * nulls are dropped; `with_params` values become text; SQL text has whitespace collapsed.
 * @example normalizeIndex({ name: 'idx_t_a', table: 't', columns: ['a'], using: 'BTREE' }).using // null
 */
export function normalizeIndex(index: IndexInput): IndexIR {
  const using = index.using ? index.using.trim().toLowerCase() : null;
  const sorting: Record<string, ColumnSortIR> = {};
  for (const [column, sort] of Object.entries(index.column_sorting ?? {})) {
    if (!sort) continue;
    const order = sort.order === 'desc' ? 'desc' : 'asc';
    const defaultNulls = order === 'asc' ? 'last' : 'first';
    const nulls = sort.nulls && sort.nulls !== defaultNulls ? sort.nulls : null;
    if (order === 'asc' && nulls === null) continue;
    setEntry(sorting, column, { order, nulls });
  }
  const withParams: Record<string, string> = {};
  for (const [key, value] of Object.entries(index.with_params ?? {})) {
    if (value !== null && value !== undefined) setEntry(withParams, key.toLowerCase(), String(value));
  }
  const out: IndexIR = {
    name: index.name,
    table: index.table,
    columns: index.columns.map((c) => normalizeSqlText(c)),
    unique: index.unique ?? false,
    using: using === 'btree' ? null : using,
    where: index.where ? normalizeSqlText(index.where) : null,
    include: [...(index.include ?? [])],
    with_params: withParams,
    tablespace: index.tablespace ?? null,
    nulls_not_distinct: index.nulls_not_distinct ?? false,
    column_sorting: sorting,
    type: index.type ? normalizeSqlText(index.type) : null,
    granularity: index.granularity ?? null,
    concurrently: index.concurrently ?? false,
  };
  if (index.attrs && Object.keys(index.attrs).length > 0) out.attrs = index.attrs;
  return out;
}

/**
 * The attributes rule 8 compares, without the name: two indexes with equal signatures are the
 * same index even when their names differ.
 */
export function indexSignature(index: IndexIR): Omit<IndexIR, 'name'> {
  const { name: _name, ...rest } = index;
  return rest;
}

/** Fill defaults of a constraint (actions upper-cased, `NO ACTION` default, booleans false, check text collapsed). */
export function normalizeConstraint(constraint: ConstraintIR): ConstraintIR {
  switch (constraint.kind) {
    case 'foreign_key':
      return {
        ...constraint,
        on_delete: normalizeAction(constraint.on_delete) ?? constraint.on_delete,
        on_update: normalizeAction(constraint.on_update) ?? constraint.on_update,
        deferrable: constraint.deferrable ?? false,
        initially_deferred: constraint.initially_deferred ?? false,
      };
    case 'unique':
      return { ...constraint, nulls_not_distinct: constraint.nulls_not_distinct ?? false };
    case 'check':
      return { ...constraint, expression: normalizeSqlText(constraint.expression) };
  }
}
