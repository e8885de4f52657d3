import { normalizeSqlText, type DefaultIR } from './ir.js';

/**
 * Column default normalization shared by the introspectors. Each dialect's introspector peels its
 * own quoting and casts off the server's text (`'x'::text`, MariaDB `'x'`, ClickHouse `'x'`), then
 * hands the bare value here so the IR holds the same JS value `compileModels` stores for
 * `.default(...)`: a boolean for boolean columns, a number for numeric columns when the text is
 * the number's own canonical spelling, else the string.
 */

const NUMERIC_TYPES = new Set(['integer', 'biginteger', 'float', 'numeric']);

/** The column fields a default's interpretation depends on. */
export interface DefaultColumnShape {
  type: string;
  raw?: true;
}

/**
 * A literal default's value as `compileModels` would store it for this column.
 * Numbers stay strings when converting would change their text (`1.50`, `0001`, 2^63-1), so no
 * digit is ever lost.
 * @example literalDefault('1', { type: 'boolean' }) // { kind: 'literal', value: true }
 * @example literalDefault('42', { type: 'integer' }) // { kind: 'literal', value: 42 }
 */
export function literalDefault(text: string, column: DefaultColumnShape): DefaultIR {
  return { kind: 'literal', value: literalValue(text, column) };
}

function literalValue(text: string, column: DefaultColumnShape): string | number | boolean {
  if (column.type === 'boolean' && !column.raw) {
    const lower = text.trim().toLowerCase();
    if (lower === 'true' || lower === 't' || lower === '1') return true;
    if (lower === 'false' || lower === 'f' || lower === '0') return false;
    return text;
  }
  if (NUMERIC_TYPES.has(column.type) && !column.raw) return numberOrText(text);
  return text;
}

/** `text` as a number when it is that number's canonical JS spelling, else `text`. */
export function numberOrText(text: string): string | number {
  const t = text.trim();
  if (!/^-?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?$/i.test(t)) return text;
  const n = Number(t);
  if (!Number.isFinite(n) || String(n) !== t) return text;
  if (Number.isInteger(n) && !Number.isSafeInteger(n)) return text;
  return n;
}

/** An expression default with whitespace collapsed (what `compileModels` stores for sql`...`). */
export function expressionDefault(sql: string): DefaultIR {
  return { kind: 'expression', sql: normalizeSqlText(sql) };
}

/** SQL keywords that mean "now" in every dialect, spelled as models write them. */
const NOW_WORDS: Record<string, string> = {
  current_timestamp: 'CURRENT_TIMESTAMP',
  'current_timestamp()': 'CURRENT_TIMESTAMP',
  current_date: 'CURRENT_DATE',
  'current_date()': 'CURRENT_DATE',
  current_time: 'CURRENT_TIME',
  'current_time()': 'CURRENT_TIME',
  localtimestamp: 'LOCALTIMESTAMP',
  'localtimestamp()': 'LOCALTIMESTAMP',
};

/**
 * Canonical spelling of the niladic time functions: MariaDB reports `current_timestamp()`,
 * MySQL `CURRENT_TIMESTAMP`, models write `CURRENT_TIMESTAMP`; `current_timestamp(3)` becomes
 * `CURRENT_TIMESTAMP(3)`. Anything else is returned with whitespace collapsed.
 */
export function canonicalNowExpression(sql: string): string {
  const text = normalizeSqlText(sql);
  const lower = text.toLowerCase();
  const word = NOW_WORDS[lower];
  if (word) return word;
  const m = /^(current_timestamp|localtimestamp|current_time)\((\d+)\)$/.exec(lower);
  if (m) return `${m[1]!.toUpperCase()}(${m[2]})`;
  return text;
}

/**
 * Strip one pair of parentheses that encloses the whole text (`(a > 0)` → `a > 0`), repeatedly,
 * but not `(a) + (b)`.
 */
export function stripOuterParens(text: string): string {
  let t = text.trim();
  for (;;) {
    if (!t.startsWith('(') || !t.endsWith(')')) return t;
    let depth = 0;
    let quote: string | null = null;
    let closesAtEnd = true;
    for (let i = 0; i < t.length; i++) {
      const ch = t[i]!;
      if (quote) {
        if (ch === quote) quote = null;
        continue;
      }
      if (ch === "'" || ch === '"' || ch === '`') quote = ch;
      else if (ch === '(') depth++;
      else if (ch === ')') {
        depth--;
        if (depth === 0 && i < t.length - 1) {
          closesAtEnd = false;
          break;
        }
      }
    }
    if (!closesAtEnd) return t;
    t = t.slice(1, -1).trim();
  }
}

/**
 * Read a single-quoted SQL string literal at the start of `text`: `'it''s'` (doubled quote) and,
 * when `backslash` is true, `'it\'s'` / `'a\\b'` (MySQL, ClickHouse). Returns the value and the
 * text after the closing quote, or undefined when `text` does not start with a quote or is not
 * closed.
 */
export function readQuoted(text: string, backslash: boolean): { value: string; rest: string } | undefined {
  if (!text.startsWith("'")) return undefined;
  let value = '';
  for (let i = 1; i < text.length; i++) {
    const ch = text[i]!;
    if (backslash && ch === '\\' && i + 1 < text.length) {
      const next = text[i + 1]!;
      value += BACKSLASH_ESCAPES[next] ?? next;
      i++;
    } else if (ch === "'") {
      if (text[i + 1] === "'") {
        value += "'";
        i++;
      } else {
        return { value, rest: text.slice(i + 1) };
      }
    } else {
      value += ch;
    }
  }
  return undefined;
}

const BACKSLASH_ESCAPES: Record<string, string> = { n: '\n', r: '\r', t: '\t', '0': '\0', b: '\b', f: '\f', Z: '\x1a' };

/** The whole text is one quoted literal: its value, else undefined. */
export function wholeQuoted(text: string, backslash: boolean): string | undefined {
  const read = readQuoted(text.trim(), backslash);
  return read && read.rest.trim() === '' ? read.value : undefined;
}
