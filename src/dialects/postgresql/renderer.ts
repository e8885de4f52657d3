import {
  columnsInOrder,
  tableConstraints,
  tableIndexes,
  type CheckConstraintIR,
  type ColumnIR,
  type DefaultIR,
  type EnumIR,
  type ForeignKeyIR,
  type IndexIR,
  type SchemaIR,
  type TableIR,
  type UniqueConstraintIR,
} from '../../schema/ir.js';
import { unknownTable } from '../../schema/schema-io.js';
import * as parts from '../render-parts.js';
import { postgresQuoting as q } from './quoting.js';

/**
 * PostgreSQL DDL from the schema IR. `renderPostgresSchema` gives every statement that creates a
 * whole schema in an empty database, in dependency order: schemas, enum types, tables (columns,
 * defaults, primary key, unique and check constraints inline), indexes, foreign keys (after all
 * tables, so cycles work), comments. Each object also has its own function, for the differ's
 * ALTER plans to reuse.
 */
export function renderPostgresSchema(ir: SchemaIR): string[] {
  const out: string[] = [];
  const schemas = new Set<string>();
  for (const t of Object.values(ir.tables)) if (t.schema) schemas.add(t.schema);
  for (const e of Object.values(ir.enums)) if (e.schema) schemas.add(e.schema);
  for (const s of [...schemas].sort()) out.push(`CREATE SCHEMA IF NOT EXISTS ${q.ident(s)}`);
  for (const key of sortedKeys(ir.enums)) out.push(createEnum(ir.enums[key]!));
  const tables = sortedKeys(ir.tables).filter((k) => ir.tables[k]!.object_type === 'table');
  for (const key of tables) out.push(createTable(ir, key));
  for (const key of tables) out.push(...indexesOf(ir, key));
  for (const key of tables) out.push(...tableForeignKeys(ir, key));
  for (const key of tables) out.push(...comments(ir.tables[key]!));
  return out;
}

/** One table: CREATE TABLE, its indexes, its foreign keys and comments (`mtool snapshot TABLE`). */
export function renderPostgresTable(ir: SchemaIR, tableKey: string): string[] {
  const table = ir.tables[tableKey];
  if (!table) throw unknownTable(ir, tableKey);
  return [createTable(ir, tableKey), ...indexesOf(ir, tableKey), ...tableForeignKeys(ir, tableKey), ...comments(table)];
}

function sortedKeys(map: Record<string, unknown>): string[] {
  return Object.keys(map).sort();
}

/** Quoted, schema-qualified name of a table key (also for keys not in the IR: `schema.table`). */
export function tableName(ir: SchemaIR, key: string): string {
  const t = ir.tables[key];
  return t ? q.qualified(t.schema, t.name) : parts.keyName(q, key);
}

function enumName(ir: SchemaIR, key: string): string {
  const e = ir.enums[key];
  return e ? q.qualified(e.schema, e.name) : parts.keyName(q, key);
}

/** `CREATE TYPE "app"."status" AS ENUM ('a', 'b')`. */
function createEnum(e: EnumIR): string {
  return `CREATE TYPE ${q.qualified(e.schema, e.name)} AS ENUM (${e.values.map((v) => q.literal(v)).join(', ')})`;
}

/** CREATE TABLE with columns, primary key, unique and check constraints (and exclusion constraints kept in `attrs`). */
export function createTable(ir: SchemaIR, key: string): string {
  const table = ir.tables[key]!;
  const lines = columnsInOrder(table).map((c) => `  ${columnDefinition(ir, c)}`);
  if (table.primary_key.length > 0) lines.push(`  ${parts.primaryKeyClause(q, table.primary_key)}`);
  for (const c of tableConstraints(ir, key)) {
    if (c.kind === 'unique') lines.push(`  ${uniqueClause(c)}`);
    else if (c.kind === 'check') lines.push(`  ${checkClause(c)}`);
  }
  for (const x of (table.attrs?.exclusion_constraints as { name: string; definition: string }[] | undefined) ?? []) {
    lines.push(`  CONSTRAINT ${q.ident(x.name)} ${x.definition}`);
  }
  return `CREATE TABLE ${tableName(ir, key)} (\n${lines.join(',\n')}\n)`;
}

export function uniqueClause(c: UniqueConstraintIR): string {
  return parts.uniqueClause(q, c, c.nulls_not_distinct ? ' NULLS NOT DISTINCT' : '');
}

export function checkClause(c: CheckConstraintIR): string {
  return parts.checkClause(q, c);
}

/** `"name" type [COLLATE ..] [GENERATED ...] [DEFAULT ...] [NOT NULL]`. */
export function columnDefinition(ir: SchemaIR, c: ColumnIR): string {
  const meta = c.pg_column;
  const identity = meta?.identity ?? null;
  const serial = c.autoincrement === true && identity === null;
  let type = c.enum ? enumName(ir, c.enum) : (meta?.native_type ?? portableType(c));
  // `serial` is how a nextval()-default integer column is written: reading it back gives the same IR.
  if (serial) type = type === 'bigint' ? 'bigserial' : type === 'smallint' ? 'smallserial' : 'serial';
  const parts = [q.ident(c.name), type];
  if (meta?.collation) parts.push(`COLLATE ${q.ident(meta.collation)}`);
  const generated = c.attrs?.generated as { kind: string; expression: string } | undefined;
  if (generated) parts.push(`GENERATED ALWAYS AS (${generated.expression}) STORED`);
  else if (identity) parts.push(`GENERATED ${identity === 'always' ? 'ALWAYS' : 'BY DEFAULT'} AS IDENTITY`);
  else if (c.default) parts.push(`DEFAULT ${defaultSql(c.default)}`);
  if (!c.nullable) parts.push('NOT NULL');
  return parts.join(' ');
}

