/**
 * psql's `COPY ... FROM STDIN` (how `pg_dump` writes a table's data): the statement's rows follow
 * it in the script, one a line, up to a line `\.`, for psql to send. They are not SQL: a name such
 * as `O'Brien` in a row would open a string literal that swallows the statements after it.
 */

/** `COPY ... FROM STDIN` (a quoted table name may hold a `;`: `COPY public."a;b" FROM stdin`). */
export const COPY_FROM_STDIN = /^COPY\b[\s\S]*?\bFROM\s+STDIN\b/i;

/**
 * Where the data lines of a `COPY ... FROM STDIN` whose terminator ends at `from` end: at the line
 * break after the line `\.` that closes them (or the end of the input, where psql stops too).
 * `from` when more than whitespace follows the terminator on its line: psql would run that as
 * SQL, and the rows start only on the next line, so nothing is taken for data.
 */
export function endOfCopyData(sql: string, from: number): number {
  const n = sql.length;
  const lineEnd = sql.indexOf('\n', from);
  const firstRow = lineEnd < 0 ? n : lineEnd + 1;
  if (sql.slice(from, firstRow).trim() !== '') return from;
  // psql ends the rows at a line of `\.` alone, its line break LF or CRLF.
  for (let at = sql.indexOf('\\.', firstRow); at >= 0; at = sql.indexOf('\\.', at + 2)) {
    if (at !== firstRow && sql.charCodeAt(at - 1) !== 10) continue;
    const next = sql.charCodeAt(at + 2) === 13 ? at + 3 : at + 2;
    if (next >= n || sql.charCodeAt(next) === 10) return Math.min(next, n);
  }
  return n;
}
