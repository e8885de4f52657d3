import { MtoolConfigError } from '../errors.js';
import { COLUMN_OWNER, columnDef, isColumnBuilder, type ColumnBuilder } from './columns.js';
import { IndexBuilder } from './indexes.js';
import {
  MODEL,
  TABLE_OPTION_KEYS,
  type ColumnMap,
  type DictionaryModel,
  type DictionaryOptions,
  type MaterializedViewModel,
  type MaterializedViewOptions,
  type Model,
  type TableModel,
  type TableOptions,
} from './model.js';
import { setEntry } from './name-map.js';
import { checkName, checkOptions, checkPositiveInt, describe } from './options.js';
import { isSql } from './sql.js';

/** A table model: its columns as properties (for `references(() => users.id)`), branded with its definition. */
export type Table<TCols extends ColumnMap = ColumnMap> = Readonly<TCols> & Model<TableModel>;
export type MaterializedView<TCols extends ColumnMap = ColumnMap> = Readonly<TCols> & Model<MaterializedViewModel>;
export type Dictionary<TCols extends ColumnMap = ColumnMap> = Readonly<TCols> & Model<DictionaryModel>;

type Simplify<T> = { [K in keyof T]: T[K] } & {};

/**
 * The row type of a model: one property per column; `null` allowed unless the column is
 * `.notNull()` or `.primaryKey()`.
 * @example type User = InferRow<typeof users>; // { id: number | bigint; email: string; ... }
 */
export type InferRow<T> = Simplify<{
  -readonly [K in keyof T as K extends string ? (T[K] extends ColumnBuilder<unknown, boolean> ? K : never) : never]: T[K] extends ColumnBuilder<infer D, infer N>
    ? N extends true
      ? D | null
      : D
    : never;
}>;

const CH_OPTION_KEYS = ['engine', 'orderBy', 'partitionBy', 'primaryKey', 'sampleBy', 'ttl', 'settings', 'projections', 'indexes'] as const;

/**
 * Define a table. Column keys are column names. Options are checked now: an unknown key or a
 * reference to a missing column throws `MtoolConfigError` naming the table.
 * @example
 * export const users = table('users', {
 *   id: col.bigint().primaryKey(),
 *   email: col.varchar(255).notNull(),
 * }, { pgSchema: 'app', indexes: [index('email').unique()] });
 */
