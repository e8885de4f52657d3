import type { SqlStatement } from './split-statements.js';

/**
 * psql meta-commands in a PostgreSQL migration. A line starting with a backslash is for psql, not
 * for the server; the splitter, which knows SQL only, takes it as the first words of the statement
 * after it. pg_dump writes `\restrict <key>` at the top of every dump and `\unrestrict <key>` at
 * its end (since PostgreSQL 13.22, 14.19, 15.14, 16.10 and 17.6): they only stop psql from running
 * other meta-commands found in the dump, so without psql they mean nothing and are dropped, which
 * lets a `pg_dump --schema-only` serve as a first migration. Any other meta-command (`\connect`,
 * `\set`, `\i` ...) does something mtool cannot, and is refused with its line.
 */

/** Meta-commands that mean nothing outside psql. */
const DROPPED = new Set(['restrict', 'unrestrict']);

/** `COPY ... FROM STDIN`: its rows follow in the file, for psql to send (pg_dump's data). */
const COPY_FROM_STDIN = /^COPY\b[^;]*?\bFROM\s+STDIN\b/i;

/**
 * The statements with leading `\restrict` / `\unrestrict` lines dropped (a statement of nothing
 * else disappears); `refuse(line, why)` is called for any other meta-command at a statement's
 * start, and for `COPY ... FROM STDIN`, whose rows only psql sends. Positions of a trimmed
 * statement move to its first token.
 */
export function withoutPsqlMetaCommands(statements: SqlStatement[], refuse: (line: number, why: string) => never): SqlStatement[] {
  const kept: SqlStatement[] = [];
  for (const statement of statements) {
    let st: SqlStatement | undefined = statement;
    while (st !== undefined && st.text.charCodeAt(0) === 0x5c) {
      const command = /^\\([A-Za-z.]*)/.exec(st.text)![1]!;
      if (!DROPPED.has(command)) {
        refuse(st.line, `'\\${command}' is a psql meta-command: psql runs it, the server cannot (mtool sends a migration's statements to the server); remove the line`);
      }
      st = afterFirstLine(st);
    }
    if (st === undefined) continue;
    if ((st.text.charCodeAt(0) | 0x20) === 0x63 && COPY_FROM_STDIN.test(st.text)) {
      refuse(st.line, `COPY ... FROM STDIN takes its rows from psql, which mtool is not: dump the data as INSERT statements (pg_dump --inserts or --column-inserts), or load it with psql`);
    }
    kept.push(st);
  }
  return kept;
}

/** The statement without its first line and the blank lines and comments after it; undefined when nothing is left. */
function afterFirstLine(st: SqlStatement): SqlStatement | undefined {
  const text = st.text;
  let i = text.indexOf('\n');
  if (i < 0) return undefined;
  let line = st.line + 1;
  let lineStart = i + 1;
  i += 1;
  for (;;) {
    const c = text.charCodeAt(i);
    if (c === 0x0a) {
      line++;
      lineStart = i + 1;
      i++;
    } else if (c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0c) {
      i++;
    } else if (c === 0x2d && text.charCodeAt(i + 1) === 0x2d) {
      const end = text.indexOf('\n', i);
      if (end < 0) return undefined;
      i = end;
    } else if (c === 0x2f && text.charCodeAt(i + 1) === 0x2a) {
      // PostgreSQL's block comments nest.
      let depth = 0;
      do {
        if (text.startsWith('/*', i)) {
          depth++;
          i += 2;
        } else if (text.startsWith('*/', i)) {
          depth--;
          i += 2;
        } else {
          if (text.charCodeAt(i) === 0x0a) {
            line++;
            lineStart = i + 1;
          }
          i++;
        }
      } while (depth > 0 && i < text.length);
    } else {
      break;
    }
  }
  if (i >= text.length) return undefined;
  return {
    text: text.slice(i),
    line,
    column: i - lineStart + 1,
    offset: st.offset + Buffer.byteLength(text.slice(0, i), 'utf8'),
    endOffset: st.endOffset,
  };
}
