import { MtoolError } from '../../errors.js';
import type { Quoting, SqlValue } from '../types.js';
import { hex } from '../hex.js';
import { isoUtc, qualifiedName } from '../quoting-parts.js';

/**
 * PostgreSQL quoting. Strings use standard quoting (`'it''s'`); a string holding a backslash
 * becomes an escape string (`E'a\\b'`) so it means the same whether or not the server runs with
 * `standard_conforming_strings` on. Bytes go through `decode(hex)`, which no setting changes.
 */
export const postgresQuoting: Quoting = {
  ident(name: string): string {
    if (name.includes('\0')) throw new MtoolError('MTOOL_USAGE', `PostgreSQL identifiers cannot contain a NUL character (got ${JSON.stringify(name)})`);
    return `"${name.replace(/"/g, '""')}"`;
  },
  qualified(...parts: (string | undefined)[]): string {
    return qualifiedName((p) => postgresQuoting.ident(p), parts);
  },
  literal(value: SqlValue): string {
    if (value === null) return 'NULL';
    switch (typeof value) {
      case 'string':
        return stringLiteral(value);
      case 'number':
        if (Number.isFinite(value)) return String(value);
        return Number.isNaN(value) ? `'NaN'::float8` : value > 0 ? `'Infinity'::float8` : `'-Infinity'::float8`;
      case 'bigint':
        return value.toString();
      case 'boolean':
        return value ? 'TRUE' : 'FALSE';
    }
    if (value instanceof Date) return `'${isoUtc(value)}'::timestamptz`;
    if (value instanceof Uint8Array) return `decode('${hex(value)}', 'hex')`;
    throw new MtoolError('MTOOL_INTERNAL', `cannot write a ${typeof value} as a PostgreSQL literal`);
  },
};

function stringLiteral(value: string): string {
  if (value.includes('\0')) {
    throw new MtoolError('MTOOL_USAGE', 'PostgreSQL text cannot contain a NUL character (\\0); remove it or store the value as bytea');
  }
  const quoted = value.replace(/'/g, "''");
  return value.includes('\\') ? `E'${quoted.replace(/\\/g, '\\\\')}'` : `'${quoted}'`;
}