export function table<const TCols extends ColumnMap>(name: string, columns: TCols, options: TableOptions = {}): Table<TCols> {
  checkName('table()', 'name', name);
  const owner = `table '${name}'`;
  checkOptions(owner, options, TABLE_OPTION_KEYS);
  const names = checkColumns(owner, columns);
  const has = (c: string) => names.includes(c);
  const missing = (what: string, list: readonly string[]) => {
    const absent = list.filter((c) => !has(c));
    if (absent.length > 0) throw new MtoolConfigError(`${owner}: ${what} names unknown column${absent.length > 1 ? 's' : ''} ${absent.map((c) => `'${c}'`).join(', ')}; columns are ${names.join(', ')}`);
  };

  if (options.pgSchema !== undefined) checkName(owner, 'pgSchema', options.pgSchema);
  if (options.comment !== undefined && typeof options.comment !== 'string') throw new MtoolConfigError(`${owner}: comment must be a string`);
  if (options.primaryKey !== undefined) {
    if (!Array.isArray(options.primaryKey) || options.primaryKey.length === 0) throw new MtoolConfigError(`${owner}: primaryKey must be a non-empty array of column names`);
    missing('primaryKey', options.primaryKey);
    const marked = names.filter((c) => columnDef(columns[c] as ColumnBuilder<unknown, boolean>).primaryKey);
    if (marked.length > 0) throw new MtoolConfigError(`${owner}: primary key given both by option primaryKey and by .primaryKey() on ${marked.join(', ')}; use one`);
  }
  for (const [i, ix] of (list(owner, 'indexes', options.indexes) as unknown[]).entries()) {
    if (!(ix instanceof IndexBuilder)) throw new MtoolConfigError(`${owner}: indexes[${i}] must be made with index(...), got ${describe(ix)}`);
    missing(`index ${ix.def.name ? `'${ix.def.name}'` : `#${i + 1}`}`, [...ix.def.columns.filter((_, j) => !ix.def.expressions[j]), ...ix.def.include]);
    const sorted = Object.keys(ix.def.sorting).filter((c) => !ix.def.columns.includes(c));
    if (sorted.length > 0) throw new MtoolConfigError(`${owner}: index sorts ${sorted.join(', ')}, which it does not index`);
  }
  for (const [i, fk] of (list(owner, 'foreignKeys', options.foreignKeys) as unknown[]).entries()) {
    if (typeof fk !== 'object' || fk === null || (fk as { kind?: unknown }).kind !== 'foreign_key') {
      throw new MtoolConfigError(`${owner}: foreignKeys[${i}] must be made with foreignKey({...}), got ${describe(fk)}`);
    }
    missing(`foreign key #${i + 1}`, (fk as { columns: string[] }).columns);
  }
  for (const [i, u] of (list(owner, 'uniques', options.uniques) as unknown[]).entries()) {
    const cols = Array.isArray(u) ? u : (u as { columns?: unknown })?.columns;
    if (!Array.isArray(cols) || cols.length === 0) throw new MtoolConfigError(`${owner}: uniques[${i}] must be an array of column names or { columns, name?, nullsNotDistinct? }`);
    if (!Array.isArray(u)) checkOptions(`${owner} uniques[${i}]`, u, ['columns', 'name', 'nullsNotDistinct']);
    missing(`uniques[${i}]`, cols as string[]);
  }
  if (options.checks !== undefined) {
    if (typeof options.checks !== 'object' || options.checks === null || Array.isArray(options.checks)) throw new MtoolConfigError(`${owner}: checks must be an object { name: sql\`expression\` }`);
    for (const [checkName_, expr] of Object.entries(options.checks)) {
      if (!isSql(expr) && (typeof expr !== 'string' || expr.trim() === '')) throw new MtoolConfigError(`${owner}: check '${checkName_}' must be a sql\`...\` expression or SQL text`);
    }
  }
  if (options.backendTable !== undefined) checkClickHouseOptions(owner, options.backendTable, names);
  if (options.attrs !== undefined && (typeof options.attrs !== 'object' || options.attrs === null)) throw new MtoolConfigError(`${owner}: attrs must be an object`);

  const def: TableModel = { kind: 'table', name, columns: {}, options: { ...options } };
  return adopt(def, columns) as Table<TCols>;
}

/**
 * A ClickHouse materialized view: `CREATE MATERIALIZED VIEW name [TO target] [ENGINE ...] AS query`.
 * @example materializedView('daily_totals_mv', { to: dailyTotals, query: sql`SELECT day, sum(n) AS n FROM events GROUP BY day` })
 */
export function materializedView<const TCols extends ColumnMap = Record<never, never>>(
  name: string,
  options: MaterializedViewOptions & { columns?: TCols },
): MaterializedView<TCols> {
  checkName('materializedView()', 'name', name);
  const owner = `materialized view '${name}'`;
  checkOptions(owner, options, ['to', 'engine', 'orderBy', 'partitionBy', 'query', 'columns', 'comment']);
  const query = isSql(options.query) ? options.query.text : options.query;
  checkName(owner, 'query', query);
  if (options.to === undefined && options.engine === undefined) throw new MtoolConfigError(`${owner}: give either 'to' (target table) or 'engine'`);
  if (options.to !== undefined && options.engine !== undefined) throw new MtoolConfigError(`${owner}: 'to' and 'engine' exclude each other`);
  if (options.engine !== undefined) checkName(owner, 'engine', options.engine);
  const columns = (options.columns ?? {}) as TCols;
  checkColumns(owner, columns, true);
  const def: MaterializedViewModel = { kind: 'materialized_view', name, columns: {}, options: { ...options } };
  return adopt(def, columns) as MaterializedView<TCols>;
}

/**
 * A ClickHouse dictionary.
 * @example dictionary('country_names', { columns: { code: col.ch('String'), name: col.ch('String') }, primaryKey: 'code',
 *   source: { type: 'clickhouse', table: 'countries' }, layout: 'complex_key_hashed', lifetime: 300 })
 */
export function dictionary<const TCols extends ColumnMap>(name: string, options: DictionaryOptions & { columns: TCols }): Dictionary<TCols> {
  checkName('dictionary()', 'name', name);
  const owner = `dictionary '${name}'`;
  checkOptions(owner, options, ['columns', 'primaryKey', 'source', 'layout', 'lifetime', 'comment']);
  const names = checkColumns(owner, options.columns);
  const key = typeof options.primaryKey === 'string' ? [options.primaryKey] : options.primaryKey;
  if (!Array.isArray(key) || key.length === 0) throw new MtoolConfigError(`${owner}: primaryKey must name the key column(s)`);
  const absent = key.filter((c) => !names.includes(c));
  if (absent.length > 0) throw new MtoolConfigError(`${owner}: primaryKey names unknown column(s) ${absent.join(', ')}`);
  if (typeof options.source !== 'object' || options.source === null) throw new MtoolConfigError(`${owner}: source must be an object like { type: 'clickhouse', table: 'src' }`);
  checkName(owner, 'source.type', options.source.type);
  const layoutType = typeof options.layout === 'string' ? options.layout : options.layout?.type;
  checkName(owner, 'layout', layoutType);
  const lifetime = options.lifetime;
  if (typeof lifetime === 'number') checkPositiveInt(owner, 'lifetime', lifetime, true);
  else {
    checkOptions(`${owner} lifetime`, lifetime, ['min', 'max']);
    checkPositiveInt(owner, 'lifetime.min', lifetime?.min, true);
    checkPositiveInt(owner, 'lifetime.max', lifetime?.max, true);
    if (lifetime.min > lifetime.max) throw new MtoolConfigError(`${owner}: lifetime.min exceeds lifetime.max`);
  }
  const def: DictionaryModel = { kind: 'dictionary', name, columns: {}, options: { ...options } };
  return adopt(def, options.columns) as Dictionary<TCols>;
}

function checkColumns(owner: string, columns: unknown, allowEmpty = false): string[] {
  if (typeof columns !== 'object' || columns === null || Array.isArray(columns)) throw new MtoolConfigError(`${owner}: columns must be an object { name: col.xxx() }`);
  const names = Object.keys(columns);
  if (names.length === 0 && !allowEmpty) throw new MtoolConfigError(`${owner}: needs at least one column`);
  for (const c of names) {
    if (!isColumnBuilder((columns as Record<string, unknown>)[c])) throw new MtoolConfigError(`${owner}: column '${c}' must be made with col.*(), got ${describe((columns as Record<string, unknown>)[c])}`);
  }
  return names;
}

function list(owner: string, what: string, value: unknown): readonly unknown[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new MtoolConfigError(`${owner}: ${what} must be an array`);
  return value;
}

function checkClickHouseOptions(owner: string, ch: unknown, names: string[]): void {
  checkOptions(`${owner} backendTable`, ch, CH_OPTION_KEYS);
  const o = ch as Record<string, unknown>;
  checkName(`${owner} backendTable`, 'engine', o.engine);
  for (const key of ['partitionBy', 'sampleBy', 'ttl'] as const) if (o[key] !== undefined) checkName(`${owner} backendTable`, key, o[key]);
  for (const key of ['orderBy', 'primaryKey'] as const) {
    const v = o[key];
    if (v !== undefined && typeof v !== 'string' && !(Array.isArray(v) && v.every((x) => typeof x === 'string'))) throw new MtoolConfigError(`${owner} backendTable: ${key} must be an expression or a list of them`);
  }
  if (o.settings !== undefined && (typeof o.settings !== 'object' || o.settings === null || Array.isArray(o.settings))) throw new MtoolConfigError(`${owner} backendTable: settings must be an object`);
  for (const [i, p] of list(owner, 'backendTable.projections', o.projections).entries()) {
    checkOptions(`${owner} backendTable.projections[${i}]`, p, ['name', 'query']);
    checkName(`${owner} backendTable.projections[${i}]`, 'name', (p as { name?: unknown })?.name);
    checkName(`${owner} backendTable.projections[${i}]`, 'query', (p as { query?: unknown })?.query);
  }
  for (const [i, ix] of list(owner, 'backendTable.indexes', o.indexes).entries()) {
    if ((ix as { kind?: unknown })?.kind !== 'ch_index') throw new MtoolConfigError(`${owner}: backendTable.indexes[${i}] must be made with chIndex(...)`);
  }
  void names;
}

/** Copy the columns into the model (a builder shared by two tables must not be bound to both) and brand it. */
function adopt(def: TableModel | MaterializedViewModel | DictionaryModel, columns: ColumnMap): Record<string, unknown> {
  const model: Record<string | symbol, unknown> = { [MODEL]: def };
  for (const [name, builder] of Object.entries(columns)) {
    const copy = builder.clone();
    copy[COLUMN_OWNER] = { model: model as unknown as Model, column: name };
    // A column may be called `__proto__`: set as a member, not as the model's prototype.
    setEntry(def.columns, name, copy);
    setEntry(model as Record<string, unknown>, name, copy);
  }
  return Object.freeze(model) as Record<string, unknown>;
}
