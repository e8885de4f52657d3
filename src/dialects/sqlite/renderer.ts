import { columnsInOrder, tableConstraints, tableIndexes, type CheckConstraintIR, type ColumnIR, type DefaultIR, type ForeignKeyIR, type IndexIR, type SchemaIR, type UniqueConstraintIR } from '../../schema/ir.js';
import { unknownTable } from '../../schema/schema-io.js';
import * as parts from '../render-parts.js';
import { sqliteQuoting as q } from './quoting.js';

/**
 * The marker mtool writes into SQLite DDL for comments, which SQLite cannot store otherwise:
 * `/* mtool-comment: "text" *\/` after a column definition, `/* mtool-table-comment: "text" *\/`
 * at the start of the column list. SQLite keeps CREATE TABLE text verbatim, so they read back.
 */
export const COMMENT_MARK = 'mtool-comment:';
export const TABLE_COMMENT_MARK = 'mtool-table-comment:';

/**
 * SQLite DDL from the schema IR. Foreign keys, unique and check constraints go inside CREATE
 * TABLE (SQLite cannot add them later); SQLite checks foreign-key targets only when rows are
 * written, so tables need no particular order. Comments are written as marked block comments
 * that the introspector reads back (SQLite keeps CREATE TABLE text verbatim).
 *
 * Index attributes SQLite has no syntax for (`using`, `include`, `with_params`, `tablespace`,
 * `nulls_not_distinct`, `concurrently`) are not rendered.
 */
export function renderSqliteSchema(ir: SchemaIR): string[] {
  const keys = Object.keys(ir.tables)
    .sort()
    .filter((k) => ir.tables[k]!.object_type === 'table');
  return [...keys.map((k) => createTable(ir, k)), ...keys.flatMap((k) => indexesOf(ir, k))];
}

/** One table and its indexes (`mtool snapshot TABLE`). */
export function renderSqliteTable(ir: SchemaIR, tableKey: string): string[] {
  if (!ir.tables[tableKey]) throw unknownTable(ir, tableKey);
  return [createTable(ir, tableKey), ...indexesOf(ir, tableKey)];
}

/** A block comment carrying `text` as JSON, safe inside SQL (`*\/` cannot end it early). */
function marked(mark: string, text: string): string {
  return `/* ${mark} ${JSON.stringify(text).replace(/\*\//g, '*\\/')} */`;
}

/** CREATE TABLE with columns, primary key and every constraint inline. */
export function createTable(ir: SchemaIR, key: string): string {
  const table = ir.tables[key]!;
  const columns = columnsInOrder(table);
  const inlinePk = columns.find((c) => c.autoincrement && table.primary_key.length === 1 && table.primary_key[0] === c.name);
  const lines = columns.map((c) => `  ${columnDefinition(c, c === inlinePk)}`);
  if (table.primary_key.length > 0 && !inlinePk) lines.push(`  ${parts.primaryKeyClause(q, table.primary_key)}`);
  for (const c of tableConstraints(ir, key)) {
    if (c.kind === 'unique') lines.push(`  ${uniqueClause(c)}`);
    else if (c.kind === 'check') lines.push(`  ${checkClause(c)}`);
    else lines.push(`  ${foreignKeyClause(c)}`);
  }
  // A comment goes before the comma that ends its line, so it stays part of that item.
  const body = lines.map((line, i) => {
    const c = columns[i];
    const comma = i < lines.length - 1 ? ',' : '';
    return c?.comment != null ? `${line} ${marked(COMMENT_MARK, c.comment)}${comma}` : `${line}${comma}`;
  });
  const head = table.comment !== null ? ` ${marked(TABLE_COMMENT_MARK, table.comment)}` : '';
  const options = [table.attrs?.without_rowid ? 'WITHOUT ROWID' : '', table.attrs?.strict ? 'STRICT' : ''].filter((o) => o !== '').join(', ');
  return `CREATE TABLE ${q.ident(table.name)} (${head}\n${body.join('\n')}\n)${options ? ` ${options}` : ''}`;
}

/** `"name" TYPE [PRIMARY KEY AUTOINCREMENT] [DEFAULT ..] [NOT NULL] [GENERATED ...]`. */
export function columnDefinition(c: ColumnIR, inlinePk: boolean): string {
  const parts = [q.ident(c.name), inlinePk ? 'INTEGER' : (c.sqlite_column?.native_type ?? portableType(c))];
  if (!c.nullable) parts.push('NOT NULL');
  if (inlinePk) parts.push('PRIMARY KEY AUTOINCREMENT');
  const generated = c.attrs?.generated as { kind: string; expression: string } | undefined;
  if (generated) parts.push(`GENERATED ALWAYS AS (${generated.expression}) ${generated.kind === 'stored' ? 'STORED' : 'VIRTUAL'}`);
  else if (c.default) parts.push(`DEFAULT ${defaultSql(c.default)}`);
  return parts.join(' ');
}

/** Literals through the quoting module; `CURRENT_TIMESTAMP`-like words bare; other expressions in parentheses, as SQLite requires. */
export function defaultSql(d: Exclude<DefaultIR, null>): string {
  if (d.kind === 'literal') return q.literal(d.value);
  return /^(?:CURRENT_TIMESTAMP|CURRENT_DATE|CURRENT_TIME)$/i.test(d.sql) ? d.sql : `(${d.sql})`;
}

function portableType(c: ColumnIR): string {
  if (c.raw) return c.type.toUpperCase();
  switch (c.type) {
    case 'integer':
      return 'INTEGER';
    case 'biginteger':
      return 'BIGINT';
    case 'varchar':
      return c.length !== undefined ? `VARCHAR(${c.length})` : 'VARCHAR';
    case 'boolean':
      return 'BOOLEAN';
    case 'timestamp':
      return 'TIMESTAMP';
    case 'numeric':
      return c.precision !== undefined ? `NUMERIC(${c.precision},${c.scale ?? 0})` : 'NUMERIC';
    case 'float':
      return 'REAL';
    case 'bytes':
      return 'BLOB';
    case 'uuid':
      return 'UUID';
    default:
      return 'TEXT';
  }
}

export function uniqueClause(c: UniqueConstraintIR): string {
  return parts.uniqueClause(q, c);
}

export function checkClause(c: CheckConstraintIR): string {
  return parts.checkClause(q, c);
}

/** Inline `CONSTRAINT .. FOREIGN KEY (..) REFERENCES .. [ON DELETE ..] [ON UPDATE ..] [DEFERRABLE INITIALLY DEFERRED]`. */
export function foreignKeyClause(fk: ForeignKeyIR): string {
  let sql = parts.foreignKeyClause(q, fk, q.ident(fk.ref_table));
  if (fk.deferrable) sql += fk.initially_deferred ? ' DEFERRABLE INITIALLY DEFERRED' : ' DEFERRABLE INITIALLY IMMEDIATE';
  return sql;
}

function indexesOf(ir: SchemaIR, key: string): string[] {
  return tableIndexes(ir, key).map((i) => createIndex(ir, i));
}

/** `CREATE [UNIQUE] INDEX "n" ON "t" (col [DESC], (expr)) [WHERE ..]`. */
export function createIndex(ir: SchemaIR, index: IndexIR): string {
  const table = ir.tables[index.table];
  const cols = index.columns.map((entry) => parts.indexEntry(q, table, index, entry));
  let sql = `CREATE ${index.unique ? 'UNIQUE ' : ''}INDEX ${q.ident(index.name)} ON ${q.ident(index.table)} (${cols.join(', ')})`;
  if (index.where) sql += ` WHERE ${index.where}`;
  return sql;
}
