import { MtoolError } from '../../errors.js';
import { autoName } from '../../schema/indexes.js';
import { normalizeIndex, normalizeSqlText, objectKey, type ColumnIR, type ConstraintIR, type DefaultIR, type ForeignKeyIR, type ReferentialAction, type SchemaIR } from '../../schema/ir.js';
import { findTopLevelKeyword, matchingParen, readIdentifier, splitTopLevel } from '../../schema/ddl-scan.js';
import { canonicalNowExpression, expressionDefault, literalDefault, readQuoted, stripOuterParens } from '../../schema/normalize-default.js';
import { getEntry, hasEntry, setEntry } from '../../schema/name-map.js';
import { columnType, normalizeType } from '../../schema/normalize-type.js';
import { isExcluded, type IntrospectOptions } from '../../schema/schema-io.js';
import type { Connection, Row } from '../types.js';
import { sqliteQuoting as q } from './quoting.js';
// The comment markers live with the renderer that writes them: the renderer loads with the
// dialect, and must not pull this module and its imports in at start-up.
import { COMMENT_MARK, TABLE_COMMENT_MARK } from './renderer.js';

/**
 * Read a SQLite database into the schema IR: `sqlite_schema` plus the table-valued pragmas
 * `pragma_table_xinfo`, `pragma_index_list`, `pragma_index_xinfo` and `pragma_foreign_key_list`,
 * each joined over all tables in one query. What no pragma reports is read from the stored
 * CREATE text: constraint names, CHECK expressions, AUTOINCREMENT, DEFERRABLE, partial-index
 * predicates, index expressions, generated columns and mtool's comment markers.
 *
 * Unnamed constraints get the names `compileModels` would give them (`uq_`/`ck_`/`fk_{table}_{columns}`).
 * `options.tables` narrows every query to those tables and the ones whose column-less foreign keys
 * name them.
 */
