import { MtoolError } from '../../errors.js';
import { normalizeIndex, normalizeSqlText, objectKey, type ColumnIR, type ColumnSortIR, type ReferentialAction, type SchemaIR, type TableIR } from '../../schema/ir.js';
import { getEntry, setEntry } from '../../schema/name-map.js';
import { columnType, normalizeType } from '../../schema/normalize-type.js';
import { isExcluded, type IntrospectOptions } from '../../schema/schema-io.js';
import type { Connection, Row } from '../types.js';
import { mysqlQuoting as q } from './quoting.js';
import { schemaFlavourOf, type MysqlSchemaFlavour } from './schema-flavour.js';

/** What a connection's server never changes: its version (the schema flavour) and which optional information_schema columns it has. */
interface ServerFacts {
  version: string;
  features: Set<string>;
}

type Read = { what: string; sql: string };
type Run = (what: string, sql: string) => Promise<Row[]>;

/**
 * {@link ServerFacts}, asked once per connection: a deferred snapshot's follower introspects its
 * connection dozens of times in a batch.
 */
const factsByConnection = new WeakMap<Connection, Promise<ServerFacts>>();

function serverFacts(conn: Connection, run: Run): Promise<ServerFacts> {
  let facts = factsByConnection.get(conn);
  if (facts === undefined) {
    facts = readAll(conn, run, [
      { what: 'the server version', sql: 'SELECT VERSION() AS version' },
      {
        what: 'server features',
        sql: `SELECT CONCAT(TABLE_NAME, '.', COLUMN_NAME) AS f FROM information_schema.COLUMNS
    WHERE TABLE_SCHEMA = 'information_schema' AND ((TABLE_NAME = 'STATISTICS' AND COLUMN_NAME = 'EXPRESSION') OR (TABLE_NAME = 'CHECK_CONSTRAINTS' AND COLUMN_NAME = 'CHECK_CLAUSE'))`,
      },
    ]).then(([version, features]) => ({ version: String(version![0]?.version ?? ''), features: new Set(features!.map((r) => String(r.f).toUpperCase())) }));
    factsByConnection.set(conn, facts);
    // A failed read is not kept: the next introspection asks again.
    facts.catch(() => factsByConnection.delete(conn));
  }
  return facts;
}

/** Connections whose message of reads failed: they read one by one from then on (a proxy that refuses multi-statements fails each time). */
const readsApart = new WeakSet<Connection>();

/**
 * The rows of each read, in one message where the connection takes several statements at once
 * ({@link Connection.queryMany}): one round trip instead of one per read, which the server and
 * the client each pay for in wake-ups (a follower's read of 30 tables asks six). When that
 * message fails, the reads run one by one, so that the error names the read that failed, and
 * so do that connection's later reads.
 */
async function readAll(conn: Connection, run: Run, reads: readonly Read[]): Promise<Row[][]> {
  if (reads.length > 1 && conn.queryMany && !readsApart.has(conn)) {
    try {
      return await conn.queryMany(reads.map((r) => r.sql));
    } catch {
      // Below, one by one: the failing read names itself.
      readsApart.add(conn);
    }
  }
  const rows: Row[][] = [];
  for (const read of reads) rows.push(await run(read.what, read.sql));
  return rows;
}

/**
 * Read a MySQL or MariaDB database (the connection's, or `options.schema`) into the schema IR
 * with one `information_schema` query per kind of object: tables, columns, index parts, foreign
 * keys with their column lists, check constraints. Server differences (MariaDB quotes literal
 * defaults and says `current_timestamp()`, MySQL does not) are in `schema-flavour.ts`, chosen by
 * what the server reports, not by the configured type.
 *
 * - `COLUMN_TYPE` gives the type with `unsigned`, display widths removed (except `tinyint(1)`,
 *   boolean); `enum(...)` lists become `enum_values`.
 * - A column collation equal to its table's is left out (`collation: null`).
 * - Indexes MySQL creates by itself for a foreign key (named after it, on its columns) are left
 *   out: rendering the foreign key creates them again. Prefix lengths (`name(10)`) go to
 *   `attrs.prefix_lengths`; a spatial index has none, whatever SUB_PART says.
 * - InnoDB treats RESTRICT and NO ACTION alike and MariaDB reports an unspecified action as
 *   RESTRICT, so both read as `NO ACTION`.
 * - MariaDB's JSON is `longtext` plus a column-level `json_valid` check: the pair reads as `json`
 *   (what MySQL reports and what `compileModels` writes for both types), and the check is not
 *   listed as a constraint, since rendering `json` creates it again.
 * - `options.tables`: every query reads only those tables (none when no table matched).
 */
