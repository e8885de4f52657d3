import { MtoolError } from '../../errors.js';
import {
  normalizeIndex,
  normalizeSqlText,
  objectKey,
  qualifiedKey,
  type ColumnIR,
  type ColumnSortIR,
  type ConstraintIR,
  type DefaultIR,
  type ReferentialAction,
  type SchemaIR,
  type TableIR,
} from '../../schema/ir.js';
import { canonicalNowExpression, expressionDefault, literalDefault, readQuoted, stripOuterParens } from '../../schema/normalize-default.js';
import { getEntry, setEntry } from '../../schema/name-map.js';
import { columnType, normalizeType } from '../../schema/normalize-type.js';
import { isExcluded, type IntrospectOptions } from '../../schema/schema-io.js';
import type { Connection, Row } from '../types.js';
import { postgresQuoting as q } from './quoting.js';

/**
 * Read a PostgreSQL database into the schema IR with six catalog queries over `pg_catalog`
 * (session, tables, columns, constraints, indexes, enums),
 * whatever the number of tables: a 500-table schema reads in well under a second.
 *
 * - Tables of `options.schemas` (default: every schema but the system ones); tables of the
 *   default schema (`options.schema`, else `current_schema()`) are keyed by bare name, others
 *   `schema.table`. Partitions, extension-owned objects and `options.exclude` are left out.
 * - Columns: `format_type` text normalized with `normalizeType`; identity and `serial`
 *   (`nextval(...)` default) become `autoincrement`; defaults lose their casts
 *   (`'x'::text` → literal `x`, `'-1'::integer` → -1) and `now()`/`CURRENT_TIMESTAMP` stay expressions.
 * - Indexes backing primary keys, unique and exclusion constraints appear as those constraints,
 *   not as indexes. `concurrently` is a way of building, not stored: always false.
 * - `options.tables`: only those tables and their inheritance children (by oid, none when no
 *   table matched); enum types are read in full either way.
 * @example const ir = await introspectPostgres(conn, { exclude: ['_mtool_migrations', 'mtool_lock'] });
 */
export async function introspectPostgres(conn: Connection, options: IntrospectOptions = {}): Promise<SchemaIR> {
  const where = (what: string) => `postgresql (${conn.databaseName}): reading ${what}`;
  const runAll = async (what: string, sql: string): Promise<Row[]> => {
    try {
      return (await conn.query(sql)).rows;
    } catch (e) {
      throw new MtoolError(e instanceof MtoolError ? e.code : 'MTOOL_DATABASE', `${where(what)}: ${(e as Error).message}`, { cause: e, database: conn.databaseName });
    }
  };
  // JIT off while reading: these catalog queries run in milliseconds, but a long oid list lifts
  // their estimated cost past jit_above_cost and compiling them took half a second (300 tables).
  const [session] = await runAll(
    'the session',
    `SELECT current_schema() AS current, current_setting('server_version_num')::int AS version, current_setting('jit', true) AS jit,
        CASE WHEN current_setting('jit', true) IS NOT NULL THEN set_config('jit', 'off', false) END AS jit_now`,
  );
  const jit = session?.jit as string | null | undefined;
  try {
    return await readCatalog(options, session, runAll);
  } finally {
    if (jit !== null && jit !== undefined && jit !== 'off') await runAll('the session', `SELECT set_config('jit', ${q.literal(jit)}, false)`);
  }
}

