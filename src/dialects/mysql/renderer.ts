import { columnsInOrder, tableConstraints, tableIndexes, type CheckConstraintIR, type ColumnIR, type DefaultIR, type ForeignKeyIR, type IndexIR, type SchemaIR, type UniqueConstraintIR } from '../../schema/ir.js';
import { getEntry } from '../../schema/name-map.js';
import { unknownTable } from '../../schema/schema-io.js';
import * as parts from '../render-parts.js';
import { mysqlPlainString, mysqlQuoting as q } from './quoting.js';

/**
 * MySQL / MariaDB DDL from the schema IR, the same text for both: CREATE TABLE (columns with
 * types, collations, defaults, AUTO_INCREMENT and comments; primary key; unique and check
 * constraints), then CREATE INDEX, then foreign keys as `ALTER TABLE ... ADD CONSTRAINT` once
 * every table exists. Index attributes MySQL has no syntax for (`where`, `include`,
 * `with_params`, `tablespace`, `nulls_not_distinct`, NULLS order) are not rendered; `fulltext`
 * and `spatial` methods become `CREATE FULLTEXT|SPATIAL INDEX`, others `USING <method>`.
 */
export function renderMysqlSchema(ir: SchemaIR): string[] {
  const keys = Object.keys(ir.tables)
    .sort()
    .filter((k) => ir.tables[k]!.object_type === 'table');
  return [...keys.map((k) => createTable(ir, k)), ...keys.flatMap((k) => indexesOf(ir, k)), ...keys.flatMap((k) => tableForeignKeys(ir, k))];
}

/** One table, its indexes and foreign keys (`mtool snapshot TABLE`). */
export function renderMysqlTable(ir: SchemaIR, tableKey: string): string[] {
  if (!ir.tables[tableKey]) throw unknownTable(ir, tableKey);
  return [createTable(ir, tableKey), ...indexesOf(ir, tableKey), ...tableForeignKeys(ir, tableKey)];
}

export function createTable(ir: SchemaIR, key: string): string {
  const table = ir.tables[key]!;
  const lines = columnsInOrder(table).map((c) => `  ${columnDefinition(c)}`);
  if (table.primary_key.length > 0) lines.push(`  ${parts.primaryKeyClause(q, table.primary_key)}`);
  for (const c of tableConstraints(ir, key)) {
    if (c.kind === 'unique') lines.push(`  ${uniqueClause(c)}`);
    else if (c.kind === 'check') lines.push(`  ${checkClause(c)}`);
  }
  // COMMENT takes a plain string literal only (never the hex form q.literal uses for a backslash).
  const comment = table.comment !== null ? ` COMMENT=${mysqlPlainString(table.comment)}` : '';
  return `CREATE TABLE ${q.ident(table.name)} (\n${lines.join(',\n')}\n)${comment}`;
}

/** `` `name` type [COLLATE ..] [NOT NULL|NULL] [AUTO_INCREMENT|DEFAULT ..|GENERATED ..] [ON UPDATE ..] [COMMENT ..] ``. */
export function columnDefinition(c: ColumnIR): string {
  const parts = [q.ident(c.name), c.my_column?.native_type ?? portableType(c)];
  if (c.my_column?.collation) parts.push(`COLLATE ${c.my_column.collation}`);
  const generated = c.attrs?.generated as { kind: string; expression: string } | undefined;
  if (generated) parts.push(`GENERATED ALWAYS AS (${generated.expression}) ${generated.kind === 'stored' ? 'STORED' : 'VIRTUAL'}`);
  // MariaDB takes no NULL/NOT NULL on a generated column.
  if (!generated) parts.push(c.nullable ? 'NULL' : 'NOT NULL');
  if (c.autoincrement) parts.push('AUTO_INCREMENT');
  else if (c.default && !generated) parts.push(`DEFAULT ${defaultSql(c.default)}`);
  const onUpdate = c.attrs?.on_update as string | undefined;
  if (onUpdate) parts.push(`ON UPDATE ${onUpdate}`);
  if (c.comment !== null) parts.push(`COMMENT ${mysqlPlainString(c.comment)}`);
  return parts.join(' ');
}

