import { MtoolConfigError } from '../errors.js';
import { sha256Hex } from './canonical-json.js';
import { normalizeAction, type ReferentialAction } from './ir.js';
import type { Model, TableModel } from './model.js';
import { assignEntries, setEntry } from './name-map.js';
import { checkName, checkOptions, checkPositiveInt, describe } from './options.js';
import { isSql, type SqlExpression } from './sql.js';

export type NullsOrder = 'first' | 'last';
export interface SortSpec {
  order?: 'asc' | 'desc';
  nulls?: NullsOrder;
}

/** What an `index(...)` chain recorded. Attribute names follow make-migrations rule 8. */
export interface IndexDef {
  /** Column names, or SQL expression text for `sql` entries. */
  columns: string[];
  /** Which entries of `columns` are expressions (they must not be checked against the table's columns). */
  expressions: boolean[];
  name: string | undefined;
  unique: boolean;
  using: string | undefined;
  where: string | undefined;
  include: string[];
  with: Record<string, string | number | boolean>;
  tablespace: string | undefined;
  nullsNotDistinct: boolean;
  sorting: Record<string, SortSpec>;
  concurrently: boolean;
}

/**
 * An index on a table, for the `indexes` table option. Every rule-8 attribute has a chain method.
 * @example index('email').unique().where(sql`deleted_at IS NULL`)
 * @example index('tags').using('gin')          // name idx_{table}_tags_gin
 * @example index(sql`lower(email)`).name('idx_users_email_lower')
 */
export class IndexBuilder {
  readonly def: IndexDef;

  constructor(columns: (string | SqlExpression)[]) {
    if (columns.length === 0) throw new MtoolConfigError('index(): name at least one column or sql`expression`');
    for (const c of columns) {
      if (!(typeof c === 'string' && c.trim() !== '') && !isSql(c)) {
        throw new MtoolConfigError(`index(): columns must be column names or sql\`...\` expressions, got ${describe(c)}`);
      }
    }
    this.def = {
      columns: columns.map((c) => (isSql(c) ? c.text : c)),
      expressions: columns.map((c) => isSql(c)),
      name: undefined,
      unique: false,
      using: undefined,
      where: undefined,
      include: [],
      with: {},
      tablespace: undefined,
      nullsNotDistinct: false,
      sorting: {},
      concurrently: false,
    };
  }

  /** Explicit index name (default: `idx_`/`uq_{table}_{columns}[_{method}]`). */
  name(name: string): this {
    checkName('index().name()', 'name', name);
    this.def.name = name;
    return this;
  }
  unique(): this {
    this.def.unique = true;
    return this;
  }
  /** Index method: `btree` (default), `hash`, `gin`, `gist`, `brin`, ... */
  using(method: string): this {
    checkName('index().using()', 'method', method);
    this.def.using = method.toLowerCase();
    return this;
  }
  /** Partial index predicate. */
  where(predicate: SqlExpression | string): this {
    const text = isSql(predicate) ? predicate.text : predicate;
    checkName('index().where()', 'predicate', text);
    this.def.where = text;
    return this;
  }
  /** Covering columns (PostgreSQL `INCLUDE`). */
  include(...columns: string[]): this {
    for (const c of columns) checkName('index().include()', 'column', c);
    this.def.include.push(...columns);
    return this;
  }
  /** Storage parameters (`WITH (fillfactor = 70)`). */
  with(params: Record<string, string | number | boolean>): this {
    if (typeof params !== 'object' || params === null || Array.isArray(params)) {
      throw new MtoolConfigError(`index().with(): pass an object of storage parameters, got ${describe(params)}`);
    }
    for (const [k, v] of Object.entries(params)) {
      if (!['string', 'number', 'boolean'].includes(typeof v)) throw new MtoolConfigError(`index().with(): parameter '${k}' must be a string, number or boolean`);
    }
    assignEntries(this.def.with, params);
    return this;
  }
  tablespace(name: string): this {
    checkName('index().tablespace()', 'name', name);
    this.def.tablespace = name;
    return this;
  }
  /** PostgreSQL 15 `NULLS NOT DISTINCT` (unique indexes). */
  nullsNotDistinct(): this {
    this.def.nullsNotDistinct = true;
    return this;
  }
  /** Sort one indexed column descending. */
  desc(column: string, nulls?: NullsOrder): this {
    return this.sort({ [column]: { order: 'desc', ...(nulls ? { nulls } : {}) } });
  }
  /** Sort one indexed column ascending (the default) with an explicit NULLS position. */
  asc(column: string, nulls?: NullsOrder): this {
    return this.sort({ [column]: { order: 'asc', ...(nulls ? { nulls } : {}) } });
  }
  /** Per-column order: `{ created_at: 'desc', name: { order: 'asc', nulls: 'first' } }`. */
  sort(spec: Record<string, 'asc' | 'desc' | SortSpec>): this {
    for (const [column, value] of Object.entries(spec)) {
      const s: SortSpec = typeof value === 'string' ? { order: value } : value;
      if (typeof s !== 'object' || s === null) throw new MtoolConfigError(`index().sort(): '${column}' needs 'asc', 'desc' or { order, nulls }`);
      checkOptions(`index().sort() column '${column}'`, s, ['order', 'nulls']);
      if (s.order !== undefined && s.order !== 'asc' && s.order !== 'desc') throw new MtoolConfigError(`index().sort(): order of '${column}' must be 'asc' or 'desc'`);
      if (s.nulls !== undefined && s.nulls !== 'first' && s.nulls !== 'last') throw new MtoolConfigError(`index().sort(): nulls of '${column}' must be 'first' or 'last'`);
      setEntry(this.def.sorting, column, { order: s.order ?? 'asc', ...(s.nulls ? { nulls: s.nulls } : {}) });
    }
    return this;
  }
  /** Build with `CREATE INDEX CONCURRENTLY` (PostgreSQL). */
  concurrently(): this {
    this.def.concurrently = true;
    return this;
  }
}

