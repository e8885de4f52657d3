import { COPY_FROM_STDIN } from './copy-data.js';
import { endOfLine } from './scanner.js';
import { splitStatements, type SqlStatement } from './split-statements.js';

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

/**
 * The statement without its first line: the rest split again, so the splitter skips the blank
 * lines and comments before its first token and places it; undefined when nothing is left.
 */
function afterFirstLine(st: SqlStatement): SqlStatement | undefined {
  // Lines end at LF, CRLF or a lone CR, as psql and the splitter end them: with LF alone, the
  // statement after a meta-command line ended by a lone CR was dropped with it.
  const end = endOfLine(st.text, 0, true);
  if (end >= st.text.length) return undefined;
  const after = end + (st.text.charCodeAt(end) === 13 && st.text.charCodeAt(end + 1) === 10 ? 2 : 1);
  const rest = st.text.slice(after);
  // One statement at most: the splitter ended this one at its terminator already.
  const [next] = splitStatements(rest, { dialect: 'postgresql', startLine: st.line + 1 });
  if (next === undefined) return undefined;
  const base = st.offset + Buffer.byteLength(st.text.slice(0, after), 'utf8');
  return { ...next, offset: base + next.offset, endOffset: base + next.endOffset };
}
