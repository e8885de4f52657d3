import { describe, expect, it } from 'vitest';
import type { SplitDialect } from '../../src/dialects/types.js';
import { errorOf, parseFile } from './parse-file.js';

/** QA round D: how a migration file's bytes become sections, directives and statements. */



const parse = (content: string | Buffer, dialect: SplitDialect = 'postgresql') => parseFile(content, dialect);

const texts = (statements: readonly { text: string; line: number }[] | undefined) => statements?.map((s) => [s.text, s.line]);

describe('line ends: a lone CR ends a line for the sections as it does for the splitter', () => {
  it('keeps a rollback section after a lone CR out of the upgrade (its statements ran on upgrade)', () => {
    // The splitter ends the `-- rollback` comment at the CR, so the line after it was an upgrade statement.
    for (const dialect of ['postgresql', 'mysql', 'sqlite', 'clickhouse'] as const) {
      const file = parse('-- upgrade\nCREATE TABLE t (a int);\r-- rollback\rDROP TABLE t;\n', dialect);
      expect(texts(file.upgrade)).toEqual([['CREATE TABLE t (a int)', 2]]);
      expect(texts(file.rollback)).toEqual([['DROP TABLE t', 4]]);
    }
  });

  it('reads a file with classic Mac OS line ends (CR only) like its LF form, lines and offsets included', () => {
    const content = Buffer.from('-- mtool: no-transaction\r-- upgrade\rCREATE TABLE t (a int);\rINSERT INTO t VALUES (1);\r-- rollback\rDROP TABLE t;\r');
    const file = parse(content);
    const lf = parse(content.toString().replace(/\r/g, '\n'));
    expect(file.directives).toEqual(['no-transaction']);
    expect(texts(file.upgrade)).toEqual(texts(lf.upgrade));
    expect(texts(file.rollback)).toEqual(texts(lf.rollback));
    for (const st of [...file.upgrade, ...file.rollback!]) expect(content.subarray(st.offset, st.endOffset).toString()).toBe(st.text);
  });

  it('counts CRLF as one line end, with a BOM and mixed line ends in one file', () => {
    const file = parse('\uFEFF-- upgrade\r\nSELECT 1;\rSELECT 2;\nSELECT 3;\r\n-- rollback\rSELECT 4;\r\n');
    expect(texts(file.upgrade)).toEqual([['SELECT 1', 2], ['SELECT 2', 3], ['SELECT 3', 4]]);
    expect(texts(file.rollback)).toEqual([['SELECT 4', 6]]);
  });

  it('names the line of a byte that is not UTF-8 in a file with lone CRs', () => {
    const content = Buffer.concat([Buffer.from("-- upgrade\rSELECT 1;\r\nSELECT '"), Buffer.from([0xe9]), Buffer.from("';\r")]);
    expect(errorOf(() => parse(content)).message).toMatch(/app__0001_init\.sql:3: byte 0xE9 is not UTF-8/);
  });

  it("keeps the statement after pg_dump's \\restrict line when a lone CR ends that line", () => {
    // The statement was dropped with the meta-command, as if all of it were the meta-command's line.
    const content = Buffer.from('-- upgrade\r\\restrict abc\rCREATE TABLE t (a int);\rSELECT 2;\r');
    const file = parse(content);
    expect(texts(file.upgrade)).toEqual([['CREATE TABLE t (a int)', 3], ['SELECT 2', 4]]);
    for (const st of file.upgrade) expect(content.subarray(st.offset, st.endOffset).toString()).toBe(st.text);
    expect(texts(parse('-- upgrade\r\n\\restrict abc\r\nCREATE TABLE t (a int);\r\n').upgrade)).toEqual([['CREATE TABLE t (a int)', 3]]);
  });

  it('still reads a marker-looking line inside a string across a lone CR as text', () => {
    const file = parse("-- upgrade\nINSERT INTO t VALUES ('a\r-- rollback\rb');\n");
    expect(texts(file.upgrade)).toEqual([["INSERT INTO t VALUES ('a\r-- rollback\rb')", 2]]);
    expect(file.rollback).toBeUndefined();
  });
});

