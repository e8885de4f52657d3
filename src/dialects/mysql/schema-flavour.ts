import type { DefaultIR } from '../../schema/ir.js';
import { canonicalNowExpression, expressionDefault, literalDefault, wholeQuoted, type DefaultColumnShape } from '../../schema/normalize-default.js';

/**
 * What MySQL and MariaDB report differently in `information_schema`, for the introspector. Which
 * one applies is decided by what the server says it is (`SELECT VERSION()`), not by the
 * configured type: a `mysql` database may be served by MariaDB.
 */
export interface MysqlSchemaFlavour {
  readonly product: 'mysql' | 'mariadb';
  /** `COLUMNS.COLUMN_DEFAULT` (+ `EXTRA`) as the IR stores it. */
  columnDefault(raw: string | null, extra: string, column: DefaultColumnShape): DefaultIR;
  /** The query listing CHECK constraints as rows of `table_name`, `name`, `clause`, `level`. */
  checkQuery(schemaLiteral: string): string;
}

const NUMBER = /^-?\d+(?:\.\d+)?(?:e[+-]?\d+)?$/i;

/**
 * A literal default. DECIMAL defaults come back padded to the column's scale (`0` is stored as
 * `0.00`), so the padding is removed: the written value cannot be told apart anyway.
 */
function literal(text: string, column: DefaultColumnShape): DefaultIR {
  if (column.type === 'numeric' && !column.raw && /^-?\d+\.\d+$/.test(text)) {
    return literalDefault(text.replace(/0+$/, '').replace(/\.$/, ''), column);
  }
  return literalDefault(text, column);
}

/**
 * MariaDB 10.2.7+: literal defaults are quoted (`'active'`, `'it''s'`), numbers bare, a nullable
 * column without a default says `NULL`, expressions are bare text (`current_timestamp()`,
 * `concat('a','b')`).
 */
export const mariadbSchemaFlavour: MysqlSchemaFlavour = {
  product: 'mariadb',
  columnDefault(raw, _extra, column) {
    if (raw === null) return null;
    const text = raw.trim();
    if (text === 'NULL') return null;
    const quoted = wholeQuoted(text, true);
    if (quoted !== undefined) return literal(quoted, column);
    if (NUMBER.test(text)) return literal(text, column);
    return expressionDefault(canonicalNowExpression(text));
  },
  checkQuery: (schema) =>
    `SELECT TABLE_NAME AS table_name, CONSTRAINT_NAME AS name, CHECK_CLAUSE AS clause, LEVEL AS level FROM information_schema.CHECK_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = ${schema}`,
};

/**
 * MySQL 8: literal defaults are unquoted text (`active`, `it's`); expression defaults are marked
 * `DEFAULT_GENERATED` in `EXTRA`; no default is SQL NULL.
 */
export const mysqlSchemaFlavour: MysqlSchemaFlavour = {
  product: 'mysql',
  columnDefault(raw, extra, column) {
    if (raw === null) return null;
    if (/\bDEFAULT_GENERATED\b/i.test(extra)) return expressionDefault(canonicalNowExpression(raw));
    if (/^current_timestamp(?:\(\d*\))?$/i.test(raw.trim())) return expressionDefault(canonicalNowExpression(raw));
    return literal(raw, column);
  },
  // MySQL's CHECK_CONSTRAINTS has no table column: the table comes from TABLE_CONSTRAINTS.
  checkQuery: (schema) =>
    `SELECT tc.TABLE_NAME AS table_name, cc.CONSTRAINT_NAME AS name, cc.CHECK_CLAUSE AS clause, 'Table' AS level
     FROM information_schema.CHECK_CONSTRAINTS cc JOIN information_schema.TABLE_CONSTRAINTS tc
       ON tc.CONSTRAINT_SCHEMA = cc.CONSTRAINT_SCHEMA AND tc.CONSTRAINT_NAME = cc.CONSTRAINT_NAME AND tc.CONSTRAINT_TYPE = 'CHECK'
     WHERE cc.CONSTRAINT_SCHEMA = ${schema}`,
};

/** The flavour of a server from its version string (`10.11.6-MariaDB`, `8.0.36`). */
export function schemaFlavourOf(version: string): MysqlSchemaFlavour {
  return /mariadb/i.test(version) ? mariadbSchemaFlavour : mysqlSchemaFlavour;
}
