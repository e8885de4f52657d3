import { matchingParenEscaped, splitTopLevel } from './ddl-scan.js';
import { normalizeSqlText } from './ir.js';

/**
 * ClickHouse table-spec spellings that `compileModels` and the ClickHouse introspector must both
 * produce, so a model and the table built from it compare equal. One function per field, used by
 * both sides: never normalize these fields anywhere else.
 */

/**
 * A key expression (`ORDER BY`, `PRIMARY KEY`, `PARTITION BY`, `SAMPLE BY`) as the IR stores it:
 * top-level items joined by `, `, without the parentheses that group them. The server formats its
 * AST the same way (`ORDER BY ((a), b)` is shown as `ORDER BY (a, b)`), so `'(a, b)'`,
 * `['a', 'b']`, `'a, b'` and `['(a)', 'b']` all become `a, b`. An empty list is `tuple()`, which is
 * how ClickHouse spells "no key". `null`/`undefined` (clause absent) stay `null`.
 * @example normalizeClickHouseKey('(id, toDate(ts))') // 'id, toDate(ts)'
 * @example normalizeClickHouseKey(['id', 'd']) // 'id, d'
 */
export function normalizeClickHouseKey(value: string | readonly string[] | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  const items = (typeof value === 'string' ? [value] : value)
    .flatMap((v) => splitTopLevel(stripGroupingParens(v), { backslash: true }))
    .map((item) => normalizeSqlText(stripGroupingParens(item)))
    .filter((item) => item !== '');
  return items.length === 0 ? 'tuple()' : items.join(', ');
}

/**
 * An engine as the IR stores it: whitespace collapsed and always with its argument list, since
 * `MergeTree` and `MergeTree()` are the same engine and servers show either.
 * @example normalizeClickHouseEngine('MergeTree') // 'MergeTree()'
 * @example normalizeClickHouseEngine('ReplacingMergeTree(ver)') // 'ReplacingMergeTree(ver)'
 */
export function normalizeClickHouseEngine(text: string): string {
  const t = normalizeSqlText(text);
  return t === '' || t.includes('(') ? t : `${t}()`;
}

/** Remove parentheses enclosing the whole text, repeatedly (`((a, b))` → `a, b`; `(a) + (b)` is kept). */
function stripGroupingParens(text: string): string {
  let t = text.trim();
  while (t.startsWith('(') && matchingParenEscaped(t, 0) === t.length - 1) t = t.slice(1, -1).trim();
  return t;
}