/** A default as SQL: literals through the quoting module, expressions verbatim. */
export function defaultSql(d: Exclude<DefaultIR, null>): string {
  if (d.kind === 'expression') return d.sql;
  return q.literal(d.value);
}

/** A PostgreSQL type for a column whose IR carries no `pg_column` (compiled for another dialect). */
function portableType(c: ColumnIR): string {
  if (c.raw) return c.type;
  const p = c.precision !== undefined ? `(${c.precision}${c.scale !== undefined ? `,${c.scale}` : ''})` : '';
  switch (c.type) {
    case 'integer':
      return 'integer';
    case 'biginteger':
      return 'bigint';
    case 'varchar':
      return c.length !== undefined ? `character varying(${c.length})` : 'character varying';
    case 'text':
    case 'enum':
      return 'text';
    case 'boolean':
      return 'boolean';
    case 'timestamp':
      return `timestamp${c.precision !== undefined ? `(${c.precision})` : ''} ${c.timezone ? 'with' : 'without'} time zone`;
    case 'numeric':
      return `numeric${p}`;
    case 'float':
      return 'double precision';
    case 'bytes':
      return 'bytea';
    case 'uuid':
      return 'uuid';
    default:
      return c.type;
  }
}

function indexesOf(ir: SchemaIR, key: string): string[] {
  return tableIndexes(ir, key).map((i) => createIndex(ir, i));
}

/**
 * CREATE INDEX with every attribute the IR holds: unique, CONCURRENTLY, method, per-column order
 * and nulls, INCLUDE, NULLS NOT DISTINCT, WITH (...), TABLESPACE, WHERE. An entry of `columns`
 * that names a column of the table is quoted; anything else is an expression in parentheses.
 */
export function createIndex(ir: SchemaIR, index: IndexIR): string {
  const table = ir.tables[index.table];
  const cols = index.columns.map((entry) => {
    const nulls = index.column_sorting[entry]?.nulls;
    return `${parts.indexEntry(q, table, index, entry)}${nulls ? ` NULLS ${nulls.toUpperCase()}` : ''}`;
  });
  let sql = `CREATE ${index.unique ? 'UNIQUE ' : ''}INDEX ${index.concurrently ? 'CONCURRENTLY ' : ''}${q.ident(index.name)} ON ${tableName(ir, index.table)}`;
  if (index.using) sql += ` USING ${index.using}`;
  sql += ` (${cols.join(', ')})`;
  if (index.include.length > 0) sql += ` INCLUDE (${parts.identList(q, index.include)})`;
  if (index.nulls_not_distinct) sql += ' NULLS NOT DISTINCT';
  const params = Object.keys(index.with_params).sort();
  if (params.length > 0) sql += ` WITH (${params.map((k) => `${k} = ${paramValue(index.with_params[k]!)}`).join(', ')})`;
  if (index.tablespace) sql += ` TABLESPACE ${q.ident(index.tablespace)}`;
  if (index.where) sql += ` WHERE ${index.where}`;
  return sql;
}

function paramValue(value: string): string {
  return /^(?:-?\d+(?:\.\d+)?|[A-Za-z_][A-Za-z0-9_]*)$/.test(value) ? value : q.literal(value);
}

function tableForeignKeys(ir: SchemaIR, key: string): string[] {
  return tableConstraints(ir, key)
    .filter((c): c is ForeignKeyIR => c.kind === 'foreign_key')
    .map((fk) => addForeignKey(ir, fk));
}

/** `ALTER TABLE ... ADD CONSTRAINT ... FOREIGN KEY ... REFERENCES ... [ON DELETE ..] [ON UPDATE ..] [DEFERRABLE [INITIALLY DEFERRED]]`. */
export function addForeignKey(ir: SchemaIR, fk: ForeignKeyIR): string {
  let sql = `ALTER TABLE ${tableName(ir, fk.table)} ADD ${parts.foreignKeyClause(q, fk, tableName(ir, fk.ref_table))}`;
  if (fk.deferrable) sql += fk.initially_deferred ? ' DEFERRABLE INITIALLY DEFERRED' : ' DEFERRABLE';
  return sql;
}

/** COMMENT ON TABLE / COLUMN for every comment the table carries. */
export function comments(table: TableIR): string[] {
  const name = q.qualified(table.schema, table.name);
  const out: string[] = [];
  if (table.comment !== null) out.push(`COMMENT ON TABLE ${name} IS ${q.literal(table.comment)}`);
  for (const c of columnsInOrder(table)) {
    if (c.comment !== null) out.push(`COMMENT ON COLUMN ${name}.${q.ident(c.name)} IS ${q.literal(c.comment)}`);
  }
  return out;
}