describe('NUL bytes', () => {
  it.each(['postgresql', 'mysql', 'sqlite', 'clickhouse'] as const)('refuses a NUL byte with its line and column, whatever the dialect (%s)', (dialect) => {
    const error = errorOf(() => parse('-- upgrade\nINSERT INTO t VALUES (1);\nINSERT INTO t VALUES (2);\0\nINSERT INTO t VALUES (3);\n', dialect));
    expect(error.code).toBe('MTOOL_MIGRATION_FILE');
    expect(error.message).toMatch(/^migrations\/app\/app__0001_init\.sql:3: a NUL byte \(0x00\) at column 26/);
    expect(error.message).toContain('remove it');
  });

  it('refuses one in a string literal or a comment too', () => {
    expect(errorOf(() => parse("-- upgrade\nSELECT 'a\0b';\n")).message).toMatch(/app__0001_init\.sql:2: a NUL byte \(0x00\) at column 10/);
    expect(errorOf(() => parse('-- note \0\n-- upgrade\nSELECT 1;\n')).message).toMatch(/app__0001_init\.sql:1: a NUL byte/);
  });

  it('still names a UTF-16 file as UTF-16 (its NUL bytes are half of its characters)', () => {
    expect(errorOf(() => parse(Buffer.from('-- upgrade\nSELECT 1;\n', 'utf16le'))).message).toContain('the file is UTF-16LE, not UTF-8');
  });
});

describe('comments before the first section', () => {
  it('takes MySQL # comments and ClickHouse "# " comments as the comments they are', () => {
    expect(texts(parse('# schema for app; see README\n#\n-- upgrade\nSELECT 1;\n', 'mysql').upgrade)).toEqual([['SELECT 1', 4]]);
    expect(texts(parse('# schema for app\n#! shebang-like\n-- upgrade\nSELECT 1;\n', 'clickhouse').upgrade)).toEqual([['SELECT 1', 4]]);
  });

  it('still refuses # where it is not a comment (PostgreSQL, SQLite; ClickHouse #x)', () => {
    for (const [dialect, content] of [
      ['postgresql', '# note\n-- upgrade\nSELECT 1;\n'],
      ['sqlite', '# note\n-- upgrade\nSELECT 1;\n'],
      ['clickhouse', '#note\n-- upgrade\nSELECT 1;\n'],
    ] as const) {
      expect(errorOf(() => parse(content, dialect)).message).toContain(":1: SQL before the '-- upgrade' section");
    }
  });
});

describe('markers and directives (checked: behaviour kept)', () => {
  it('reads directive variants anywhere a comment line can be, and not inside a statement text or after SQL', () => {
    const file = parse('--mtool:NO-TRANSACTION\n-- upgrade\nCREATE INDEX CONCURRENTLY i ON t (a);\n   -- MTOOL : irreversible\nSELECT 1; -- mtool: bogus\n');
    expect(file.directives).toEqual(['no-transaction', 'irreversible']);
    expect(file.irreversible).toBe(true);
    const quoted = parse("-- upgrade\nSELECT $$\n-- mtool: no-transaction\n$$;\n/*\n-- mtool: irreversible\n*/\n");
    expect(quoted.directives).toEqual([]);
  });

  it('splits dollar quotes with tags, nested comments and E strings on PostgreSQL', () => {
    const file = parse("-- upgrade\nSELECT $fn$ a; $x$ ; $fn$;\n/* a /* b; */ c; */ SELECT E'it\\'s;';\nSELECT 'std\\';\nSELECT 3;\n");
    expect(file.upgrade.map((s) => s.text)).toEqual(['SELECT $fn$ a; $x$ ; $fn$', "SELECT E'it\\'s;'", "SELECT 'std\\'", 'SELECT 3']);
  });

  it('splits MySQL backslash escapes, # comments, DELIMITER blocks and SQLite [brackets]', () => {
    const my = parse("-- upgrade\nSELECT 'a\\';b'; # c; d\nDELIMITER //\nCREATE PROCEDURE p() BEGIN SELECT 1; END //\nDELIMITER ;\nSELECT 1--2;\n", 'mysql');
    expect(my.upgrade.map((s) => s.text)).toEqual(["SELECT 'a\\';b'", 'CREATE PROCEDURE p() BEGIN SELECT 1; END', 'SELECT 1--2']);
    expect(parse('-- upgrade\nCREATE TABLE [a;b] ([c;d] int);\nSELECT 1;\n', 'sqlite').upgrade.map((s) => s.text)).toEqual(['CREATE TABLE [a;b] ([c;d] int)', 'SELECT 1']);
  });
});
