import { MtoolError } from '../../errors.js';
import { hex } from '../hex.js';
import { isoUtc, qualifiedName } from '../quoting-parts.js';
import type { Quoting, SqlValue } from '../types.js';

/**
 * MySQL / MariaDB quoting, the same for both.
 *
 * A backslash means different things depending on the server's `sql_mode`: an escape normally,
 * a plain character under `NO_BACKSLASH_ESCAPES`. So backslash escapes are never written:
 * quotes are doubled (`'it''s'`, read the same in both modes), and a string holding a
 * backslash or a NUL is sent as hex with a character-set introducer (`_utf8mb4 X'5c'`), which
 * no mode reinterprets.
 */
export const mysqlQuoting: Quoting = {
  ident(name: string): string {
    if (name.includes('\0')) throw new MtoolError('MTOOL_USAGE', `MySQL identifiers cannot contain a NUL character (got ${JSON.stringify(name)})`);
    return `\`${name.replace(/`/g, '``')}\``;
  },
  qualified(...parts: (string | undefined)[]): string {
    return qualifiedName((p) => mysqlQuoting.ident(p), parts);
  },
  literal(value: SqlValue): string {
    if (value === null) return 'NULL';
    switch (typeof value) {
      case 'string':
        if (/[\\\0]/.test(value)) return `_utf8mb4 X'${Buffer.from(value, 'utf8').toString('hex')}'`;
        return `'${value.replace(/'/g, "''")}'`;
      case 'number':
        if (!Number.isFinite(value)) throw new MtoolError('MTOOL_USAGE', `MySQL has no literal for ${value}; store NULL or a finite number`);
        return String(value);
      case 'bigint':
        return value.toString();
      case 'boolean':
        return value ? 'TRUE' : 'FALSE';
    }
    if (value instanceof Date) {
      // DATETIME has no time zone: the UTC wall clock, with milliseconds (DATETIME(3) keeps them).
      return `'${isoUtc(value).replace('T', ' ').replace('Z', '')}'`;
    }
    if (value instanceof Uint8Array) return `X'${hex(value)}'`;
    throw new MtoolError('MTOOL_INTERNAL', `cannot write a ${typeof value} as a MySQL literal`);
  },
};

/** The escape of each character a plain literal cannot hold as it is, as the default sql_mode reads it. */
const PLAIN_ESCAPES: Readonly<Record<string, string>> = { '\\': '\\\\', '\0': '\\0', "'": "''" };

/**
 * A plain `'...'` string literal, for the places whose grammar takes nothing else: `COMMENT`
 * (column, table, index) and `ENUM`/`SET` members reject the hex form {@link mysqlQuoting}.literal
 * uses for a backslash (ERROR 1064). No spelling of a backslash reads the same under every
 * sql_mode, so this one is for the default mode, the one mtool's statement splitter assumes too:
 * a backslash is written `\\`, a NUL `\0`, a quote doubled. Under `NO_BACKSLASH_ESCAPES` the
 * server would keep both backslashes of `\\`: the text changes but the statement still runs.
 * @example mysqlPlainString(String.raw`a\b's`) === String.raw`'a\\b''s'`
 */
export function mysqlPlainString(text: string): string {
  return `'${text.replace(/[\\\0']/g, (ch) => PLAIN_ESCAPES[ch]!)}'`;
}