export async function introspectSqlite(conn: Connection, options: IntrospectOptions = {}): Promise<SchemaIR> {
  const run = async (what: string, sql: string): Promise<Row[]> => {
    try {
      return (await conn.query(sql)).rows;
    } catch (e) {
      throw new MtoolError(e instanceof MtoolError ? e.code : 'MTOOL_DATABASE', `sqlite (${conn.databaseName}): reading ${what}: ${(e as Error).message}`, { cause: e, database: conn.databaseName });
    }
  };
  const allTables = `m.type = 'table' AND m.name NOT LIKE 'sqlite\\_%' ESCAPE '\\'`;
  const ir: SchemaIR = { tables: {}, enums: {}, indexes: {}, constraints: {} };
  let tablesOnly = allTables;
  if (options.tables) {
    const asked = options.tables.map((t) => q.literal(t)).join(', ');
    // A foreign key without columns refers to the primary key of its table, read from that table:
    // its IR changes with that table, so those tables are read too.
    // Only tables whose CREATE text holds one of the names can refer to it (LIKE ignores ASCII case
    // as SQLite's names do); a name with quote characters may be spelled otherwise there: no filter.
    const mentions = options.tables.some((t) => /["'`\]]/.test(t)) ? '' : ` AND (${options.tables.map((t) => `m.sql LIKE ${q.literal(`%${t}%`)}`).join(' OR ')})`;
    const dependents = asked === '' ? [] : await run('dependent tables', `SELECT DISTINCT m.name AS name FROM sqlite_schema m JOIN pragma_foreign_key_list(m.name) f
        WHERE ${allTables}${mentions} AND f."to" IS NULL AND f."table" COLLATE NOCASE IN (${asked})`);
    const names = [...new Set([...options.tables, ...dependents.map((d) => d.name as string)])];
    if (names.length === 0) return ir;
    tablesOnly = `${allTables} AND m.name IN (${names.map((t) => q.literal(t)).join(', ')})`;
  }
  const tables = await run('tables', `SELECT m.name AS name, m.sql AS sql FROM sqlite_schema m WHERE ${tablesOnly} ORDER BY m.name`);
  const columns = await run('columns', `SELECT m.name AS tbl, p.* FROM sqlite_schema m JOIN pragma_table_xinfo(m.name) p WHERE ${tablesOnly} ORDER BY m.name, p.cid`);
  const indexList = await run('indexes', `SELECT m.name AS tbl, p.name AS name, p."unique" AS is_unique, p.origin AS origin, s.sql AS sql
      FROM sqlite_schema m JOIN pragma_index_list(m.name) p LEFT JOIN sqlite_schema s ON s.type = 'index' AND s.name = p.name
      WHERE ${tablesOnly} ORDER BY m.name, p.name`);
  const indexColumns = await run('index columns', `SELECT m.name AS tbl, p.name AS idx, x.seqno AS seqno, x.cid AS cid, x.name AS col, x."desc" AS is_desc, x.key AS is_key
      FROM sqlite_schema m JOIN pragma_index_list(m.name) p JOIN pragma_index_xinfo(p.name) x
      WHERE ${tablesOnly} ORDER BY m.name, p.name, x.seqno`);
  const foreignKeys = await run('foreign keys', `SELECT m.name AS tbl, f.* FROM sqlite_schema m JOIN pragma_foreign_key_list(m.name) f WHERE ${tablesOnly} ORDER BY m.name, f.id, f.seq`);
  // Reading some tables: primary keys of the other tables their column-less foreign keys name.
  const outsideKeys = new Map<string, string[]>();
  if (options.tables) {
    const refs = [...new Set(foreignKeys.filter((f) => f.to === null).map((f) => f.table as string))];
    const rows = refs.length === 0 ? [] : await run('referenced primary keys', `SELECT m.name AS tbl, p.name AS col FROM sqlite_schema m JOIN pragma_table_xinfo(m.name) p
        WHERE ${allTables} AND m.name IN (${refs.map((r) => q.literal(r)).join(', ')}) AND p.pk > 0 ORDER BY m.name, p.pk`);
    for (const r of rows) {
      if (!isExcluded(r.tbl as string, r.tbl as string, options)) (outsideKeys.get(r.tbl as string) ?? outsideKeys.set(r.tbl as string, []).get(r.tbl as string)!).push(r.col as string);
    }
  }

  const parsed = new Map<string, ParsedTable>();
  for (const t of tables) {
    const name = t.name as string;
    if (isExcluded(name, name, options)) continue;
    const p = parseCreateTable((t.sql as string | null) ?? '');
    parsed.set(name, p);
    setEntry(ir.tables, name, {
      name,
      object_type: 'table',
      columns: {},
      primary_key: [],
      comment: p.comment,
      backend_table_spec: { backend: 'sqlite' },
      ...(Object.keys(p.attrs).length > 0 ? { attrs: p.attrs } : {}),
    });
  }

  const pkOrder = new Map<string, { col: string; pk: number }[]>();
  for (const c of columns) {
    const table = getEntry(ir.tables, c.tbl as string);
    if (!table) continue;
    const def = parsed.get(table.name)!.columns.get((c.name as string).toLowerCase());
    const col = column(c, Object.keys(table.columns).length, def);
    setEntry(table.columns, col.name, col);
    if (Number(c.pk) > 0) (pkOrder.get(table.name) ?? pkOrder.set(table.name, []).get(table.name)!).push({ col: col.name, pk: Number(c.pk) });
  }
  for (const [name, list] of pkOrder) {
    const table = getEntry(ir.tables, name)!;
    table.primary_key = list.sort((a, b) => a.pk - b.pk).map((x) => x.col);
    for (const col of table.primary_key) getEntry(table.columns, col)!.primary_key = true;
  }

  for (const table of Object.values(ir.tables)) {
    const p = parsed.get(table.name)!;
    p.checks.forEach((check, i) => {
      const name = check.name ?? (check.column ? autoName('ck', table.name, [check.column]) : `ck_${table.name}_${i + 1}`);
      addConstraint(ir, { kind: 'check', name, table: table.name, expression: normalizeSqlText(check.expression) });
    });
  }

  // Foreign keys: the pragma gives columns and actions; the CREATE text gives names and DEFERRABLE.
  const fkGroups = new Map<string, Row[]>();
  for (const f of foreignKeys) {
    if (!hasEntry(ir.tables, f.tbl as string)) continue;
    const k = `${f.tbl as string}\0${f.id as number}`;
    (fkGroups.get(k) ?? fkGroups.set(k, []).get(k)!).push(f);
  }
  for (const rows of fkGroups.values()) {
    const first = rows[0]!;
    const tableName = first.tbl as string;
    const refTable = first.table as string;
    const cols = rows.map((r) => r.from as string);
    const refCols = rows.some((r) => r.to === null) ? (getEntry(ir.tables, refTable)?.primary_key ?? outsideKeys.get(refTable) ?? []) : rows.map((r) => r.to as string);
    const text = parsed.get(tableName)!.foreignKeys.find((f) => sameList(f.columns, cols) && f.refTable.toLowerCase() === refTable.toLowerCase());
    const fk: ForeignKeyIR = {
      kind: 'foreign_key',
      name: text?.name ?? autoName('fk', tableName, [...cols, refTable]),
      table: tableName,
      columns: cols,
      ref_table: refTable,
      ref_columns: refCols,
      on_delete: action(first.on_delete),
      on_update: action(first.on_update),
      deferrable: text?.deferrable ?? false,
      initially_deferred: text?.initiallyDeferred ?? false,
    };
    addConstraint(ir, fk);
  }

  const colsByIndex = new Map<string, Row[]>();
  for (const x of indexColumns) {
    const k = `${x.tbl as string}\0${x.idx as string}`;
    (colsByIndex.get(k) ?? colsByIndex.set(k, []).get(k)!).push(x);
  }
  for (const i of indexList) {
    const tableName = i.tbl as string;
    if (!hasEntry(ir.tables, tableName)) continue;
    const name = i.name as string;
    const entries = (colsByIndex.get(`${tableName}\0${name}`) ?? []).filter((x) => Number(x.is_key) === 1);
    if (i.origin === 'pk') continue;
    if (i.origin === 'u') {
      const cols = entries.map((x) => x.col as string);
      const declared = parsed.get(tableName)!.uniques.find((u) => sameList(u.columns, cols));
      addConstraint(ir, { kind: 'unique', name: declared?.name ?? autoName('uq', tableName, cols), table: tableName, columns: cols, nulls_not_distinct: false });
      continue;
    }
    const created = parseCreateIndex((i.sql as string | null) ?? '');
    const columnsOf = entries.map((x, k) => (Number(x.cid) === -2 ? (created.items[k] ?? '') : (x.col as string)));
    const sorting = Object.fromEntries(entries.flatMap((x, k) => (Number(x.is_desc) === 1 ? [[columnsOf[k]!, { order: 'desc' as const, nulls: null }]] : [])));
    const index = normalizeIndex({ name, table: tableName, columns: columnsOf, unique: Number(i.is_unique) === 1, where: created.where, column_sorting: sorting });
    ir.indexes[objectKey(tableName, name)] = index;
  }
  return ir;
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x.toLowerCase() === b[i]!.toLowerCase());
}

function addConstraint(ir: SchemaIR, c: ConstraintIR): void {
  ir.constraints[objectKey(c.table, c.name)] = c;
}

const ACTIONS = new Set<ReferentialAction>(['NO ACTION', 'RESTRICT', 'CASCADE', 'SET NULL', 'SET DEFAULT']);
function action(value: unknown): ReferentialAction {
  const upper = String(value ?? '').toUpperCase();
  return ACTIONS.has(upper as ReferentialAction) ? (upper as ReferentialAction) : 'NO ACTION';
}

function column(row: Row, position: number, def: ParsedColumn | undefined): ColumnIR {
  const declared = (row.type as string | null) ?? '';
  const t = normalizeType(declared, 'sqlite');
  const pk = Number(row.pk) > 0;
  const out: ColumnIR = {
    name: row.name as string,
    position,
    ...columnType(t),
    nullable: Number(row.notnull) === 0 && !pk,
    primary_key: pk,
    ...(def?.autoincrement ? { autoincrement: true as const } : {}),
    default: sqliteDefault((row.dflt_value as string | null) ?? null, t),
    comment: def?.comment ?? null,
    sqlite_column: { native_type: t.native },
  };
  const hidden = Number(row.hidden);
  if ((hidden === 2 || hidden === 3) && def?.generated) {
    out.attrs = { generated: { kind: hidden === 3 ? 'stored' : 'virtual', expression: def.generated } };
  }
  return out;
}

/**
 * `pragma table_info.dflt_value` as the IR stores it: `'x'` → literal, `-1` → number,
 * `CURRENT_TIMESTAMP` → expression, and a lone identifier (`"dq"`, `dq`, `[dq]`) → the string
 * literal SQLite stores for it.
 */
export function sqliteDefault(raw: string | null, column: Pick<ColumnIR, 'type' | 'raw'>): DefaultIR {
  if (raw === null) return null;
  const text = raw.trim();
  if (/^null$/i.test(text)) return null;
  const quoted = readQuoted(text, false);
  if (quoted && quoted.rest.trim() === '') return literalDefault(quoted.value, column);
  if (/^[+-]?\d+(?:\.\d+)?(?:e[+-]?\d+)?$/i.test(text)) return literalDefault(text.replace(/^\+/, ''), column);
  if (/^(?:true|false)$/i.test(text) && column.type === 'boolean') return literalDefault(text, column);
  const word = identifierDefault(text);
  if (word !== undefined) return literalDefault(word, column);
  return expressionDefault(canonicalNowExpression(stripOuterParens(text)));
}

/** Words a bare DEFAULT keeps as keywords: each means a value of its own, not the word's text. */
const DEFAULT_KEYWORDS = /^(?:null|true|false|current_time|current_date|current_timestamp)$/i;

/**
 * The text SQLite stores for `DEFAULT <identifier>`: its grammar turns a lone identifier after
 * DEFAULT, quoted in any style or bare, into a string (`DEFAULT "dq"` inserts 'dq'). Kept as an
 * expression, it would be written back as `DEFAULT ("dq")`, which SQLite then reads as a column
 * reference and rejects on insert ("default value of column [a] is not constant").
 */
function identifierDefault(text: string): string | undefined {
  const read = readIdentifier(text);
  if (read === undefined || read.rest.trim() !== '') return undefined;
  return /^["`[]/.test(text) || !DEFAULT_KEYWORDS.test(read.name) ? read.name : undefined;
}

interface ParsedColumn {
  autoincrement: boolean;
  comment: string | null;
  generated: string | null;
}
interface ParsedTable {
  comment: string | null;
  columns: Map<string, ParsedColumn>;
  checks: { name: string | null; column: string | null; expression: string }[];
  uniques: { name: string | null; columns: string[] }[];
  foreignKeys: { name: string | null; columns: string[]; refTable: string; deferrable: boolean; initiallyDeferred: boolean }[];
  attrs: Record<string, unknown>;
}

const TABLE_CONSTRAINT = /^(?:CONSTRAINT|PRIMARY|UNIQUE|CHECK|FOREIGN)\b/i;

/** Read what the pragmas do not report out of a stored CREATE TABLE statement. */
export function parseCreateTable(sql: string): ParsedTable {
  const out: ParsedTable = { comment: null, columns: new Map(), checks: [], uniques: [], foreignKeys: [], attrs: {} };
  const open = sql.indexOf('(');
  const close = open < 0 ? -1 : matchingParen(sql, open);
  if (open < 0 || close < 0) return out;
  const body = sql.slice(open + 1, close);
  out.comment = markedComment(body, TABLE_COMMENT_MARK);
  const tail = sql.slice(close + 1).toUpperCase();
  if (/\bWITHOUT\s+ROWID\b/.test(tail)) out.attrs.without_rowid = true;
  if (/\bSTRICT\b/.test(tail)) out.attrs.strict = true;
  for (const item of splitTopLevel(body)) {
    const clean = stripComments(item);
    if (TABLE_CONSTRAINT.test(clean)) {
      tableConstraint(clean, out);
      continue;
    }
    const id = readIdentifier(clean);
    if (!id) continue;
    const rest = id.rest;
    out.columns.set(id.name.toLowerCase(), {
      autoincrement: findTopLevelKeyword(rest, 'AUTOINCREMENT').length > 0,
      comment: markedComment(item, COMMENT_MARK),
      generated: generatedExpression(rest),
    });
    columnConstraints(id.name, rest, out);
  }
  return out;
}

function stripComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, ' ').replace(/--[^\n]*/g, ' ').trim();
}

