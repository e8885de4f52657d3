import { MtoolError } from '../../errors.js';
import { findTopLevelKeyword, matchingParenEscaped, readIdentifier, splitTopLevel } from '../../schema/ddl-scan.js';
import {
  normalizeIndex,
  normalizeSqlText,
  objectKey,
  type ChColumnMeta,
  type ChDictionarySpec,
  type ChMaterializedViewSpec,
  type ChTableSpec,
  type ColumnIR,
  type DefaultIR,
  type IndexIR,
  type ProjectionIR,
  type SchemaIR,
} from '../../schema/ir.js';
import { getEntry, setEntry } from '../../schema/name-map.js';
import { expressionDefault, literalDefault, readQuoted, stripOuterParens, wholeQuoted } from '../../schema/normalize-default.js';
import { normalizeClickHouseEngine, normalizeClickHouseKey } from '../../schema/normalize-clickhouse.js';
import { columnType, normalizeType, type NormalizedType } from '../../schema/normalize-type.js';
import { isExcluded, type IntrospectOptions } from '../../schema/schema-io.js';
import type { Connection, Row } from '../types.js';
import { clickhouseQuoting as q } from './quoting.js';

/** ClickHouse's own default `index_granularity`, which servers write into every MergeTree definition. */
const DEFAULT_SETTINGS: Record<string, string> = { index_granularity: '8192' };

/**
 * Read a ClickHouse database (`options.schema`, else `currentDatabase()`) into the schema IR.
 * What the server can report is asked first (`system.columns` of the system tables), so the same
 * code reads the 18.16 servers and current ones:
 * - tables, engines and keys from `system.tables` (`engine_full` is parsed: ORDER BY, PARTITION
 *   BY, an explicit PRIMARY KEY, SAMPLE BY, TTL, SETTINGS); comments where the column exists;
 * - columns from `system.columns` (codecs where `compression_codec` exists);
 * - skip indexes from `system.data_skipping_indices`, projections from `system.projections`, or
 *   from `create_table_query` on servers without those tables;
 * - materialized views (`TO` target or own engine) and views from their CREATE text, with the
 *   database's own name removed from the query so it reads the same in another database;
 * - dictionaries (current servers list DDL dictionaries in `system.tables`) from their CREATE text.
 * Inner tables of materialized views (`.inner.*`, `.inner_id.*`) are part of their view.
 * `options.tables` narrows every query to those names (tables, views or dictionaries).
 */
