import { describe, expect, it } from 'vitest';
import { splitPreset } from '../../src/parser/split-statements.js';
import { tokenize } from '../../src/parser/sql-tokens.js';
import type { SplitDialect } from '../../src/dialects/types.js';

const tokens = (sql: string, dialect: SplitDialect) => tokenize(sql, splitPreset(dialect))?.map((t) => `${t.kind}:${t.text}`);

/** The statement tokenizer reads dollar quotes and heredocs by the scanner's tag rule (quoteTagEnd), so the two never disagree. */
describe('tokenize: dollar quotes and heredocs', () => {
  it('PostgreSQL: $tag$ and $$ bodies are strings; $1 is a parameter; a tag is an identifier (letters beyond ASCII too)', () => {
    expect(tokens('SELECT $a$x;y$a$, $$z$$, $1 FROM t', 'postgresql')).toEqual(['word:SELECT', 'string:x;y', 'punct:,', 'string:z', 'punct:,', 'punct:$', 'number:1', 'word:FROM', 'word:t']);
    expect(tokens('SELECT $é$x$é$ FROM t', 'postgresql')).toEqual(['word:SELECT', 'string:x', 'word:FROM', 'word:t']);
    expect(tokens('SELECT $$ unclosed', 'postgresql')).toBeUndefined();
  });

  it('ClickHouse: $tag$ heredocs are strings; $x is a name; an unclosed one is left to the full parser', () => {
    expect(tokens('SELECT $tag$x$tag$, $x, $$y$$ FROM t', 'clickhouse')).toEqual(['word:SELECT', 'string:x', 'punct:,', 'punct:$', 'word:x', 'punct:,', 'string:y', 'word:FROM', 'word:t']);
    expect(tokens('SELECT $a$ unclosed', 'clickhouse')).toBeUndefined();
  });
});

/** Comments end where the splitter ends them: at LF, CRLF or a lone CR (old Mac line ends). */
describe('tokenize: line comments and lone CR', () => {
  it('a lone CR ends a -- comment, and on MySQL a # comment, so the name after it is read', () => {
    expect(tokens('ALTER TABLE -- which one\rusers ADD c int', 'postgresql')).toEqual(['word:ALTER', 'word:TABLE', 'word:users', 'word:ADD', 'word:c', 'word:int']);
    expect(tokens('DROP TABLE # old\rlegacy', 'mysql')).toEqual(['word:DROP', 'word:TABLE', 'word:legacy']);
    expect(tokens('DROP TABLE -- x\r\nlegacy', 'sqlite')).toEqual(['word:DROP', 'word:TABLE', 'word:legacy']);
  });
});