/** The JSON string after `mark` in a block comment, or null. */
function markedComment(text: string, mark: string): string | null {
  const at = text.indexOf(`/* ${mark}`);
  if (at < 0) return null;
  const end = text.indexOf('*/', at);
  if (end < 0) return null;
  try {
    const value = JSON.parse(text.slice(at + mark.length + 3, end).trim()) as unknown;
    return typeof value === 'string' ? value : null;
  } catch {
    return null;
  }
}

/** Text inside the parentheses after the keyword at `at` (first `(` after it). */
function parenAfter(text: string, at: number): { inner: string; end: number } | undefined {
  const open = text.indexOf('(', at);
  if (open < 0) return undefined;
  const close = matchingParen(text, open);
  if (close < 0) return undefined;
  return { inner: text.slice(open + 1, close), end: close + 1 };
}

function identifiers(list: string): string[] {
  return splitTopLevel(list).map((part) => readIdentifier(part)?.name ?? part);
}

function generatedExpression(rest: string): string | null {
  const at = findTopLevelKeyword(rest, 'AS')[0];
  if (at === undefined) return null;
  const p = parenAfter(rest, at);
  return p ? normalizeSqlText(p.inner) : null;
}

/** Constraints written after a column's type: CHECK, UNIQUE, REFERENCES (each optionally named). */
function columnConstraints(column: string, rest: string, out: ParsedTable): void {
  const named = (at: number): string | null => {
    const before = rest.slice(0, at).trimEnd();
    const m = /\bCONSTRAINT\s+("(?:[^"]|"")*"|`[^`]*`|\[[^\]]*\]|[A-Za-z_][\w$]*)$/i.exec(before);
    return m ? (readIdentifier(m[1]!)?.name ?? null) : null;
  };
  for (const at of findTopLevelKeyword(rest, 'CHECK')) {
    const p = parenAfter(rest, at);
    if (p) out.checks.push({ name: named(at), column, expression: p.inner });
  }
  for (const at of findTopLevelKeyword(rest, 'UNIQUE')) out.uniques.push({ name: named(at), columns: [column] });
  for (const at of findTopLevelKeyword(rest, 'REFERENCES')) {
    const ref = readIdentifier(rest.slice(at + 'REFERENCES'.length));
    if (!ref) continue;
    const tail = ref.rest.toUpperCase();
    out.foreignKeys.push({ name: named(at), columns: [column], refTable: ref.name, ...deferral(tail) });
  }
}