export async function introspectClickHouse(conn: Connection, options: IntrospectOptions = {}): Promise<SchemaIR> {
  const run = async (what: string, sql: string): Promise<Row[]> => {
    try {
      return (await conn.query(sql)).rows;
    } catch (e) {
      throw new MtoolError(e instanceof MtoolError ? e.code : 'MTOOL_DATABASE', `clickhouse (${conn.databaseName}): reading ${what}: ${(e as Error).message}`, { cause: e, database: conn.databaseName });
    }
  };
  const database = options.schema ?? String((await run('the session', 'SELECT currentDatabase() AS db'))[0]?.db ?? 'default');
  const db = q.literal(database);
  const systemColumns = await run('server features', `SELECT table, name FROM system.columns WHERE database = 'system' AND table IN ('tables', 'columns', 'data_skipping_indices', 'projections')`);
  const has = new Set(systemColumns.map((r) => `${r.table as string}.${r.name as string}`));
  const hasTable = (t: string) => [...has].some((k) => k.startsWith(`${t}.`));

  // Asked for some tables: every query reads only those (none when no table matched).
  const only = (column: string) => (options.tables ? ` AND ${column} IN (${options.tables.length > 0 ? options.tables.map((t) => q.literal(t)).join(', ') : "''"})` : '');
  const tables = options.tables?.length === 0 ? [] : await run('tables', `SELECT name, engine, engine_full, create_table_query${has.has('tables.comment') ? ', comment' : ", '' AS comment"}
    FROM system.tables WHERE database = ${db} AND NOT is_temporary${only('name')}`);
  const picked = !options.tables || tables.length > 0;
  const columns = !picked ? [] : await run('columns', `SELECT table, name, type, default_kind, default_expression, comment${has.has('columns.compression_codec') ? ', compression_codec' : ", '' AS compression_codec"}
    FROM system.columns WHERE database = ${db}${only('table')}${has.has('columns.position') ? ' ORDER BY table, position' : ''}`);
  const skipIndexes = hasTable('data_skipping_indices')
    ? !picked
      ? []
      : await run('skip indexes', `SELECT table, name, ${has.has('data_skipping_indices.type_full') ? 'type_full' : 'type'} AS type, expr, granularity FROM system.data_skipping_indices WHERE database = ${db}${only('table')}`)
    : undefined;
  const projections = hasTable('projections') ? (!picked ? [] : await run('projections', `SELECT table, name, query FROM system.projections WHERE database = ${db}${only('table')}`)) : undefined;

  const ir: SchemaIR = { tables: {}, enums: {}, indexes: {}, constraints: {} };
  const keyOf = (dbName: string, name: string) => (dbName === database ? name : `${dbName}.${name}`);
  const dictionaryColumns = new Map<string, ColumnIR[]>();

  for (const t of tables) {
    const name = t.name as string;
    if (name.startsWith('.inner.') || name.startsWith('.inner_id.') || isExcluded(name, name, options)) continue;
    const engine = t.engine as string;
    const create = String(t.create_table_query ?? '');
    const comment = t.comment ? String(t.comment) : null;
    const base = { name, columns: {}, primary_key: [] as string[], comment };
    if (engine === 'MaterializedView' || engine === 'View') {
      setEntry(ir.tables, name, { ...base, object_type: engine === 'View' ? 'view' : 'materialized_view', backend_table_spec: viewSpec(create, database, keyOf) });
    } else if (engine === 'Dictionary' && /^CREATE\s+DICTIONARY\b/i.test(create)) {
      const parsed = parseDictionary(create);
      setEntry(ir.tables, name, { ...base, object_type: 'dictionary', primary_key: parsed.spec.primary_key, backend_table_spec: parsed.spec });
      dictionaryColumns.set(name, parsed.columns);
    } else {
      const spec = tableSpec(String(t.engine_full ?? engine));
      setEntry(ir.tables, name, { ...base, object_type: 'table', backend_table_spec: spec });
      if (!projections) spec.projections = parseProjections(create);
      if (!skipIndexes) for (const ix of parseSkipIndexes(create, name)) ir.indexes[objectKey(name, ix.name)] = ix;
    }
  }

  for (const c of columns) {
    const table = getEntry(ir.tables, c.table as string);
    if (!table || table.object_type === 'dictionary') continue;
    const col = column(c, Object.keys(table.columns).length);
    setEntry(table.columns, col.name, col);
  }
  for (const [name, cols] of dictionaryColumns) {
    const table = getEntry(ir.tables, name)!;
    for (const col of cols) {
      col.primary_key = table.primary_key.includes(col.name);
      setEntry(table.columns, col.name, col);
    }
  }

  for (const p of projections ?? []) {
    const table = getEntry(ir.tables, p.table as string);
    if (table?.object_type !== 'table') continue;
    (table.backend_table_spec as ChTableSpec).projections.push({ name: p.name as string, query: normalizeSqlText(String(p.query)) });
  }
  for (const table of Object.values(ir.tables)) {
    if (table.object_type === 'table') (table.backend_table_spec as ChTableSpec).projections.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }
  for (const s of skipIndexes ?? []) {
    const table = getEntry(ir.tables, s.table as string);
    if (!table) continue;
    const ix = skipIndex(table.name, s.name as string, String(s.expr), String(s.type), Number(s.granularity));
    ir.indexes[objectKey(table.name, ix.name)] = ix;
  }
  return ir;
}

function skipIndex(table: string, name: string, expr: string, type: string, granularity: number): IndexIR {
  return normalizeIndex({ name, table, columns: [stripOuterParens(expr)], type, granularity });
}

function column(row: Row, position: number): ColumnIR {
  const t = normalizeType(row.type as string, 'clickhouse');
  const kind = String(row.default_kind ?? '');
  const defaultKind: ChColumnMeta['default_kind'] = kind === 'DEFAULT' || kind === 'MATERIALIZED' || kind === 'ALIAS' ? kind : null;
  const text = String(row.default_expression ?? '');
  const dflt: DefaultIR = defaultKind === null || text === '' ? null : defaultKind === 'DEFAULT' ? clickhouseDefault(text, t) : expressionDefault(text);
  return chColumn(row.name as string, position, t, {
    dflt,
    defaultKind,
    comment: row.comment ? String(row.comment) : null,
    codec: row.compression_codec ? String(row.compression_codec) : null,
  });
}

/**
 * A column of a table or dictionary: nullable exactly when its type is `Nullable(...)`, never a
 * primary-key column (ClickHouse keys are expressions, kept in the table spec), `default_kind`
 * only when there is a default.
 */