/** The catalog queries of {@link introspectPostgres} and the IR built from their rows. */
async function readCatalog(options: IntrospectOptions, session: Row | undefined, runAll: (what: string, sql: string) => Promise<Row[]>): Promise<SchemaIR> {
  const defaultSchema = options.schema ?? (session?.current as string | null) ?? 'public';
  const version = Number(session?.version ?? 0);
  const ns = namespaceFilter(options.schemas);
  // With the catalog of the object: pg_depend's index on depending objects leads with it, and
  // without it each probe read the whole index (0.19 ms a table: a partial read of 128 tables
  // took 29 ms instead of 6 on the project's 2-CPU machines). An oid is unique within its own
  // catalog only, so the catalog also keeps another kind of extension member from matching.
  const notExtension = (oid: string, catalog: 'pg_class' | 'pg_type') =>
    `NOT EXISTS (SELECT 1 FROM pg_catalog.pg_depend dep WHERE dep.classid = 'pg_catalog.${catalog}'::regclass AND dep.objid = ${oid} AND dep.deptype = 'e')`;
  const relation = `c.relkind IN ('r', 'p') AND NOT c.relispartition AND ${ns} AND ${notExtension('c.oid', 'pg_class')}`;
  const from = `pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace`;

  const tablesSql = (tableFilter: string) => `SELECT c.oid::text AS oid, n.nspname AS schema, c.relname AS name, d.description AS comment
      FROM ${from} LEFT JOIN pg_catalog.pg_description d ON d.objoid = c.oid AND d.classoid = 'pg_catalog.pg_class'::regclass AND d.objsubid = 0
      WHERE ${tableFilter}`;
  const columnsSql = (tableFilter: string) => `SELECT a.attrelid::text AS rel, a.attname AS name, pg_catalog.format_type(a.atttypid, a.atttypmod) AS type,
        a.attnotnull AS notnull, a.attidentity AS identity, a.attgenerated AS generated,
        pg_catalog.pg_get_expr(ad.adbin, ad.adrelid) AS default, d.description AS comment,
        CASE WHEN a.attcollation <> t.typcollation THEN co.collname END AS collation,
        CASE WHEN t.typtype = 'e' THEN tn.nspname END AS enum_schema, CASE WHEN t.typtype = 'e' THEN t.typname END AS enum_name
      FROM ${from}
        JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid
        JOIN pg_catalog.pg_type t ON t.oid = a.atttypid
        JOIN pg_catalog.pg_namespace tn ON tn.oid = t.typnamespace
        LEFT JOIN pg_catalog.pg_attrdef ad ON ad.adrelid = a.attrelid AND ad.adnum = a.attnum
        LEFT JOIN pg_catalog.pg_collation co ON co.oid = a.attcollation
        LEFT JOIN pg_catalog.pg_description d ON d.objoid = c.oid AND d.classoid = 'pg_catalog.pg_class'::regclass AND d.objsubid = a.attnum
      WHERE a.attnum > 0 AND NOT a.attisdropped AND ${tableFilter}
      ORDER BY a.attrelid, a.attnum`;
  // The definition is deparsed only where it is read (CHECK, EXCLUDE): pg_get_constraintdef took
  // about half of this query over 1000 primary keys.
  const constraintsSql = (tableFilter: string) => `SELECT co.conrelid::text AS rel, co.conname AS name, co.contype AS type,
        ARRAY(SELECT a.attname::text FROM unnest(co.conkey) WITH ORDINALITY k(num, ord) JOIN pg_catalog.pg_attribute a ON a.attrelid = co.conrelid AND a.attnum = k.num ORDER BY k.ord) AS columns,
        rn.nspname AS ref_schema, rc.relname AS ref_name,
        ARRAY(SELECT a.attname::text FROM unnest(co.confkey) WITH ORDINALITY k(num, ord) JOIN pg_catalog.pg_attribute a ON a.attrelid = co.confrelid AND a.attnum = k.num ORDER BY k.ord) AS ref_columns,
        co.confupdtype AS on_update, co.confdeltype AS on_delete, co.condeferrable AS deferrable, co.condeferred AS deferred,
        CASE WHEN co.contype IN ('c', 'x') THEN pg_catalog.pg_get_constraintdef(co.oid, true) END AS definition,
        ${version >= 150000 ? 'ix.indnullsnotdistinct' : 'false'} AS nulls_not_distinct
      FROM ${from}
        JOIN pg_catalog.pg_constraint co ON co.conrelid = c.oid
        LEFT JOIN pg_catalog.pg_class rc ON rc.oid = co.confrelid
        LEFT JOIN pg_catalog.pg_namespace rn ON rn.oid = rc.relnamespace
        LEFT JOIN pg_catalog.pg_index ix ON ix.indexrelid = co.conindid AND co.contype = 'u'
      WHERE co.contype IN ('p', 'u', 'f', 'c', 'x') AND ${tableFilter}
      ORDER BY co.conrelid, co.conname`;
  const indexesSql = (tableFilter: string) => `SELECT i.indrelid::text AS rel, ic.relname AS name, i.indisunique AS unique, i.indnkeyatts AS nkey,
        am.amname AS method, pg_catalog.pg_get_expr(i.indpred, i.indrelid, true) AS predicate, i.indoption::int2[] AS options,
        ic.reloptions AS params, ts.spcname AS tablespace, ${version >= 150000 ? 'i.indnullsnotdistinct' : 'false'} AS nulls_not_distinct,
        ARRAY(SELECT CASE WHEN i.indkey[k - 1] = 0 THEN pg_catalog.pg_get_indexdef(i.indexrelid, k, true)
                     ELSE (SELECT a.attname::text FROM pg_catalog.pg_attribute a WHERE a.attrelid = i.indrelid AND a.attnum = i.indkey[k - 1]) END
              FROM generate_series(1, i.indnatts) k ORDER BY k) AS columns
      FROM ${from}
        JOIN pg_catalog.pg_index i ON i.indrelid = c.oid
        JOIN pg_catalog.pg_class ic ON ic.oid = i.indexrelid
        JOIN pg_catalog.pg_am am ON am.oid = ic.relam
        LEFT JOIN pg_catalog.pg_tablespace ts ON ts.oid = ic.reltablespace
      WHERE ${tableFilter}
        AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_constraint co WHERE co.conindid = i.indexrelid AND co.conrelid = i.indrelid AND co.contype IN ('p', 'u', 'x'))
      ORDER BY i.indrelid, ic.relname`;
  const enumsSql = `SELECT n.nspname AS schema, t.typname AS name, array_agg(e.enumlabel::text ORDER BY e.enumsortorder) AS labels
      FROM pg_catalog.pg_type t JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace JOIN pg_catalog.pg_enum e ON e.enumtypid = t.oid
      WHERE ${ns} AND ${notExtension('t.oid', 'pg_type')}
      GROUP BY n.nspname, t.typname`;

  let tables: Row[];
  let columns: Row[];
  let constraints: Row[];
  let indexes: Row[];
  let enums: Row[];
  if (!options.tables) {
    // One after another: a Connection takes one statement at a time (see Connection).
    tables = await runAll('tables', tablesSql(relation));
    columns = await runAll('columns', columnsSql(relation));
    constraints = await runAll('constraints', constraintsSql(relation));
    indexes = await runAll('indexes', indexesSql(relation));
    enums = await runAll('enum types', enumsSql);
  } else if (options.tables.length === 0) {
    [tables, columns, constraints, indexes, enums] = [[], [], [], [], await runAll('enum types', enumsSql)];
  } else {
    tables = await runAll('tables', tablesSql(`${relation} AND c.oid IN (${pickedTables(options.tables, defaultSchema)})`));
    // The other queries read the tables found by oid alone (they passed `relation` already): a
    // short filter plans faster, and planning is most of these small queries' time. (One statement
    // returning every query's rows as JSON was tried: it plans slower than the four together.)
    const picked = `c.oid IN (${tables.map((t) => `${q.literal(t.oid as string)}::oid`).join(', ')})`;
    const some = async (what: string, sql: string) => (tables.length === 0 ? [] : runAll(what, sql));
    columns = await some('columns', columnsSql(picked));
    constraints = await some('constraints', constraintsSql(picked));
    indexes = await some('indexes', indexesSql(picked));
    enums = await runAll('enum types', enumsSql);
  }

  const ir: SchemaIR = { tables: {}, enums: {}, indexes: {}, constraints: {} };
  const key = (name: string, schema: string) => qualifiedKey(name, schema, defaultSchema);

  for (const e of enums) {
    const schema = e.schema as string;
    const name = e.name as string;
    setEntry(ir.enums, key(name, schema), { name, ...(schema !== defaultSchema ? { schema } : {}), values: e.labels as string[] });
  }

  const byOid = new Map<string, { table: TableIR; key: string }>();
  for (const t of tables) {
    const name = t.name as string;
    const schema = t.schema as string;
    const tableKey = key(name, schema);
    if (isExcluded(name, tableKey, options)) continue;
    const table: TableIR = {
      name,
      ...(schema !== defaultSchema ? { schema } : {}),
      object_type: 'table',
      columns: {},
      primary_key: [],
      comment: (t.comment as string | null) ?? null,
      backend_table_spec: { backend: 'postgresql' },
    };
    setEntry(ir.tables, tableKey, table);
    byOid.set(t.oid as string, { table, key: tableKey });
  }

  for (const c of columns) {
    const table = byOid.get(c.rel as string)?.table;
    if (table) setEntry(table.columns, c.name as string, column(c, Object.keys(table.columns).length, key));
  }

  for (const c of constraints) {
    const found = byOid.get(c.rel as string);
    if (found) addConstraint(ir, found.table, found.key, c, key);
  }

  for (const i of indexes) {
    const table = byOid.get(i.rel as string);
    if (!table) continue;
    const cols = i.columns as string[];
    const nkey = Number(i.nkey);
    const opts = (i.options as number[] | null) ?? [];
    const sorting: Record<string, ColumnSortIR> = {};
    cols.slice(0, nkey).forEach((col, k) => {
      const bits = Number(opts[k] ?? 0);
      // pg_index.indoption: bit 1 = DESC, bit 2 = NULLS FIRST.
      const order = bits & 1 ? 'desc' : 'asc';
      setEntry(sorting, col, { order, nulls: bits & 2 ? 'first' : 'last' });
    });
    const index = normalizeIndex({
      name: i.name as string,
      table: table.key,
      columns: cols.slice(0, nkey),
      unique: i.unique === true,
      using: i.method as string,
      where: (i.predicate as string | null) ?? null,
      include: cols.slice(nkey),
      with_params: params(i.params as string[] | null),
      tablespace: (i.tablespace as string | null) ?? null,
      nulls_not_distinct: i.nulls_not_distinct === true,
      column_sorting: sorting,
    });
    ir.indexes[objectKey(table.key, index.name)] = index;
  }
  return ir;
}

