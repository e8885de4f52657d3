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