function chColumn(
  name: string,
  position: number,
  t: NormalizedType,
  meta: { dflt: DefaultIR; defaultKind: ChColumnMeta['default_kind']; comment: string | null; codec: string | null },
): ColumnIR {
  return {
    name,
    position,
    ...columnType(t),
    nullable: t.nullable === true,
    primary_key: false,
    default: meta.dflt,
    comment: meta.comment,
    ch_column: {
      native_type: t.native,
      low_cardinality: t.low_cardinality === true,
      codec: meta.codec,
      default_kind: meta.dflt === null ? null : meta.defaultKind,
    },
  };
}

/**
 * A ClickHouse `DEFAULT` expression as the IR stores it: `'it\'s'` → literal, `42` → number,
 * `true` on Bool → boolean, the 18.x server's `CAST('x', 'Enum8(...)')` around enum literals →
 * literal `x`; anything else (`now()`) an expression.
 */
export function clickhouseDefault(text: string, column: { type: string; raw?: true }): DefaultIR {
  const t = text.trim();
  const quoted = wholeQuoted(t, true);
  if (quoted !== undefined) return literalDefault(quoted, column);
  if (/^-?\d+(?:\.\d+)?(?:e[+-]?\d+)?$/i.test(t)) return literalDefault(t, column);
  if (/^(?:true|false)$/i.test(t) && column.type === 'boolean') return literalDefault(t, column);
  // The 18.x server wraps typed literals: CAST('x', 'Enum8(...)'), CAST(1.5, 'Decimal(10, 2)').
  const cast = /^CAST\(\s*/i.exec(t);
  if (cast && t.endsWith(')')) {
    const body = t.slice(cast[0].length);
    const inner = readQuoted(body, true) ?? numberAtStart(body);
    const typeArg = inner ? /^\s*,\s*(.*)\)$/s.exec(inner.rest) : null;
    if (inner && typeArg && wholeQuoted(typeArg[1]!, true) !== undefined) return literalDefault(inner.value, column);
  }
  return expressionDefault(t);
}

function numberAtStart(text: string): { value: string; rest: string } | undefined {
  const m = /^-?\d+(?:\.\d+)?(?:e[+-]?\d+)?/i.exec(text);
  return m ? { value: m[0], rest: text.slice(m[0].length) } : undefined;
}

const CLAUSES = ['PARTITION BY', 'PRIMARY KEY', 'ORDER BY', 'SAMPLE BY', 'TTL', 'SETTINGS', 'COMMENT'] as const;
type Clause = (typeof CLAUSES)[number];

/** Split an engine definition (`MergeTree PARTITION BY x ORDER BY (a, b) SETTINGS k = v`) into engine and clauses. */
export function parseEngineClauses(text: string): { engine: string; clauses: Partial<Record<Clause, string>> } {
  const found: { at: number; clause: Clause }[] = [];
  for (const clause of CLAUSES) for (const at of findTopLevelKeyword(text, clause, { backslash: true })) found.push({ at, clause });
  found.sort((a, b) => a.at - b.at);
  const clauses: Partial<Record<Clause, string>> = {};
  found.forEach((f, i) => {
    if (clauses[f.clause] === undefined) clauses[f.clause] = text.slice(f.at + f.clause.length, found[i + 1]?.at ?? text.length).trim();
  });
  return { engine: normalizeClickHouseEngine(text.slice(0, found[0]?.at ?? text.length)), clauses };
}

/** A key clause as the IR stores it (shared with compileModels); an absent or empty clause is null. */
function keyList(text: string | undefined): string | null {
  return text === undefined || text.trim() === '' ? null : normalizeClickHouseKey(text);
}

function settings(text: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of splitTopLevel(text ?? '', { backslash: true })) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const key = part.slice(0, eq).trim();
    const raw = part.slice(eq + 1).trim();
    const value = wholeQuoted(raw, true) ?? raw;
    if (DEFAULT_SETTINGS[key] !== value) out[key] = value;
  }
  return out;
}

function tableSpec(engineFull: string): ChTableSpec {
  const { engine, clauses } = parseEngineClauses(engineFull);
  return {
    backend: 'clickhouse',
    engine,
    order_by: keyList(clauses['ORDER BY']),
    partition_by: keyList(clauses['PARTITION BY']),
    primary_key: keyList(clauses['PRIMARY KEY']),
    sample_by: keyList(clauses['SAMPLE BY']),
    ttl: clauses.TTL ? normalizeSqlText(clauses.TTL) : null,
    settings: settings(clauses.SETTINGS),
    projections: [],
  };
}