/**
 * A subquery of the oids of the tables keyed as `keys` (keys relative to `defaultSchema`, as the
 * IR keys them) and, recursively, of the tables inheriting from them: ALTER TABLE on a parent
 * changes its children too (partitions are left out of the IR anyway).
 */
function pickedTables(keys: readonly string[], defaultSchema: string): string {
  const list = keys.map((k) => q.literal(k)).join(', ');
  // The table name of each key, whichever dot ends its schema: lets the catalog's name index pick the rows.
  const relnames = new Set(keys.flatMap((k) => k.split('.').map((_, i, parts) => parts.slice(i).join('.'))));
  return `WITH RECURSIVE picked(oid) AS (
      SELECT pc.oid FROM pg_catalog.pg_class pc JOIN pg_catalog.pg_namespace pn ON pn.oid = pc.relnamespace
      WHERE pc.relname IN (${[...relnames].map((r) => q.literal(r)).join(', ')}) AND pc.relkind IN ('r', 'p') AND (CASE WHEN pn.nspname = ${q.literal(defaultSchema)} THEN pc.relname::text ELSE pn.nspname || '.' || pc.relname END) IN (${list})
      UNION SELECT i.inhrelid FROM pg_catalog.pg_inherits i JOIN picked p ON i.inhparent = p.oid)
    SELECT oid FROM picked`;
}

