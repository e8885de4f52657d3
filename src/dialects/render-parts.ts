/**
 * DDL fragments the dialects spell alike (ClickHouse uses only the name helpers), built through
 * the dialect's own quoting module. Only the identical pieces live here: each dialect's renderer
 * keeps its grammar (what a statement holds, in which order, which attributes it can express) and
 * adds its own clauses around these (PostgreSQL `NULLS NOT DISTINCT`, `DEFERRABLE`, MySQL prefix
 * lengths ...).
 */
import type { CheckConstraintIR, ForeignKeyIR, IndexIR, TableIR, UniqueConstraintIR } from '../schema/ir.js';
import { getEntry, hasEntry } from '../schema/name-map.js';
import type { Quoting } from './types.js';

/** `"a", "b"`: quoted names joined by commas. */
export function identList(q: Quoting, names: readonly string[]): string {
  return names.map((name) => q.ident(name)).join(', ');
}

/** A key of the IR's maps (`name`, or `schema.name` / `database.name`) as a quoted, qualified name. */
export function keyName(q: Quoting, key: string): string {
  const dot = key.indexOf('.');
  return dot > 0 ? q.qualified(key.slice(0, dot), key.slice(dot + 1)) : q.ident(key);
}

/** `PRIMARY KEY ("a", "b")`. */
export function primaryKeyClause(q: Quoting, columns: readonly string[]): string {
  return `PRIMARY KEY (${identList(q, columns)})`;
}

/** `CONSTRAINT "n" UNIQUE<modifier> ("a", "b")`; `modifier` is a dialect's extra words (` NULLS NOT DISTINCT`). */
export function uniqueClause(q: Quoting, c: UniqueConstraintIR, modifier = ''): string {
  return `CONSTRAINT ${q.ident(c.name)} UNIQUE${modifier} (${identList(q, c.columns)})`;
}

/** `CONSTRAINT "n" CHECK (expression)`. */
export function checkClause(q: Quoting, c: CheckConstraintIR): string {
  return `CONSTRAINT ${q.ident(c.name)} CHECK (${c.expression})`;
}

/**
 * One entry of an index's column list: a column of the table quoted, anything else an expression
 * in parentheses, then `suffix` (MySQL's prefix length), then ` DESC` for a descending entry.
 */
export function indexEntry(q: Quoting, table: TableIR | undefined, index: IndexIR, entry: string, suffix = ''): string {
  // Own entries only: an entry such as `constructor` is a column only when the table has one.
  const text = `${table && hasEntry(table.columns, entry) ? q.ident(entry) : `(${entry})`}${suffix}`;
  return getEntry(index.column_sorting, entry)?.order === 'desc' ? `${text} DESC` : text;
}

/**
 * `CONSTRAINT "n" FOREIGN KEY ("a") REFERENCES <refName> ("b") [ON DELETE ..] [ON UPDATE ..]`,
 * actions only where they are not the default `NO ACTION`. `refName` is the referenced table as
 * the dialect qualifies it.
 */
export function foreignKeyClause(q: Quoting, fk: ForeignKeyIR, refName: string): string {
  let sql = `CONSTRAINT ${q.ident(fk.name)} FOREIGN KEY (${identList(q, fk.columns)}) REFERENCES ${refName} (${identList(q, fk.ref_columns)})`;
  if (fk.on_delete !== 'NO ACTION') sql += ` ON DELETE ${fk.on_delete}`;
  if (fk.on_update !== 'NO ACTION') sql += ` ON UPDATE ${fk.on_update}`;
  return sql;
}
