/**
 * Small scanners over DDL text the servers hand back (SQLite's `sqlite_schema.sql`, ClickHouse's
 * `create_table_query`), for the parts no catalog table reports. They understand quotes
 * ('...', "...", `...`, [...]), nested parentheses and comments; nothing more.
 */

export interface ScanOptions {
  /** Backslash escapes inside quotes (ClickHouse, MySQL). Default false. */
  backslash?: boolean;
}

/**
 * Walk `text`, calling `visit(i, depth)` for every character outside quotes and comments, with
 * the parenthesis depth before that character. Returning false stops the walk.
 */
function walk(text: string, options: ScanOptions, visit: (i: number, depth: number) => boolean | void): void {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === "'" || ch === '"' || ch === '`' || ch === '[') {
      const close = ch === '[' ? ']' : ch;
      let j = i + 1;
      for (; j < text.length; j++) {
        const c = text[j]!;
        if (options.backslash && c === '\\' && ch !== '[') {
          j++;
          continue;
        }
        if (c === close) {
          if (close !== ']' && text[j + 1] === close) {
            j++;
            continue;
          }
          break;
        }
      }
      i = j;
      continue;
    }
    if (ch === '-' && text[i + 1] === '-') {
      const end = text.indexOf('\n', i);
      i = end < 0 ? text.length : end;
      continue;
    }
    if (ch === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 1;
      continue;
    }
    if (visit(i, depth) === false) return;
    if (ch === '(') depth++;
    else if (ch === ')') depth--;
  }
}

/** Split at commas outside quotes, comments and parentheses; pieces trimmed, empty ones dropped. */
export function splitTopLevel(text: string, options: ScanOptions = {}): string[] {
  const parts: string[] = [];
  let start = 0;
  walk(text, options, (i, depth) => {
    if (text[i] === ',' && depth === 0) {
      parts.push(text.slice(start, i).trim());
      start = i + 1;
    }
  });
  parts.push(text.slice(start).trim());
  return parts.filter((p) => p !== '');
}

/**
 * Index of the parenthesis closing the one at `open` (outside quotes and comments), or -1.
 * @example matchingParen('f(a, (b)) x', 1) // 8
 */
export function matchingParen(text: string, open: number): number {
  let found = -1;
  walk(text.slice(open), {}, (i, depth) => {
    if (text[open + i] === ')' && depth === 1) {
      found = open + i;
      return false;
    }
    return true;
  });
  return found;
}

/** Like {@link matchingParen}, with backslash escapes in quotes. */
export function matchingParenEscaped(text: string, open: number): number {
  let found = -1;
  walk(text.slice(open), { backslash: true }, (i, depth) => {
    if (text[open + i] === ')' && depth === 1) {
      found = open + i;
      return false;
    }
    return true;
  });
  return found;
}

/**
 * Positions of a keyword (case-insensitive, whole word) at parenthesis depth 0, outside quotes
 * and comments.
 */
export function findTopLevelKeyword(text: string, keyword: string, options: ScanOptions = {}): number[] {
  const found: number[] = [];
  const word = keyword.toUpperCase();
  const isWordChar = (c: string | undefined) => c !== undefined && /[A-Za-z0-9_$]/.test(c);
  walk(text, options, (i, depth) => {
    if (depth !== 0) return;
    if (isWordChar(text[i - 1])) return;
    if (text.slice(i, i + word.length).toUpperCase() !== word) return;
    if (isWordChar(text[i + word.length])) return;
    found.push(i);
  });
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
