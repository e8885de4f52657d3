import { MtoolError } from '../../errors.js';
import { hex } from '../hex.js';
import { isoUtc, qualifiedName } from '../quoting-parts.js';
import type { Quoting, SqlValue } from '../types.js';

/**
 * SQLite quoting: quotes doubled, no backslash escapes exist. A string holding a NUL is sent as
 * `CAST(X'..' AS TEXT)`, because SQLite's tokenizer would end the statement at a raw NUL.
 * Booleans are 1/0 (SQLite has no boolean type); Dates are ISO-8601 UTC text, the form
 * SQLite's date functions read.
 */
export const sqliteQuoting: Quoting = {
  ident(name: string): string {
    if (name.includes('\0')) throw new MtoolError('MTOOL_USAGE', `SQLite identifiers cannot contain a NUL character (got ${JSON.stringify(name)})`);
    return `"${name.replace(/"/g, '""')}"`;
  },
  qualified(...parts: (string | undefined)[]): string {
    return qualifiedName((p) => sqliteQuoting.ident(p), parts);
  },
  literal(value: SqlValue): string {
    if (value === null) return 'NULL';
    switch (typeof value) {
      case 'string':
        if (value.includes('\0')) return `CAST(X'${Buffer.from(value, 'utf8').toString('hex')}' AS TEXT)`;
        return `'${value.replace(/'/g, "''")}'`;
      case 'number':
        if (Number.isNaN(value)) throw new MtoolError('MTOOL_USAGE', 'SQLite has no literal for NaN; store NULL instead');
        // SQLite reads an overflowing real as ±Infinity.
        if (!Number.isFinite(value)) return value > 0 ? '9e999' : '-9e999';
        return String(value);
      case 'bigint':
        return value.toString();
      case 'boolean':
        return value ? '1' : '0';
    }
    if (value instanceof Date) {
      return `'${isoUtc(value)}'`;
    }
    if (value instanceof Uint8Array) return `X'${hex(value)}'`;
    throw new MtoolError('MTOOL_INTERNAL', `cannot write a ${typeof value} as a SQLite literal`);
  },
};
