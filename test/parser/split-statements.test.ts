import { describe, expect, it } from 'vitest';
import { MtoolError, SqlSyntaxError } from '../../src/errors.js';
import { splitStatements, type SplitDialect } from '../../src/parser/split-statements.js';

describe('splitStatements options and errors', () => {
  it('counts lines from startLine, for sections split separately', () => {
    const got = splitStatements('\n\nSELECT 1;\nSELECT 2', { dialect: 'postgresql', startLine: 40 });
    expect(got.map((s) => [s.line, s.column])).toEqual([[42, 1], [43, 1]]);
  });

  it('puts the file, line and column of the construct start in the message and the position', () => {
    let err: unknown;
    try {
      splitStatements("SELECT 1;\n  SELECT 'é\n;", { dialect: 'postgresql', file: 'migrations/app/app__0001_init.sql', startLine: 10 });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(SqlSyntaxError);
    const e = err as SqlSyntaxError;
    expect(e.code).toBe('MTOOL_SQL_SYNTAX');
    expect(e.message).toBe("migrations/app/app__0001_init.sql:11:10: unterminated string literal: add the closing '");
    expect(e.position).toEqual({ line: 11, column: 10, offset: 19 });
    expect(e.file).toBe('migrations/app/app__0001_init.sql');
  });

  it('rejects an unknown dialect and a bad startLine as internal errors', () => {
    expect(() => splitStatements('SELECT 1', { dialect: 'oracle' as SplitDialect })).toThrow(/unknown dialect "oracle"/);
    expect(() => splitStatements('SELECT 1', { dialect: 'toString' as SplitDialect })).toThrow(MtoolError);
    expect(() => splitStatements('SELECT 1', { dialect: 'sqlite', startLine: 0 })).toThrow(/startLine/);
  });

  it('reads the same text by each dialect\'s rules', () => {
    const sql = "SELECT 'a\\'; SELECT 2; # x;\nSELECT 3";
    // Standard strings: the backslash is a character, so the string ends at \' and `#` is an operator.
    expect(splitStatements(sql, { dialect: 'postgresql' }).map((s) => s.text)).toEqual(["SELECT 'a\\'", 'SELECT 2', '# x', 'SELECT 3']);
    // Backslash escapes: the string runs on to the next quote... which never comes.
    expect(() => splitStatements(sql, { dialect: 'mysql' })).toThrow(SqlSyntaxError);
    expect(splitStatements("SELECT 'a\\';'; # x;\nSELECT 3", { dialect: 'mysql' }).map((s) => s.text)).toEqual(["SELECT 'a\\';'", 'SELECT 3']);
  });

  it('ends a word at a custom delimiter made of word characters (END$$)', () => {
    const sql = 'DELIMITER $$\nCREATE PROCEDURE p() BEGIN SELECT 1; END$$\nDELIMITER ;\nSELECT a$b;';
    expect(splitStatements(sql, { dialect: 'mysql' }).map((s) => s.text)).toEqual(['CREATE PROCEDURE p() BEGIN SELECT 1; END', 'SELECT a$b']);
  });

  it('heals a misread IF inside a CASE expression at the next END', () => {
    const sql = "CREATE PROCEDURE p() BEGIN SELECT CASE WHEN a THEN IF(b, 1, 2) ELSE 3 END; SELECT 4; END; SELECT 5;";
    expect(splitStatements(sql, { dialect: 'mysql' }).map((s) => s.text)).toEqual([
      'CREATE PROCEDURE p() BEGIN SELECT CASE WHEN a THEN IF(b, 1, 2) ELSE 3 END; SELECT 4; END',
      'SELECT 5',
    ]);
  });

  it('treats $1 as a parameter, not the start of a dollar quote', () => {
    expect(splitStatements('SELECT $1; SELECT $2::int;', { dialect: 'postgresql' }).map((s) => s.text)).toEqual(['SELECT $1', 'SELECT $2::int']);
  });
});

describe('splitStatements block detection needs the first words', () => {
  it('does not take a SQLite trigger header that follows other tokens for a trigger', () => {
    // `(SELECT ...)`: the first token is punctuation, so `create trigger` later is not a header.
    const sql = 'SELECT 1 AS begin_x; (SELECT 2); CREATE TRIGGER t AFTER INSERT ON x BEGIN SELECT 1; END; SELECT 3;';
    expect(splitStatements(sql, { dialect: 'sqlite' }).map((s) => s.text)).toEqual([
      'SELECT 1 AS begin_x', '(SELECT 2)', 'CREATE TRIGGER t AFTER INSERT ON x BEGIN SELECT 1; END', 'SELECT 3',
    ]);
  });

  it('sees CREATE as the first word of a MySQL statement only', () => {
    const sql = "SELECT 'create' AS x, create_time FROM t; CREATE PROCEDURE p() BEGIN SELECT 1; END; SELECT 2;";
    expect(splitStatements(sql, { dialect: 'mysql' }).map((s) => s.text)).toEqual([
      "SELECT 'create' AS x, create_time FROM t", 'CREATE PROCEDURE p() BEGIN SELECT 1; END', 'SELECT 2',
    ]);
  });
});

describe('splitStatements byte offsets', () => {
  it('match Buffer offsets when non-ASCII text is far apart, dense, or a lone surrogate', () => {
    const pad = 'x'.repeat(300);
    const parts = [`SELECT '${pad}é'`, `SELECT '${pad}'`, "SELECT '日本語😀😀'", `SELECT '\ud800 lone' AS ${pad}`, "SELECT 'ü'"];
    for (const dialect of ['postgresql', 'mysql', 'sqlite', 'clickhouse'] as const) {
      const sql = parts.join(`;\n-- ${pad}ö\n`);
      const got = splitStatements(sql, { dialect });
      expect(got.map((s) => s.text)).toEqual(parts);
      const bytes = Buffer.from(sql, 'utf8');
      let at = 0;
      for (const s of got) {
        at = sql.indexOf(s.text, at);
        expect(s.offset).toBe(Buffer.byteLength(sql.slice(0, at), 'utf8'));
        expect(s.endOffset - s.offset).toBe(Buffer.byteLength(s.text, 'utf8'));
        if (!s.text.includes('\ud800')) expect(bytes.subarray(s.offset, s.endOffset).toString('utf8')).toBe(s.text);
      }
    }
  });
});
