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
