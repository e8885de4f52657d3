import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SqlSyntaxError } from '../../src/errors.js';
import { IN_CODE, LexicalCursor } from '../../src/parser/lexical-cursor.js';
import { checksumOf, parseMigrationFile } from '../../src/parser/migration-file.js';
import { SPLIT_PRESETS } from '../../src/parser/presets.js';
import { splitStatements, type SplitDialect } from '../../src/parser/split-statements.js';
import { statement } from './sql-arbitraries.js';

function parse(content: string, dialect: SplitDialect = 'postgresql') {
  return parseMigrationFile({ filename: 'app__0001_init.sql', path: 'migrations/app/app__0001_init.sql', content, database: 'app', dialect });
}

const texts = (statements: readonly { text: string }[] | undefined) => statements?.map((s) => s.text);

/** Lines that look like markers and directives: inside a comment or a quoted run they are text. */
const LOOKALIKES = '\n-- rollback\n-- mtool: irreversible\n-- mtool: no-transaction\n  -- upgrade\n-- mtool: no-such-directive\n';

/** Per dialect, runs that span lines: a string, a quoted name, a dollar body, a comment. `%` is where the lines go. */
const SPANNING: Record<SplitDialect, string[]> = {
  postgresql: ["'%'", "'it''s%'", "E'it\\'s%'", '$$%$$', '$body$ $$ %$body$', '"%"', '/*%*/', '/* /* nested */ %*/', "U&'%'"],
  mysql: ["'%'", "'it\\'s%'", '"it\\"s%"', '`%`', '/*%*/', '/*!50000 1 %*/'],
  sqlite: ["'%'", '"%"', '`%`', '[%]', '/*%*/'],
  clickhouse: ["'%'", "'it\\'s%'", '"%"', '`%`', '$$%$$', '$heredoc$ %$heredoc$', '/* /* nested */ %*/'],
};

