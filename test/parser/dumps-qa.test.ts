import { describe, expect, it } from 'vitest';
import type { SplitDialect } from '../../src/dialects/types.js';
import { errorOf, parseFile } from './parse-file.js';
import { splitStatements } from '../../src/parser/split-statements.js';

/** QA: dumps and tool-generated scripts (pg_dump, mariadb-dump) as migration files. */



const parse = (content: string | Buffer, dialect: SplitDialect = 'postgresql') => parseFile(content, dialect, 'app__0001_baseline.sql');

const texts = (statements: readonly { text: string; line: number }[]) => statements.map((s) => [s.text, s.line]);

/** What `pg_dump` (with data, the default) writes for a table whose rows hold a lone quote, a comment opener and a dollar sign. */
const PG_DUMP_WITH_DATA = [
  '-- upgrade',
  'SET standard_conforming_strings = on;',
  'CREATE TABLE public.people (id integer, name text);',
  '',
  'COPY public.people (id, name) FROM stdin;',
  "1\tO'Brien",
  '2\ta /* b $$ c',
  '\\.',
  '',
  '',
  'GRANT SELECT ON public.people TO PUBLIC;',
  '',
].join('\n');

describe('pg_dump data: COPY ... FROM stdin blocks', () => {
  it('refuses the COPY at its line, not the rows after it as an unterminated string', () => {
    // The row `O'Brien` opened a string literal that ran to the end of the file: the error named
    // the GRANT line as an unterminated quoted identifier, and nothing said why.
    const error = errorOf(() => parse(PG_DUMP_WITH_DATA));
    expect(error.code).toBe('MTOOL_MIGRATION_FILE');
    expect(error.message).toMatch(/^migrations\/app\/app__0001_baseline\.sql:5: COPY \.\.\. FROM STDIN takes its rows from psql/);
    expect(error.message).toContain('pg_dump --inserts');
  });

  it('refuses a COPY into a table whose quoted name holds a semicolon (it reached the server)', () => {
    const error = errorOf(() => parse('-- upgrade\nCREATE TABLE "a;b" (id int);\nCOPY public."a;b" (id) FROM stdin;\n1\n\\.\n'));
    expect(error.code).toBe('MTOOL_MIGRATION_FILE');
    expect(error.message).toMatch(/app__0001_baseline\.sql:3: COPY \.\.\. FROM STDIN/);
  });

  it('splits the statements around the rows, placed at their own lines (CRLF too)', () => {
    const body = PG_DUMP_WITH_DATA.split('\n').slice(1).join('\n');
    const expected = [
      ['SET standard_conforming_strings = on', 1],
      ['CREATE TABLE public.people (id integer, name text)', 2],
      ['COPY public.people (id, name) FROM stdin', 4],
      ['GRANT SELECT ON public.people TO PUBLIC', 10],
    ];
    expect(texts(splitStatements(body, { dialect: 'postgresql' }))).toEqual(expected);
    const crlf = body.replace(/\n/g, '\r\n');
    const statements = splitStatements(crlf, { dialect: 'postgresql' });
    expect(texts(statements)).toEqual(expected);
    for (const st of statements) expect(Buffer.from(crlf).subarray(st.offset, st.endOffset).toString()).toBe(st.text);
  });

  it('takes rows up to the end of the input when no line \\. closes them, as psql does', () => {
    expect(texts(splitStatements("COPY t FROM STDIN WITH (FORMAT csv);\n1,'\n", { dialect: 'postgresql' }))).toEqual([['COPY t FROM STDIN WITH (FORMAT csv)', 1]]);
  });

  it('reads other COPY forms, and COPY in other dialects, as before', () => {
    expect(texts(splitStatements("COPY t TO STDOUT;\nSELECT 'a';", { dialect: 'postgresql' }))).toEqual([['COPY t TO STDOUT', 1], ["SELECT 'a'", 2]]);
    expect(texts(splitStatements("COPY t FROM '/tmp/x';\nSELECT 'a';", { dialect: 'postgresql' }))).toEqual([["COPY t FROM '/tmp/x'", 1], ["SELECT 'a'", 2]]);
    expect(texts(splitStatements('COPY t FROM stdin;\nSELECT 1;', { dialect: 'sqlite' }))).toEqual([['COPY t FROM stdin', 1], ['SELECT 1', 2]]);
  });
});

describe('mariadb-dump data without --hex-blob', () => {
  it('says the bytes that are not UTF-8 may be binary data and how to dump them', () => {
    // What mariadb-dump writes for a BLOB holding 0x00 0xFF 0x5C 0x27: raw bytes in a string literal.
    const content = Buffer.concat([Buffer.from("-- upgrade\nCREATE TABLE t (b BLOB);\nINSERT INTO `t` VALUES ('\\0"), Buffer.from([0xff]), Buffer.from("\\\\\\'');\n")]);
    const error = errorOf(() => parse(content, 'mysql'));
    expect(error.code).toBe('MTOOL_MIGRATION_FILE');
    expect(error.message).toMatch(/app__0001_baseline\.sql:3: byte 0xFF is not UTF-8/);
    expect(error.message).toContain('dump again with --hex-blob');
    // Other dialects' dumps never hold raw bytes: no mysqldump advice there.
    expect(errorOf(() => parse(content, 'postgresql')).message).not.toContain('--hex-blob');
  });
});

describe("mariadb-dump's sandbox line", () => {
  const SANDBOX = '/*M!999999\\- enable the sandbox mode */ ';

  it('is no part of the statement after it: that one starts with its own first word, at its own line', () => {
    // The line has no `;` after it: it began the next statement, whose LOCK TABLES mtool then
    // did not see (no UNLOCK TABLES after a failure, the lock row left ACTIVE).
    const sql = `${SANDBOX}\nLOCK TABLES \`orders\` WRITE;\nINSERT INTO \`orders\` VALUES (1,1);\nUNLOCK TABLES;\n`;
    expect(texts(splitStatements(sql, { dialect: 'mysql' }))).toEqual([['LOCK TABLES `orders` WRITE', 2], ['INSERT INTO `orders` VALUES (1,1)', 3], ['UNLOCK TABLES', 4]]);
    expect(texts(splitStatements(`${SANDBOX}\n-- MariaDB dump 10.19\n/*!40101 SET NAMES utf8mb4 */;`, { dialect: 'mysql' }))).toEqual([['/*!40101 SET NAMES utf8mb4 */', 3]]);
  });

  it('leaves a DELIMITER line after it a directive, not SQL', () => {
    const sql = `${SANDBOX}\nDELIMITER ;;\nCREATE PROCEDURE p() BEGIN SELECT 1; END;;\nDELIMITER ;\nSELECT 2;\n`;
    expect(texts(splitStatements(sql, { dialect: 'mysql' }))).toEqual([['CREATE PROCEDURE p() BEGIN SELECT 1; END', 3], ['SELECT 2', 5]]);
  });

  it('keeps executable comments for versions a server has, as before', () => {
    expect(texts(splitStatements('/*M!100100 SET x = 1 */;\n/*!99999 SET y = 2 */;\n/*!40101 SET NAMES utf8mb4 */', { dialect: 'mysql' }))).toEqual([
      ['/*M!100100 SET x = 1 */', 1],
      ['/*!99999 SET y = 2 */', 2],
      ['/*!40101 SET NAMES utf8mb4 */', 3],
    ]);
  });
});