export async function introspectMysql(conn: Connection, options: IntrospectOptions = {}): Promise<SchemaIR> {
  const run: Run = async (what, sql) => {
    try {
      return (await conn.query(sql)).rows;
    } catch (e) {
      throw new MtoolError(e instanceof MtoolError ? e.code : 'MTOOL_DATABASE', `${conn.type} (${conn.databaseName}): reading ${what}: ${(e as Error).message}`, { cause: e, database: conn.databaseName });
    }
  };
  const facts = await serverFacts(conn, run);
  const flavour: MysqlSchemaFlavour = schemaFlavourOf(facts.version);
  const has = facts.features;
  // The schema as SQL: DATABASE() unless one is named, so the reads need not wait for the session's answer.
  const db = options.schema === undefined ? 'DATABASE()' : q.literal(options.schema);

  // Asked for some tables: every query reads only those (information_schema then opens only their definitions).
  const only = (column: string) => (options.tables ? ` AND ${column} IN (${options.tables.length > 0 ? options.tables.map((t) => q.literal(t)).join(', ') : 'NULL'})` : '');
  const none = options.tables?.length === 0;
  // Foreign keys first. MariaDB opens every table it is asked about to answer KEY_COLUMN_USAGE,
  // and the tables it opened (its table cache holds 2000) then answer the queries below, which
  // otherwise read each table's definition again through a cache of 400: about 10 ms less over
  // 1000 freshly created tables (98 against 108 ms, median of nine alternating runs each). Two
  // queries joined further down: MariaDB's information_schema join of these views reads every
  // table's constraints whatever the filter (it grew with the schema: 7 ms at 400 tables per
  // partial snapshot), while each view filtered on its own stays constant.
  const reads: Read[] = [{ what: 'the session', sql: 'SELECT DATABASE() AS db' }];
  if (!none) {
    reads.push(
      {
        what: 'foreign keys',
        sql: `SELECT k.TABLE_NAME AS tbl, k.CONSTRAINT_NAME AS name, k.COLUMN_NAME AS col, k.REFERENCED_TABLE_SCHEMA AS ref_schema,
      k.REFERENCED_TABLE_NAME AS ref_table, k.REFERENCED_COLUMN_NAME AS ref_col
    FROM information_schema.KEY_COLUMN_USAGE k
    WHERE k.TABLE_SCHEMA = ${db} AND k.REFERENCED_TABLE_NAME IS NOT NULL${only('k.TABLE_NAME')}
    ORDER BY k.TABLE_NAME, k.CONSTRAINT_NAME, k.ORDINAL_POSITION`,
      },
      {
        what: 'tables',
        sql: `SELECT TABLE_NAME AS name, TABLE_COMMENT AS comment, TABLE_COLLATION AS collation FROM information_schema.TABLES
    WHERE TABLE_SCHEMA = ${db} AND TABLE_TYPE = 'BASE TABLE'${only('TABLE_NAME')} ORDER BY TABLE_NAME`,
      },
      {
        what: 'columns',
        sql: `SELECT TABLE_NAME AS tbl, COLUMN_NAME AS name, COLUMN_TYPE AS type, IS_NULLABLE AS nullable, COLUMN_DEFAULT AS dflt,
      EXTRA AS extra, COLLATION_NAME AS collation, COLUMN_COMMENT AS comment, GENERATION_EXPRESSION AS generated
    FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ${db}${only('TABLE_NAME')} ORDER BY TABLE_NAME, ORDINAL_POSITION`,
      },
      {
        what: 'indexes',
        sql: `SELECT TABLE_NAME AS tbl, INDEX_NAME AS name, NON_UNIQUE AS non_unique, COLUMN_NAME AS col, SUB_PART AS sub_part,
      COLLATION AS collation, INDEX_TYPE AS type${has.has('STATISTICS.EXPRESSION') ? ', EXPRESSION AS expr' : ', NULL AS expr'}
    FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = ${db}${only('TABLE_NAME')} ORDER BY TABLE_NAME, INDEX_NAME, SEQ_IN_INDEX`,
      },
    );
    if (has.has('CHECK_CONSTRAINTS.CHECK_CLAUSE')) {
      reads.push({ what: 'check constraints', sql: options.tables ? `SELECT * FROM (${flavour.checkQuery(db)}) chk WHERE 1 = 1${only('chk.table_name')}` : flavour.checkQuery(db) });
    }
  }
  // Rows of a table the tables query did not list (a view's columns, one dropped meanwhile) find no table below and are left out.
  const [session, fkParts = [], tables = [], columns = [], stats = [], checks = []] = await readAll(conn, run, reads);
  const database = options.schema ?? (session![0]?.db as string | null | undefined);
  if (!database) {
    throw new MtoolError('MTOOL_USAGE', `${conn.type} (${conn.databaseName}): no database selected to introspect; put the database name in the URL path (mysql://host/<database>)`, { database: conn.databaseName });
  }
  const fkRules =
    fkParts.length === 0
      ? []
      : await run('foreign key rules', `SELECT r.TABLE_NAME AS tbl, r.CONSTRAINT_NAME AS name, r.UPDATE_RULE AS on_update, r.DELETE_RULE AS on_delete
    FROM information_schema.REFERENTIAL_CONSTRAINTS r WHERE r.CONSTRAINT_SCHEMA = ${q.literal(database)}${only('r.TABLE_NAME')}`);
  const rules = new Map(fkRules.map((r) => [`${String(r.tbl)}\u0000${String(r.name)}`, r]));
  const fkColumns = fkParts.flatMap((k) => {
    const rule = rules.get(`${String(k.tbl)}\u0000${String(k.name)}`);
    return rule ? [{ ...k, on_update: rule.on_update, on_delete: rule.on_delete }] : [];
  });
  const ir: SchemaIR = { tables: {}, enums: {}, indexes: {}, constraints: {} };
  const collations = new Map<string, string | null>();
  for (const t of tables) {
    const name = t.name as string;
    if (isExcluded(name, name, options)) continue;
    collations.set(name, (t.collation as string | null) ?? null);
    setEntry(ir.tables, name, {
      name,
      object_type: 'table',
      columns: {},
      primary_key: [],
      comment: nonEmpty(t.comment),
      backend_table_spec: { backend: conn.type as 'mysql' | 'mariadb' },
    });
  }

  for (const c of columns) {
    const table = getEntry(ir.tables, c.tbl as string);
    if (table) setEntry(table.columns, c.name as string, column(c, Object.keys(table.columns).length, collations.get(table.name) ?? null, flavour));
  }

  const jsonColumns = new Set<string>();
  for (const c of checks) {
    if (c.level === 'Column' && JSON_VALID.test(String(c.clause).trim())) jsonColumns.add(`${c.table_name as string}\0${c.name as string}`);
  }
  // MariaDB's JSON is longtext plus a json_valid check; read it as the `json` it was declared as.
  if (flavour.product === 'mariadb') {
    for (const key of jsonColumns) {
      const [tableName, columnName] = key.split('\0') as [string, string];
      const table = getEntry(ir.tables, tableName);
      const col = table && getEntry(table.columns, columnName);
      if (col && col.my_column?.native_type === 'longtext') {
        const t = normalizeType('json', 'mysql');
        col.type = t.type;
        col.raw = true;
        col.my_column.native_type = t.native;
        col.my_column.collation = null;
      }
    }
  }

  // Foreign keys first: their names tell which indexes the server made for them.
  const fkIndexes = new Map<string, string[]>();
  for (const rows of groups(fkColumns, (r) => `${r.tbl as string}\0${r.name as string}`)) {
    const first = rows[0]!;
    const table = getEntry(ir.tables, first.tbl as string);
    if (!table) continue;
    const refTable = first.ref_schema === database ? (first.ref_table as string) : `${first.ref_schema as string}.${first.ref_table as string}`;
    const name = first.name as string;
    const cols = rows.map((r) => r.col as string);
    ir.constraints[objectKey(table.name, name)] = {
      kind: 'foreign_key',
      name,
      table: table.name,
      columns: cols,
      ref_table: refTable,
      ref_columns: rows.map((r) => r.ref_col as string),
      on_delete: action(first.on_delete),
      on_update: action(first.on_update),
      deferrable: false,
      initially_deferred: false,
    };
    fkIndexes.set(objectKey(table.name, name), cols);
  }

  for (const rows of groups(stats, (r) => `${r.tbl as string}\0${r.name as string}`)) {
    const first = rows[0]!;
    const table = getEntry(ir.tables, first.tbl as string);
    if (!table) continue;
    const name = first.name as string;
    if (name === 'PRIMARY') {
      table.primary_key = rows.map((r) => r.col as string);
      for (const c of table.primary_key) {
        const col = getEntry(table.columns, c);
        if (col) col.primary_key = true;
      }
      continue;
    }
    const cols = rows.map((r) => (r.col as string | null) ?? normalizeSqlText(String(r.expr ?? '')));
    const fkCols = fkIndexes.get(objectKey(table.name, name));
    if (fkCols && cols.length === fkCols.length && cols.every((c, i) => c === fkCols[i])) continue;
    addIndex(ir, table, name, rows, cols);
  }

  for (const c of checks) {
    const table = getEntry(ir.tables, c.table_name as string);
    if (!table) continue;
    const name = c.name as string;
    const clause = String(c.clause);
    if (c.level === 'Column' && JSON_VALID.test(clause.trim())) continue;
    ir.constraints[objectKey(table.name, name)] = { kind: 'check', name, table: table.name, expression: checkExpression(clause) };
  }
  return ir;
}

