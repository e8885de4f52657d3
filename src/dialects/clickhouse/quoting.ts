import { MtoolError } from '../../errors.js';
import { hex } from '../hex.js';
import { isoUtc, qualifiedName } from '../quoting-parts.js';
import type { Quoting, SqlValue } from '../types.js';

/** Characters ClickHouse string and identifier literals must escape with a backslash. */
const ESCAPES: Record<string, string> = { '\\': '\\\\', "'": "\\'", '`': '\\`', '\0': '\\0', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\b': '\\b', '\f': '\\f' };

function escape(text: string, quote: "'" | '`'): string {
  const pattern = quote === "'" ? /[\\'\0\n\r\t\b\f]/g : /[\\`\0\n\r\t\b\f]/g;
  return text.replace(pattern, (ch) => ESCAPES[ch]!);
}

/**
 * ClickHouse quoting, valid on the old 18.x servers and current ones alike: backslash escapes
 * in strings and backticked identifiers (`'it\'s'`, `` `a\`b` ``); control characters escaped so
 * a statement stays one line of the HTTP body. Booleans are 1/0 (old servers have no Bool type;
 * current ones accept 1/0 into Bool). Dates become `toDateTime('…', 'UTC')`, whole seconds
 * (DateTime's resolution); bytes become `unhex('…')`; non-finite numbers `nan`/`inf`/`-inf`.
 */
export const clickhouseQuoting: Quoting = {
  ident(name: string): string {
    return `\`${escape(name, '`')}\``;
  },
  qualified(...parts: (string | undefined)[]): string {
    return qualifiedName((p) => clickhouseQuoting.ident(p), parts);
  },
  literal(value: SqlValue): string {
    if (value === null) return 'NULL';
    switch (typeof value) {
      case 'string':
        return `'${escape(value, "'")}'`;
      case 'number':
        if (Number.isFinite(value)) return String(value);
        return Number.isNaN(value) ? 'nan' : value > 0 ? 'inf' : '-inf';
      case 'bigint':
        return value.toString();
      case 'boolean':
        return value ? '1' : '0';
    }
    if (value instanceof Date) {
      return `toDateTime('${isoUtc(value).slice(0, 19).replace('T', ' ')}', 'UTC')`;
    }
    if (value instanceof Uint8Array) return `unhex('${hex(value)}')`;
    throw new MtoolError('MTOOL_INTERNAL', `cannot write a ${typeof value} as a ClickHouse literal`);
  },
};