function namespaceFilter(schemas: readonly string[] | undefined): string {
  if (schemas && schemas.length > 0) return `n.nspname IN (${schemas.map((s) => q.literal(s)).join(', ')})`;
  return `n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_toast%' AND n.nspname NOT LIKE 'pg\\_temp\\_%'`;
}

function column(row: Row, position: number, key: (name: string, schema: string) => string): ColumnIR {
  const enumKey = row.enum_name ? key(row.enum_name as string, row.enum_schema as string) : undefined;
  const t = normalizeType(enumKey ?? (row.type as string), 'postgresql', { enums: enumKey ? [enumKey] : [] });
  const identity = row.identity === 'a' ? 'always' : row.identity === 'd' ? 'by_default' : null;
  const out: ColumnIR = {
    name: row.name as string,
    position,
    ...columnType(t, enumKey),
    nullable: row.notnull !== true,
    primary_key: false,
    default: null,
    comment: (row.comment as string | null) ?? null,
    pg_column: { native_type: t.native, identity, collation: (row.collation as string | null) ?? null },
  };
  const raw = row.default as string | null;
  if (row.generated === 's' && raw !== null) {
    out.attrs = { generated: { kind: 'stored', expression: normalizeSqlText(stripOuterParens(raw)) } };
  } else if (identity) {
    out.autoincrement = true;
  } else if (raw !== null && /^nextval\(/i.test(raw.trim())) {
    out.autoincrement = true;
  } else {
    out.default = postgresDefault(raw, out);
  }
  return out;
}

/** Casts PostgreSQL appends to a literal default: `::text`, `::character varying`, `::"char"`, `::numeric(10,2)`, `::text[]`, `::app.status`. */
const CASTS = /^(?:::(?:"(?:[^"]|"")*"|[A-Za-z_][\w$]*)(?:\.(?:"(?:[^"]|"")*"|[A-Za-z_][\w$]*))?(?: [a-z ]+)?(?:\(\d+(?:,\s*\d+)?\))?(?: with(?:out)? time zone)?(?:\[\])*)+$/;