const JSON_VALID = /^json_valid\(`?[^`]*`?\)$/i;

function groups(rows: Row[], keyOf: (r: Row) => string): Row[][] {
  const map = new Map<string, Row[]>();
  for (const r of rows) {
    const k = keyOf(r);
    (map.get(k) ?? map.set(k, []).get(k)!).push(r);
  }
  return [...map.values()];
}

function nonEmpty(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

function action(value: unknown): ReferentialAction {
  const upper = String(value ?? '').toUpperCase();
  if (upper === 'CASCADE' || upper === 'SET NULL' || upper === 'SET DEFAULT') return upper;
  return 'NO ACTION';
}

function column(row: Row, position: number, tableCollation: string | null, flavour: MysqlSchemaFlavour): ColumnIR {
  const t = normalizeType(row.type as string, 'mysql');
  const extra = String(row.extra ?? '');
  const collation = (row.collation as string | null) ?? null;
  const out: ColumnIR = {
    name: row.name as string,
    position,
    ...columnType(t),
    nullable: row.nullable === 'YES',
    primary_key: false,
    ...(/\bauto_increment\b/i.test(extra) ? { autoincrement: true as const } : {}),
    default: null,
    comment: nonEmpty(row.comment),
    my_column: { native_type: t.native, unsigned: t.unsigned === true, collation: collation !== null && collation !== tableCollation ? collation : null },
  };
  const attrs: Record<string, unknown> = {};
  const generated = /\b(VIRTUAL|STORED|PERSISTENT) GENERATED\b/i.exec(extra);
  if (generated && row.generated) {
    attrs.generated = { kind: generated[1]!.toUpperCase() === 'VIRTUAL' ? 'virtual' : 'stored', expression: normalizeSqlText(String(row.generated)) };
  } else {
    out.default = flavour.columnDefault((row.dflt as string | null) ?? null, extra, t);
  }
  const onUpdate = /\bon update (\S+)/i.exec(extra);
  if (onUpdate) attrs.on_update = canonicalOnUpdate(onUpdate[1]!);
  if (Object.keys(attrs).length > 0) out.attrs = attrs;
  return out;
}

function canonicalOnUpdate(text: string): string {
  const m = /^current_timestamp(?:\((\d*)\))?$/i.exec(text);
  return m ? (m[1] ? `CURRENT_TIMESTAMP(${m[1]})` : 'CURRENT_TIMESTAMP') : text;
}

function addIndex(ir: SchemaIR, table: TableIR, name: string, rows: Row[], cols: string[]): void {
  const sorting: Record<string, ColumnSortIR> = {};
  const prefixes: Record<string, number> = {};
  const type = String(rows[0]!.type ?? 'BTREE').toLowerCase();
  // MariaDB reports SUB_PART 32 for a spatial index's column, a length no statement may write
  // back (ERROR 1089): it is no prefix of the schema's.
  const prefixed = type !== 'spatial';
  rows.forEach((r, i) => {
    if (r.collation === 'D') setEntry(sorting, cols[i]!, { order: 'desc', nulls: null });
    if (prefixed && r.sub_part !== null && r.sub_part !== undefined) setEntry(prefixes, cols[i]!, Number(r.sub_part));
  });
  const index = normalizeIndex({
    name,
    table: table.name,
    columns: cols,
    unique: Number(rows[0]!.non_unique) === 0,
    using: type,
    column_sorting: sorting,
    ...(Object.keys(prefixes).length > 0 ? { attrs: { prefix_lengths: prefixes } } : {}),
  });
  ir.indexes[objectKey(table.name, name)] = index;
}

/** `` `n` > 0 `` → `n > 0`: backticks around plain names are dropped, as models write them. */
export function checkExpression(clause: string): string {
  const unquoted = clause.replace(/('(?:[^'\\]|''|\\.)*')|`([A-Za-z_][A-Za-z0-9_]*)`/g, (whole, str: string | undefined, name: string | undefined) => str ?? name ?? whole);
  return normalizeSqlText(unquoted);
}
