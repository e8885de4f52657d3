/**
 * Small scanners over DDL text the servers hand back (SQLite's `sqlite_schema.sql`, ClickHouse's
 * `create_table_query`), for the parts no catalog table reports. They understand quotes
 * ('...', "...", `...`, [...]), nested parentheses and comments; nothing more.
 */

export interface ScanOptions {
  /** Backslash escapes inside quotes (ClickHouse, MySQL). Default false. */
  backslash?: boolean;
}

const OPEN = 40; // (
const CLOSE = 41; // )

/**
 * Walk `text` from `from`, calling `visit(i, depth)` for the characters outside quotes and
 * comments whose code is `a` or `b`, with the parenthesis depth before that character. Returning
 * false stops the walk. The codes keep the callback off the characters a scanner ignores:
 * introspection walks every column of every table.
 */
function walk(text: string, options: ScanOptions, visit: (i: number, depth: number) => boolean | void, a: number, b = a, from = 0): void {
  let depth = 0;
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 39 || c === 34 || c === 96 || c === 91) {
      // ' " ` [ … ] (a doubled closing quote is one character; backslash escapes with the option)
      const close = c === 91 ? 93 : c;
      let j = i + 1;
      for (; j < text.length; j++) {
        const d = text.charCodeAt(j);
        if (options.backslash && d === 92 && c !== 91) {
          j++;
          continue;
        }
        if (d === close) {
          if (close !== 93 && text.charCodeAt(j + 1) === close) {
            j++;
            continue;
          }
          break;
        }
      }
      i = j;
      continue;
    }
    if (c === 45 && text.charCodeAt(i + 1) === 45) {
      // -- to the end of the line
      const end = text.indexOf('\n', i);
      i = end < 0 ? text.length : end;
      continue;
    }
    if (c === 47 && text.charCodeAt(i + 1) === 42) {
      // /* … */
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 1;
      continue;
    }
    if ((c === a || c === b) && visit(i, depth) === false) return;
    if (c === OPEN) depth++;
    else if (c === CLOSE) depth--;
  }
}

/** Split at commas outside quotes, comments and parentheses; pieces trimmed, empty ones dropped. */
export function splitTopLevel(text: string, options: ScanOptions = {}): string[] {
  const parts: string[] = [];
  let start = 0;
  walk(
    text,
    options,
    (i, depth) => {
      if (depth === 0) {
        parts.push(text.slice(start, i).trim());
        start = i + 1;
      }
    },
    44, // ,
  );
  parts.push(text.slice(start).trim());
  return parts.filter((p) => p !== '');
}

/**
 * Index of the parenthesis closing the one at `open` (outside quotes and comments), or -1.
 * @example matchingParen('f(a, (b)) x', 1) // 8
 */
export function matchingParen(text: string, open: number): number {
  return closingParen(text, open, {});
}

/** Like {@link matchingParen}, with backslash escapes in quotes. */
export function matchingParenEscaped(text: string, open: number): number {
  return closingParen(text, open, { backslash: true });
}

function closingParen(text: string, open: number, options: ScanOptions): number {
  let found = -1;
  walk(
    text,
    options,
    (i, depth) => {
      if (depth !== 1) return true;
      found = i;
      return false;
    },
    CLOSE,
    CLOSE,
    open,
  );
  return found;
}

/** A keyword anywhere in a text, ASCII case-insensitively: the quick test before the walk. */
const anywhere = new Map<string, RegExp>();

/** `A`-`Z`, `a`-`z`, `0`-`9`, `_`, `$` (NaN, before the start or past the end, is none). */
function isWordCode(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 36;
}

/**
 * Positions of a keyword (case-insensitive in ASCII, as SQL keywords are; whole word) at
 * parenthesis depth 0, outside quotes and comments. A text without the keyword anywhere is not
 * walked, and the walk compares character codes: introspection calls this several times for each
 * column of every table (SQLite: 1000 tables of seven columns took 67 ms cold, mostly here).
 */
export function findTopLevelKeyword(text: string, keyword: string, options: ScanOptions = {}): number[] {
  const word = keyword.toUpperCase();
  let test = anywhere.get(word);
  if (test === undefined) anywhere.set(word, (test = new RegExp(word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'i')));
  if (!test.test(text)) return [];
  const found: number[] = [];
  const first = word.charCodeAt(0);
  walk(
    text,
    options,
    (i, depth) => {
      if (depth !== 0 || isWordCode(text.charCodeAt(i - 1))) return;
      for (let k = 1; k < word.length; k++) {
        const c = text.charCodeAt(i + k);
        if ((c >= 97 && c <= 122 ? c - 32 : c) !== word.charCodeAt(k)) return;
      }
      if (isWordCode(text.charCodeAt(i + word.length))) return;
      found.push(i);
    },
    // The keyword's first letter in either case.
    first,
    first >= 65 && first <= 90 ? first + 32 : first,
  );
  return found;
}

/** Read one identifier at the start of `text` (quoted in any style, or bare). */
export function readIdentifier(text: string): { name: string; rest: string } | undefined {
  const t = text.trimStart();
  const open = t[0];
  if (open === '"' || open === '`' || open === '[') {
    const close = open === '[' ? ']' : open;
    let name = '';
    for (let i = 1; i < t.length; i++) {
      if (t[i] === close) {
        if (close !== ']' && t[i + 1] === close) {
          name += close;
          i++;
          continue;
        }
        return { name, rest: t.slice(i + 1) };
      }
      name += t[i];
    }
    return undefined;
  }
  const m = /^[A-Za-z_\u0080-\uffff][A-Za-z0-9_$\u0080-\uffff]*/.exec(t);
  return m ? { name: m[0], rest: t.slice(m[0].length) } : undefined;
}