describe('parseMigrationFile: markers and directives count only in code', () => {
  for (const [dialect, runs] of Object.entries(SPANNING) as [SplitDialect, string[]][]) {
    it(`${dialect}: reads marker-looking lines inside ${runs.join(' ')} as SQL text`, () => {
      for (const run of runs) {
        const spanning = run.replace('%', LOOKALIKES);
        const file = parse(`-- upgrade\nSELECT ${spanning} AS x;\nSELECT 2;\n-- rollback\nSELECT 3;\n`, dialect);
        expect(texts(file.upgrade), run).toEqual([`SELECT ${spanning} AS x`, 'SELECT 2']);
        expect(texts(file.rollback), run).toEqual(['SELECT 3']);
        expect(file.directives, run).toEqual([]);
        expect(file.irreversible, run).toBe(false);
      }
    });
  }

  it('ignores a directive commented out with /* ... */, before and after -- upgrade', () => {
    const file = parse('/*\n-- mtool: no-transaction\n*/\n-- upgrade\n/*\n-- mtool: irreversible\n*/\nCREATE INDEX CONCURRENTLY i ON t (a);\n-- rollback\nDROP INDEX i;\n');
    expect(file.directives).toEqual([]);
    expect(file.irreversible).toBe(false);
    expect(texts(file.upgrade)).toEqual(['CREATE INDEX CONCURRENTLY i ON t (a)']);
    expect(texts(file.rollback)).toEqual(['DROP INDEX i']);
  });

  it('keeps a plpgsql body whole when a line in it reads -- rollback', () => {
    const body = 'CREATE FUNCTION f() RETURNS trigger AS $$\nBEGIN\n-- rollback\n  RETURN NEW;\nEND;\n$$ LANGUAGE plpgsql';
    const file = parse(`-- upgrade\n${body};\n`);
    expect(texts(file.upgrade)).toEqual([body]);
    expect(file.rollback).toBeUndefined();
    // With a real rollback section after it: no "second '-- rollback' section".
    const both = parse(`-- upgrade\n${body};\n-- rollback\nDROP FUNCTION f;\n`);
    expect(texts(both.upgrade)).toEqual([body]);
    expect(texts(both.rollback)).toEqual(['DROP FUNCTION f']);
  });

  it('does not turn a directive on from inside a multi-line string', () => {
    const file = parse("-- upgrade\nINSERT INTO notes VALUES ('line one\n-- mtool: irreversible\n');\n-- rollback\nDELETE FROM notes;\n");
    expect(file.irreversible).toBe(false);
    expect(file.directives).toEqual([]);
    expect(texts(file.rollback)).toEqual(['DELETE FROM notes']);
  });

  it('does not see the SQL inside a nested comment before -- upgrade as SQL (PostgreSQL comments nest)', () => {
    const file = parse('/* outer\n/* inner */\n-- upgrade\nSELECT 0;\n*/\n-- upgrade\nSELECT 1;\n');
    expect(texts(file.upgrade)).toEqual(['SELECT 1']);
  });

  it('still counts markers after comments and strings that close, and in a BEGIN ATOMIC body', () => {
    const file = parse([
      '-- mtool: no-transaction', "-- it's a header comment", '-- upgrade',
      "SELECT 'a', E'b\\'', $$c$$, $1, a$$b FROM t; -- don't",
      '/* block; it\'s */ SELECT 1',
      '-- rollback',
      ';',
    ].join('\n'));
    expect(file.directives).toEqual(['no-transaction']);
    expect(texts(file.upgrade)).toEqual(["SELECT 'a', E'b\\'', $$c$$, $1, a$$b FROM t", 'SELECT 1']);
    expect(texts(file.rollback)).toEqual([]);
  });

  it('leaves the checksum on the raw bytes', () => {
    const content = "-- upgrade\nSELECT '\n-- rollback\n';\n";
    expect(parse(content).checksum).toBe(checksumOf(content));
  });

  it('reports an unterminated string that swallows a marker where the string starts', () => {
    expect(() => parse("-- upgrade\nSELECT 'open;\n-- rollback\nSELECT 2;\n")).toThrow(/app__0001_init\.sql:2:8: unterminated string literal/);
  });

  for (const dialect of ['postgresql', 'mysql', 'sqlite', 'clickhouse'] as const) {
    it(`${dialect}: splits any upgrade and rollback statements at their markers, as before`, () => {
      fc.assert(
        fc.property(fc.array(statement(dialect), { minLength: 1, maxLength: 4 }), fc.array(statement(dialect), { maxLength: 3 }), (up, down) => {
          const content = `-- upgrade\n${up.map((s) => `${s};\n`).join('')}-- rollback\n${down.map((s) => `${s};\n`).join('')}`;
          const file = parse(content, dialect);
          expect(texts(file.upgrade)).toEqual(up);
          expect(texts(file.rollback)).toEqual(down);
        }),
        { numRuns: 200 },
      );
    });
  }
});

describe('LexicalCursor agrees with the splitter', () => {
  // ClickHouse's `$` is left out: a heredoc closed after a line is, in the text cut at that
  // line, an unclosed `$tag$`, which is a name and no error.
  const alphabet = (dialect: SplitDialect) => fc.constantFrom(
    ';', "'", '"', '`', '\\', '-', '--', '/', '*', '/*', '*/', '#', '# ', '#!', '[', ']', '\n', '\n', ' ', 'a', 'E', 'e', '1', 'é', '!',
    ...(dialect === 'clickhouse' ? [] : ['$', '$$', '$a$', '$1']),
  );
  for (const dialect of ['postgresql', 'mysql', 'sqlite', 'clickhouse'] as const) {
    it(`${dialect}: a line starts in code exactly where the text before it leaves no quote or comment open`, () => {
      fc.assert(
        fc.property(fc.array(alphabet(dialect), { maxLength: 60 }).map((a) => a.join('')), (sql) => {
          const cursor = new LexicalCursor(sql, SPLIT_PRESETS[dialect]);
          for (let at = sql.indexOf('\n'); at >= 0; at = sql.indexOf('\n', at + 1)) {
            const inCode = cursor.contextAt(at + 1) === IN_CODE;
            let open = false;
            try {
              splitStatements(sql.slice(0, at + 1), { dialect });
            } catch (e) {
              if (!(e instanceof SqlSyntaxError)) throw e;
              // A block left open (BEGIN ... END) is no lexical matter.
              open = !/unterminated (BEGIN|CREATE TRIGGER)/.test(e.message);
            }
            expect(inCode, JSON.stringify(sql.slice(0, at + 1))).toBe(!open);
          }
        }),
        { numRuns: 1000 },
      );
    });
  }
});