/** Read a possibly database-qualified name: `db.t`, `` `d b`.`t` ``. */
function readQualified(text: string): { db: string | null; name: string; rest: string } | undefined {
  const first = readBacktickAware(text);
  if (!first) return undefined;
  if (first.rest.startsWith('.')) {
    const second = readBacktickAware(first.rest.slice(1));
    if (second) return { db: first.name, name: second.name, rest: second.rest };
  }
  return { db: null, name: first.name, rest: first.rest };
}

/** ClickHouse backticks escape with a backslash (`` `a\`b` ``); other quoting styles as in SQL. */
function readBacktickAware(text: string): { name: string; rest: string } | undefined {
  const t = text.trimStart();
  if (t.startsWith('`')) {
    let name = '';
    for (let i = 1; i < t.length; i++) {
      const ch = t[i]!;
      if (ch === '\\' && i + 1 < t.length) {
        name += t[++i];
        continue;
      }
      if (ch === '`') return { name, rest: t.slice(i + 1) };
      name += ch;
    }
    return undefined;
  }
  return readIdentifier(t);
}

/** Remove `db.` / `` `db`. `` qualifications of the view's own database (outside string literals). */
export function unqualify(query: string, database: string): string {
  const esc = database.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const pattern = new RegExp(`('(?:[^'\\\\]|\\\\.)*')|(?<![\\w.\`])(?:\`${esc}\`|${esc})\\.`, 'g');
  return query.replace(pattern, (_whole, str: string | undefined) => str ?? '');
}

