import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SqlSyntaxError } from '../../src/errors.js';
import { splitStatements, type SplitDialect } from '../../src/parser/split-statements.js';
import { gap, statement } from './sql-arbitraries.js';

const dialects: SplitDialect[] = ['postgresql', 'mysql', 'sqlite', 'clickhouse'];

/** Line, column (UTF-16) and UTF-8 byte offset of string index `at`, computed the slow, obvious way. */
function expectedPosition(text: string, at: number, startLine = 1) {
  const before = text.slice(0, at);
  const lines = before.split(/\r\n|\r|\n/);
  return {
    line: startLine + lines.length - 1,
    column: lines[lines.length - 1].length + 1,
    offset: Buffer.byteLength(before, 'utf8'),
  };
}

for (const dialect of dialects) {
  describe(`${dialect}: splitting joined statements`, () => {
    it('gives back exactly the statements joined with ;\\n', () => {
      fc.assert(
        fc.property(fc.array(statement(dialect), { minLength: 1, maxLength: 6 }), (stmts) => {
          const sql = stmts.join(';\n');
          expect(splitStatements(sql, { dialect }).map((s) => s.text)).toEqual(stmts);
        }),
        { numRuns: 400 },
      );
    });

    it('points line, column, offset and endOffset at each statement, with comments and empty statements between', () => {
      fc.assert(
        fc.property(
          fc.array(fc.tuple(gap(dialect), statement(dialect), fc.constantFrom(';', ';;', ' ;', ';\n;')), { minLength: 1, maxLength: 5 }),
          gap(dialect),
          fc.integer({ min: 1, max: 500 }),
          (parts, tail, startLine) => {
            let sql = '';
            const starts: number[] = [];
            for (const [before, stmt, terminator] of parts) {
              sql += before;
              starts.push(sql.length);
              sql += stmt + terminator;
            }
            sql += tail;
            const got = splitStatements(sql, { dialect, startLine });
            expect(got.map((s) => s.text)).toEqual(parts.map((p) => p[1]));
            got.forEach((s, k) => {
              const want = expectedPosition(sql, starts[k], startLine);
              expect({ line: s.line, column: s.column, offset: s.offset }).toEqual(want);
              expect(s.endOffset - s.offset).toBe(Buffer.byteLength(s.text, 'utf8'));
            });
          },
        ),
        { numRuns: 300 },
      );
    });

    it('on any input either throws SqlSyntaxError or returns ordered, non-empty slices of the input', () => {
      const alphabet = fc.constantFrom(';', "'", '"', '`', '\\', '$', '-', '/', '*', '#', '[', ']', '\n', ' ', 'a', 'E', 'é', 'begin', 'end', 'atomic', 'case');
      fc.assert(
        fc.property(fc.array(alphabet, { maxLength: 40 }).map((a) => a.join('')), (sql) => {
          let got;
          try {
            got = splitStatements(sql, { dialect });
          } catch (e) {
            expect(e).toBeInstanceOf(SqlSyntaxError);
            return;
          }
          const bytes = Buffer.from(sql, 'utf8');
          let previousEnd = 0;
          for (const s of got) {
            expect(s.text.length).toBeGreaterThan(0);
            expect(s.offset).toBeGreaterThanOrEqual(previousEnd);
            expect(bytes.subarray(s.offset, s.endOffset).toString('utf8')).toBe(s.text);
            previousEnd = s.endOffset;
          }
        }),
        { numRuns: 1000 },
      );
    });
  });
}

describe('mysql: statements between DELIMITER lines', () => {
  it('gives back the statements, semicolons inside included', () => {
    fc.assert(
      fc.property(fc.array(statement('mysql'), { minLength: 1, maxLength: 5 }), fc.constantFrom('$$', '//', ';;', 'GO'), (stmts, delim) => {
        const body = stmts.map((s) => `${s}; ${s}`);
        const sql = `DELIMITER ${delim}\n${body.join(`${delim}\n`)}${delim}\nDELIMITER ;\nSELECT 1;`;
        expect(splitStatements(sql, { dialect: 'mysql' }).map((s) => s.text)).toEqual([...body, 'SELECT 1']);
      }),
      { numRuns: 200 },
    );
  });
});

describe('block bodies: qualified names and aliases spelled like keywords', () => {
  // Each statement in a body starts with SELECT: a statement never starts with a `.`, and
  // `BEGIN .x` would make BEGIN a qualifier.
  const bodies = {
    postgresql: (stmts: string[]) => `CREATE FUNCTION f() RETURNS int LANGUAGE sql\nBEGIN ATOMIC\n${stmts.map((s) => `SELECT ${s};\n`).join('')}END`,
    mysql: (stmts: string[]) => `CREATE PROCEDURE p()\nBEGIN\n${stmts.map((s) => `SELECT ${s};\n`).join('')}END`,
    sqlite: (stmts: string[]) => `CREATE TRIGGER tr AFTER INSERT ON t\nBEGIN\n${stmts.map((s) => `SELECT ${s};\n`).join('')}END`,
  } as const;
  for (const [dialect, body] of Object.entries(bodies) as [keyof typeof bodies, (stmts: string[]) => string][]) {
    it(`${dialect}: t.end, x . case, begin.y, x AS end ... neither open nor close the body`, () => {
      fc.assert(
        fc.property(fc.array(statement(dialect, true), { minLength: 1, maxLength: 4 }), fc.array(statement(dialect, true), { minLength: 1, maxLength: 3 }), (inside, after) => {
          const block = body(inside);
          const sql = `${block};\n${after.join(';\n')}`;
          expect(splitStatements(sql, { dialect }).map((s) => s.text)).toEqual([block, ...after]);
        }),
        { numRuns: 300 },
      );
    });
  }
});
