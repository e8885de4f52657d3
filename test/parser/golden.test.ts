/**
 * Golden files are the splitter's spec: `golden/<dialect>/<case>.sql` beside either
 * `<case>.expected.json` (the statements) or `<case>.error.txt` (the SqlSyntaxError message).
 * `UPDATE_GOLDEN=1 npx vitest run test/parser` rewrites them; review every diff by hand.
 */
import { existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SqlSyntaxError } from '../../src/errors.js';
import { splitStatements, type SplitDialect } from '../../src/parser/split-statements.js';

const root = join(dirname(fileURLToPath(import.meta.url)), 'golden');
const update = process.env.UPDATE_GOLDEN === '1';
const dialects: SplitDialect[] = ['postgresql', 'mysql', 'sqlite', 'clickhouse'];

function run(sql: string, dialect: SplitDialect, file: string) {
  try {
    return { statements: splitStatements(sql, { dialect, file }) };
  } catch (e) {
    if (e instanceof SqlSyntaxError) return { error: e };
    throw e;
  }
}

for (const dialect of dialects) {
  const folder = join(root, dialect);
  const cases = readdirSync(folder).filter((f) => f.endsWith('.sql')).map((f) => f.slice(0, -4)).sort();

  describe(`${dialect} golden files`, () => {
    it('has cases', () => {
      expect(cases.length).toBeGreaterThan(0);
    });

    for (const name of cases) {
      it(name, () => {
        const sqlPath = join(folder, `${name}.sql`);
        const jsonPath = join(folder, `${name}.expected.json`);
        const errorPath = join(folder, `${name}.error.txt`);
        const sql = readFileSync(sqlPath, 'utf8');
        const result = run(sql, dialect, `${dialect}/${name}.sql`);

        if (update) {
          rmSync(jsonPath, { force: true });
          rmSync(errorPath, { force: true });
          if (result.error) writeFileSync(errorPath, `${result.error.message}\n`);
          else {
            const rows = result.statements.map(({ text, line, column, offset }) => ({ text, line, column, offset }));
            writeFileSync(jsonPath, `${JSON.stringify(rows, null, 2)}\n`);
          }
          return;
        }

        if (existsSync(errorPath)) {
          expect(result.error?.message, 'expected a SqlSyntaxError').toBe(readFileSync(errorPath, 'utf8').trimEnd());
          expect(result.error?.code).toBe('MTOOL_SQL_SYNTAX');
          return;
        }
        if (!existsSync(jsonPath)) throw new Error(`${jsonPath} is missing: run UPDATE_GOLDEN=1 and review the file`);
        if (result.error) throw result.error;
        const got = result.statements;
        expect(got.map(({ text, line, column, offset }) => ({ text, line, column, offset })))
          .toEqual(JSON.parse(readFileSync(jsonPath, 'utf8')));
        // Byte offsets must cut exactly the statement text out of the UTF-8 file.
        const bytes = Buffer.from(sql, 'utf8');
        for (const s of got) expect(bytes.subarray(s.offset, s.endOffset).toString('utf8')).toBe(s.text);
      });
    }
  });
}