function deferral(text: string): { deferrable: boolean; initiallyDeferred: boolean } {
  const upper = text.toUpperCase();
  const deferrable = /\bDEFERRABLE\b/.test(upper) && !/\bNOT\s+DEFERRABLE\b/.test(upper);
  return { deferrable, initiallyDeferred: deferrable && /\bINITIALLY\s+DEFERRED\b/.test(upper) };
}

function tableConstraint(item: string, out: ParsedTable): void {
  let name: string | null = null;
  let text = item;
  const m = /^CONSTRAINT\s+/i.exec(text);
  if (m) {
    const id = readIdentifier(text.slice(m[0].length));
    if (!id) return;
    name = id.name;
    text = id.rest.trim();
  }
  const upper = text.toUpperCase();
  if (upper.startsWith('CHECK')) {
    const p = parenAfter(text, 0);
    if (p) out.checks.push({ name, column: null, expression: p.inner });
  } else if (upper.startsWith('UNIQUE')) {
    const p = parenAfter(text, 0);
    if (p) out.uniques.push({ name, columns: identifiers(p.inner) });
  } else if (upper.startsWith('FOREIGN')) {
    const p = parenAfter(text, 0);
    if (!p) return;
    const after = text.slice(p.end);
    const at = findTopLevelKeyword(after, 'REFERENCES')[0];
    if (at === undefined) return;
    const ref = readIdentifier(after.slice(at + 'REFERENCES'.length));
    if (!ref) return;
    out.foreignKeys.push({ name, columns: identifiers(p.inner), refTable: ref.name, ...deferral(ref.rest) });
  }
}

/** The key items (as written, ASC/DESC and COLLATE removed) and the WHERE predicate of a CREATE INDEX. */
export function parseCreateIndex(sql: string): { items: string[]; where: string | null } {
  const on = findTopLevelKeyword(sql, 'ON')[0];
  if (on === undefined) return { items: [], where: null };
  const p = parenAfter(sql, on);
  if (!p) return { items: [], where: null };
  const items = splitTopLevel(p.inner).map((item) =>
    normalizeSqlText(stripOuterParens(stripComments(item).replace(/\s+(?:ASC|DESC)\s*$/i, '').replace(/\s+COLLATE\s+("(?:[^"]|"")*"|[A-Za-z_]\w*)\s*$/i, ''))),
  );
  const tail = sql.slice(p.end);
  const where = findTopLevelKeyword(tail, 'WHERE')[0];
  return { items, where: where === undefined ? null : normalizeSqlText(stripComments(tail.slice(where + 5))) };
}