/** Literals through the quoting module; `CURRENT_TIMESTAMP[(n)]` bare; other expressions in parentheses (MySQL 8.0.13+ requires them). */
export function defaultSql(d: Exclude<DefaultIR, null>): string {
  if (d.kind === 'literal') return q.literal(d.value);
  return /^(?:CURRENT_TIMESTAMP|LOCALTIMESTAMP|NOW)(?:\(\d*\))?$/i.test(d.sql) ? d.sql : `(${d.sql})`;
}

function portableType(c: ColumnIR): string {
  if (c.raw) return c.type;
  const p = c.precision !== undefined ? `(${c.precision}${c.scale !== undefined ? `,${c.scale}` : ''})` : '';
  switch (c.type) {
    case 'integer':
      return 'int';
    case 'biginteger':
      return 'bigint';
    case 'varchar':
      return `varchar(${c.length ?? 255})`;
    case 'boolean':
      return 'tinyint(1)';
    case 'timestamp':
      return `${c.timezone ? 'timestamp' : 'datetime'}${c.precision !== undefined ? `(${c.precision})` : ''}`;
    case 'numeric':
      return `decimal${p}`;
    case 'float':
      return 'double';
    case 'bytes':
      return 'blob';
    case 'uuid':
      return 'char(36)';
    case 'enum':
      // ENUM members, like COMMENT, take plain string literals only.
      return c.enum_values ? `enum(${c.enum_values.map((v) => mysqlPlainString(v)).join(',')})` : 'text';
    default:
      return 'text';
  }
}

export function uniqueClause(c: UniqueConstraintIR): string {
  return parts.uniqueClause(q, c);
}

export function checkClause(c: CheckConstraintIR): string {
  return parts.checkClause(q, c);
}

function indexesOf(ir: SchemaIR, key: string): string[] {
  return tableIndexes(ir, key).map((i) => createIndex(ir, i));
}

/** `CREATE [UNIQUE|FULLTEXT|SPATIAL] INDEX ... ON ... (col(prefix) DESC, (expr)) [USING method]`. */
export function createIndex(ir: SchemaIR, index: IndexIR): string {
  const table = ir.tables[index.table];
  // A spatial index takes no prefix length (ERROR 1089), though the server reports one (SUB_PART 32)
  // and snapshots read before the introspector left it out may still carry it.
  const prefixes = index.using === 'spatial' ? {} : ((index.attrs?.prefix_lengths as Record<string, number> | undefined) ?? {});
  // Own entries only: a column called `constructor` or `__proto__` has no inherited prefix length.
  const cols = index.columns.map((entry) => {
    const prefix = getEntry(prefixes, entry);
    return parts.indexEntry(q, table, index, entry, prefix !== undefined ? `(${prefix})` : '');
  });
  const special = index.using === 'fulltext' || index.using === 'spatial';
  const kind = special ? `${index.using!.toUpperCase()} ` : index.unique ? 'UNIQUE ' : '';
  const using = index.using && !special ? ` USING ${index.using.toUpperCase()}` : '';
  return `CREATE ${kind}INDEX ${q.ident(index.name)} ON ${q.ident(index.table)} (${cols.join(', ')})${using}`;
}

function tableForeignKeys(ir: SchemaIR, key: string): string[] {
  return tableConstraints(ir, key)
    .filter((c): c is ForeignKeyIR => c.kind === 'foreign_key')
    .map((fk) => addForeignKey(fk));
}

/**
 * `ALTER TABLE ... ADD CONSTRAINT ... FOREIGN KEY (...) REFERENCES ... [ON DELETE ..] [ON UPDATE ..]`
 * (MySQL has no DEFERRABLE). A referenced key `db.table` (another database) is written qualified.
 */
export function addForeignKey(fk: ForeignKeyIR): string {
  return `ALTER TABLE ${q.ident(fk.table)} ADD ${parts.foreignKeyClause(q, fk, parts.keyName(q, fk.ref_table))}`;
}