/** Start an index definition over columns or `sql` expressions. */
export function index(...columns: (string | SqlExpression)[]): IndexBuilder {
  return new IndexBuilder(columns);
}

/** A ClickHouse data-skipping index (the spec's `ChIndexSpec`). */
export interface ChIndexSpec {
  readonly kind: 'ch_index';
  readonly name: string;
  readonly expression: string;
  /** `minmax`, `set(100)`, `bloom_filter(0.01)`, `ngrambf_v1(...)`, `tokenbf_v1(...)`. */
  readonly type: string;
  readonly granularity: number;
}

/**
 * A ClickHouse skip index for `backendTable.indexes`.
 * @example chIndex('idx_ts', 'ts', { type: 'minmax', granularity: 4 })
 */
export function chIndex(name: string, expression: string | SqlExpression, options: { type: string; granularity?: number }): ChIndexSpec {
  checkName('chIndex()', 'name', name);
  const expr = isSql(expression) ? expression.text : expression;
  checkName(`chIndex '${name}'`, 'expression', expr);
  checkOptions(`chIndex '${name}'`, options, ['type', 'granularity']);
  checkName(`chIndex '${name}'`, 'type', options?.type);
  const granularity = options.granularity ?? 1;
  checkPositiveInt(`chIndex '${name}'`, 'granularity', granularity);
  return Object.freeze({ kind: 'ch_index', name, expression: expr, type: options.type, granularity });
}

export interface ForeignKeyInput {
  columns: readonly string[];
  /** Referenced table (model, thunk for cycles, or table key) and columns. */
  references: { table: Model<TableModel> | (() => Model<TableModel>) | string; columns: readonly string[] };
  onDelete?: string;
  onUpdate?: string;
  deferrable?: boolean;
  initiallyDeferred?: boolean;
  name?: string;
}

export interface ForeignKeySpec {
  readonly kind: 'foreign_key';
  readonly columns: readonly string[];
  readonly refTable: Model<TableModel> | (() => Model<TableModel>) | string;
  readonly refColumns: readonly string[];
  readonly onDelete: ReferentialAction;
  readonly onUpdate: ReferentialAction;
  readonly deferrable: boolean;
  readonly initiallyDeferred: boolean;
  readonly name: string | undefined;
}

/**
 * A (possibly composite) foreign key for the `foreignKeys` table option.
 * @example foreignKey({ columns: ['org_id', 'user_id'], references: { table: members, columns: ['org_id', 'id'] }, onDelete: 'cascade' })
 */
export function foreignKey(input: ForeignKeyInput): ForeignKeySpec {
  checkOptions('foreignKey()', input, ['columns', 'references', 'onDelete', 'onUpdate', 'deferrable', 'initiallyDeferred', 'name']);
  const owner = `foreignKey(${input?.name ? `'${input.name}'` : ''})`;
  if (!Array.isArray(input.columns) || input.columns.length === 0) throw new MtoolConfigError(`${owner}: columns must be a non-empty array of column names`);
  checkOptions(`${owner} references`, input.references, ['table', 'columns']);
  const ref = input.references;
  if (!ref || !Array.isArray(ref.columns) || ref.columns.length !== input.columns.length) {
    throw new MtoolConfigError(`${owner}: references.columns must list as many columns as columns (${input.columns.length})`);
  }
  if (ref.table === undefined || ref.table === null || (typeof ref.table === 'string' && ref.table.trim() === '')) {
    throw new MtoolConfigError(`${owner}: references.table must be a table model, a function returning one, or a table name`);
  }
  const onDelete = normalizeAction(input.onDelete);
  const onUpdate = normalizeAction(input.onUpdate);
  if (!onDelete || !onUpdate) throw new MtoolConfigError(`${owner}: onDelete/onUpdate must be one of cascade, restrict, set null, set default, no action`);
  if (input.name !== undefined) checkName(owner, 'name', input.name);
  return Object.freeze({
    kind: 'foreign_key',
    columns: [...input.columns],
    refTable: ref.table,
    refColumns: [...ref.columns],
    onDelete,
    onUpdate,
    deferrable: input.deferrable ?? input.initiallyDeferred ?? false,
    initiallyDeferred: input.initiallyDeferred ?? false,
    name: input.name,
  });
}

/** PostgreSQL truncates identifiers past 63 bytes; longer auto names keep a hash so they stay unique. */
export const MAX_IDENTIFIER = 63;

/**
 * Auto name for an index or constraint (make-migrations rule 8): `{prefix}_{table}_{c1}_{c2}`,
 * plus `_{method}` for non-btree methods. Expressions are reduced to word characters. Names
 * longer than 63 characters are cut and end with 8 hex digits of their SHA-256.
 * @example autoName('idx', 'users', ['email'], 'gin') // 'idx_users_email_gin'
 */
export function autoName(prefix: string, table: string, parts: readonly string[], method?: string): string {
  const words = parts.map((p) => p.replace(/[^A-Za-z0-9_]+/g, '_').replace(/^_+|_+$/g, '')).filter((p) => p !== '');
  const full = [prefix, table, ...words, ...(method && method !== 'btree' ? [method] : [])].join('_');
  if (full.length <= MAX_IDENTIFIER) return full;
  return `${full.slice(0, MAX_IDENTIFIER - 9)}_${sha256Hex(full).slice(0, 8)}`;
}