/**
 * A `pg_get_expr` default as the IR stores it: `'x'::text` → literal `x`, `42` / `'-1'::integer`
 * → numbers, `true` → boolean, `NULL::text` → no default, anything else an expression with
 * `now()`-style words kept as written (`CURRENT_TIMESTAMP` stays `CURRENT_TIMESTAMP`).
 */
export function postgresDefault(raw: string | null, column: Pick<ColumnIR, 'type' | 'raw'>): DefaultIR {
  if (raw === null) return null;
  const text = raw.trim();
  if (/^null(?:::.*)?$/i.test(text)) return null;
  const quoted = readQuoted(text, false);
  if (quoted && (quoted.rest === '' || CASTS.test(quoted.rest))) return literalDefault(quoted.value, column);
  const unparen = stripOuterParens(text);
  if (/^-?\d+(?:\.\d+)?(?:e[+-]?\d+)?$/i.test(unparen)) return literalDefault(unparen, column);
  if (/^(?:true|false)$/i.test(text)) return column.type === 'boolean' ? literalDefault(text, column) : expressionDefault(text);
  return expressionDefault(canonicalNowExpression(text));
}

const ACTION: Record<string, ReferentialAction> = { a: 'NO ACTION', r: 'RESTRICT', c: 'CASCADE', n: 'SET NULL', d: 'SET DEFAULT' };

function addConstraint(ir: SchemaIR, table: TableIR, tableKey: string, row: Row, key: (name: string, schema: string) => string): void {
  const name = row.name as string;
  const columns = row.columns as string[];
  let constraint: ConstraintIR;
  switch (row.type) {
    case 'p':
      table.primary_key = columns;
      for (const c of columns) {
        const col = getEntry(table.columns, c);
        if (col) col.primary_key = true;
      }
      return;
    case 'u':
      constraint = { kind: 'unique', name, table: tableKey, columns, nulls_not_distinct: row.nulls_not_distinct === true };
      break;
    case 'c':
      constraint = { kind: 'check', name, table: tableKey, expression: checkExpression(row.definition as string) };
      break;
    case 'f':
      constraint = {
        kind: 'foreign_key',
        name,
        table: tableKey,
        columns,
        ref_table: key(row.ref_name as string, row.ref_schema as string),
        ref_columns: row.ref_columns as string[],
        on_delete: ACTION[row.on_delete as string] ?? 'NO ACTION',
        on_update: ACTION[row.on_update as string] ?? 'NO ACTION',
        deferrable: row.deferrable === true,
        initially_deferred: row.deferred === true,
      };
      break;
    case 'x': {
      // The IR has no exclusion-constraint kind: keep its definition on the table so it renders back.
      const list = ((table.attrs ??= {}).exclusion_constraints ??= []) as { name: string; definition: string }[];
      list.push({ name, definition: normalizeSqlText(row.definition as string) });
      return;
    }
    default:
      return;
  }
  ir.constraints[objectKey(tableKey, name)] = constraint;
}

/** `CHECK ((price > 0))` → `price > 0`; `NOT VALID` is dropped (it describes existing rows, not the rule). */
function checkExpression(definition: string): string {
  const body = definition.replace(/\s+NOT VALID\s*$/i, '').replace(/^CHECK\s*/i, '').replace(/\s+NO INHERIT\s*$/i, '');
  return normalizeSqlText(stripOuterParens(body));
}

/** `{fillfactor=70,deduplicate_items=off}` → `{ fillfactor: '70', deduplicate_items: 'off' }`. */
function params(reloptions: string[] | null): Record<string, string> {
  const out: Record<string, string> = {};
  for (const option of reloptions ?? []) {
    const eq = option.indexOf('=');
    if (eq > 0) setEntry(out, option.slice(0, eq), option.slice(eq + 1));
  }
  return out;
}