function viewSpec(create: string, database: string, keyOf: (db: string, name: string) => string): ChMaterializedViewSpec {
  const as = findTopLevelKeyword(create, 'AS', { backslash: true }).find((at) => /^AS\s+(?:SELECT|WITH|\()/i.test(create.slice(at)));
  const head = as === undefined ? create : create.slice(0, as);
  const query = as === undefined ? '' : create.slice(as + 2);
  const spec: ChMaterializedViewSpec = { backend: 'clickhouse', to: null, engine: null, order_by: null, partition_by: null, query: normalizeSqlText(unqualify(query, database)) };
  const to = findTopLevelKeyword(head, 'TO', { backslash: true })[0];
  if (to !== undefined) {
    const target = readQualified(head.slice(to + 2));
    if (target) spec.to = keyOf(target.db ?? database, target.name);
  }
  const engine = /\bENGINE\s*=\s*/i.exec(head);
  if (engine) {
    const { engine: name, clauses } = parseEngineClauses(head.slice(engine.index + engine[0].length));
    spec.engine = name;
    spec.order_by = keyList(clauses['ORDER BY']);
    spec.partition_by = keyList(clauses['PARTITION BY']);
  }
  return spec;
}

/** The column list of a CREATE statement: the first parenthesized group after the name. */
function columnList(create: string): { items: string[]; end: number } {
  const open = create.indexOf('(');
  if (open < 0) return { items: [], end: 0 };
  const close = matchingParenEscaped(create, open);
  if (close < 0) return { items: [], end: 0 };
  return { items: splitTopLevel(create.slice(open + 1, close), { backslash: true }), end: close + 1 };
}

/** `INDEX name expr TYPE t GRANULARITY n` items of a create query (servers without `system.data_skipping_indices`). */
export function parseSkipIndexes(create: string, table: string): IndexIR[] {
  const out: IndexIR[] = [];
  for (const item of columnList(create).items) {
    const m = /^INDEX\s+/i.exec(item);
    if (!m) continue;
    const id = readBacktickAware(item.slice(m[0].length));
    if (!id) continue;
    const type = findTopLevelKeyword(id.rest, 'TYPE', { backslash: true })[0];
    const gran = findTopLevelKeyword(id.rest, 'GRANULARITY', { backslash: true })[0];
    if (type === undefined) continue;
    const granularity = gran === undefined ? 1 : Number(id.rest.slice(gran + 'GRANULARITY'.length).trim());
    out.push(skipIndex(table, id.name, id.rest.slice(0, type).trim(), normalizeSqlText(id.rest.slice(type + 4, gran ?? id.rest.length)), granularity));
  }
  return out;
}

/** `PROJECTION name (query)` items of a create query (servers without `system.projections`). */
export function parseProjections(create: string): ProjectionIR[] {
  const out: ProjectionIR[] = [];
  for (const item of columnList(create).items) {
    const m = /^PROJECTION\s+/i.exec(item);
    if (!m) continue;
    const id = readBacktickAware(item.slice(m[0].length));
    if (id) out.push({ name: id.name, query: normalizeSqlText(stripOuterParens(id.rest)) });
  }
  return out;
}

const DICT_CLAUSES = ['PRIMARY KEY', 'SOURCE', 'LAYOUT', 'LIFETIME', 'RANGE', 'SETTINGS', 'COMMENT'] as const;
const DICT_ATTR_WORDS = ['DEFAULT', 'EXPRESSION', 'HIERARCHICAL', 'INJECTIVE', 'IS_OBJECT_ID'];

/** Columns and spec of a `CREATE DICTIONARY` statement. */
export function parseDictionary(create: string): { columns: ColumnIR[]; spec: ChDictionarySpec } {
  const list = columnList(create);
  const columns = list.items.map((item, position) => dictionaryColumn(item, position));
  const tail = create.slice(list.end);
  const found: { at: number; clause: string }[] = [];
  for (const clause of DICT_CLAUSES) for (const at of findTopLevelKeyword(tail, clause, { backslash: true })) found.push({ at, clause });
  found.sort((a, b) => a.at - b.at);
  const clause = (name: string) => {
    const i = found.findIndex((f) => f.clause === name);
    return i < 0 ? '' : tail.slice(found[i]!.at + name.length, found[i + 1]?.at ?? tail.length).trim();
  };
  const lifetimeText = stripOuterParens(clause('LIFETIME'));
  const range = /MIN\s+(\d+)\s+MAX\s+(\d+)/i.exec(lifetimeText) ?? /MAX\s+(\d+)\s+MIN\s+(\d+)/i.exec(lifetimeText);
  const lifetime = range
    ? /^MAX/i.test(lifetimeText)
      ? { min: Number(range[2]), max: Number(range[1]) }
      : { min: Number(range[1]), max: Number(range[2]) }
    : { min: 0, max: Number(lifetimeText) || 0 };
  return {
    columns,
    spec: {
      backend: 'clickhouse',
      primary_key: splitTopLevel(clause('PRIMARY KEY'), { backslash: true }).map((k) => readBacktickAware(k)?.name ?? k),
      source: typeWithParams(stripOuterParens(clause('SOURCE'))),
      layout: typeWithParams(stripOuterParens(clause('LAYOUT'))),
      lifetime,
    },
  };
}

/** `CLICKHOUSE(TABLE 'countries' PORT 9000)` → `{ type: 'CLICKHOUSE', params: { table: 'countries', port: '9000' } }`. */
function typeWithParams(text: string): { type: string; params: Record<string, string> } {
  const open = text.indexOf('(');
  const type = (open < 0 ? text : text.slice(0, open)).trim().toUpperCase();
  const params: Record<string, string> = {};
  if (open >= 0) {
    let rest = text.slice(open + 1, matchingParenEscaped(text, open)).trim();
    while (rest !== '') {
      const key = /^([A-Za-z_][A-Za-z0-9_]*)\s*/.exec(rest);
      if (!key) break;
      rest = rest.slice(key[0].length);
      const quoted = readQuoted(rest, true);
      if (quoted) {
        params[key[1]!.toLowerCase()] = quoted.value;
        rest = quoted.rest.trim();
        continue;
      }
      if (rest.startsWith('(')) {
        const close = matchingParenEscaped(rest, 0);
        params[key[1]!.toLowerCase()] = rest.slice(0, close + 1);
        rest = rest.slice(close + 1).trim();
        continue;
      }
      const word = /^[^\s]+/.exec(rest);
      if (!word) break;
      params[key[1]!.toLowerCase()] = word[0];
      rest = rest.slice(word[0].length).trim();
    }
  }
  return { type, params };
}

function dictionaryColumn(item: string, position: number): ColumnIR {
  const id = readBacktickAware(item) ?? { name: item, rest: '' };
  const words = DICT_ATTR_WORDS.flatMap((w) => findTopLevelKeyword(id.rest, w, { backslash: true }).map((at) => ({ at, w })));
  words.sort((a, b) => a.at - b.at);
  const typeText = normalizeSqlText(id.rest.slice(0, words[0]?.at ?? id.rest.length));
  const t = normalizeType(typeText, 'clickhouse');
  const d = words.find((w) => w.w === 'DEFAULT');
  const next = d ? words.find((w) => w.at > d.at) : undefined;
  const dflt = d ? clickhouseDefault(id.rest.slice(d.at + 7, next?.at ?? id.rest.length).trim(), t) : null;
  return chColumn(id.name, position, t, { dflt, defaultKind: 'DEFAULT', comment: null, codec: null });
}

