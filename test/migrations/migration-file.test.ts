import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadMigrations } from '../../src/main/engine/load-migrations.js';
import { unreadable } from '../../src/main/migrations/read-directory.js';
import { parseMigrationFile } from '../../src/parser/migration-file.js';

function parse(content: string | Buffer, filename = 'app__0001_init.sql') {
  return parseMigrationFile({ filename, path: `migrations/app/${filename}`, content, database: 'app', dialect: 'postgresql' });
}

function errorOf(fn: () => unknown): Error & { code?: string; exitCode?: number } {
  try {
    fn();
  } catch (error) {
    return error as Error & { code?: string };
  }
  throw new Error('expected an error');
}

describe('parseMigrationFile', () => {
  it('splits the upgrade and rollback sections with absolute line numbers and file byte offsets', () => {
    const content = '-- header comment\n-- upgrade\nCREATE TABLE t (id int);\nINSERT INTO t VALUES (1);\n\n-- rollback\nDROP TABLE t;\n';
    const file = parse(content);
    expect(file).toMatchObject({ kind: 'versioned', version: '0001', description: 'init', irreversible: false, directives: [] });
    expect(file.upgrade.map((s) => [s.text, s.line])).toEqual([
      ['CREATE TABLE t (id int)', 3],
      ['INSERT INTO t VALUES (1)', 4],
    ]);
    expect(file.rollback?.map((s) => [s.text, s.line])).toEqual([['DROP TABLE t', 7]]);
    const bytes = Buffer.from(content);
    for (const st of [...file.upgrade, ...file.rollback!]) expect(bytes.subarray(st.offset, st.endOffset).toString()).toBe(st.text);
  });

  it('computes the SHA-256 of the file bytes', () => {
    const content = Buffer.from('-- upgrade\nSELECT 1;\n');
    expect(parse(content).checksum).toBe(createHash('sha256').update(content).digest('hex'));
    expect(parse(content).checksum).toMatch(/^[0-9a-f]{64}$/);
  });

  it('keeps offsets right with CRLF line ends, a BOM and multi-byte text', () => {
    const content = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from("-- upgrade\r\nSELECT 'é';\r\n-- rollback\r\nSELECT 2;\r\n")]);
    const file = parse(content);
    expect(file.upgrade[0]).toMatchObject({ text: "SELECT 'é'", line: 2 });
    expect(file.rollback![0]).toMatchObject({ text: 'SELECT 2', line: 4 });
    for (const st of [...file.upgrade, ...file.rollback!]) expect(content.subarray(st.offset, st.endOffset).toString()).toBe(st.text);
  });

  it('gives rollback undefined without a rollback section and [] for an empty one', () => {
    expect(parse('-- upgrade\nSELECT 1;\n').rollback).toBeUndefined();
    expect(parse('-- upgrade\nSELECT 1;\n-- rollback\n').rollback).toEqual([]);
  });

  it('reads the irreversible and no-transaction directives', () => {
    const file = parse('-- mtool: irreversible\n-- mtool: no-transaction\n-- upgrade\nDROP TABLE t;\n-- rollback\n-- nothing to do\n');
    expect(file.irreversible).toBe(true);
    expect(file.directives).toEqual(['irreversible', 'no-transaction']);
  });

  it('classifies repeatable files', () => {
    expect(parse('-- upgrade\nSELECT 1;', 'RA__refresh.sql')).toMatchObject({ kind: 'repeatable_always', description: 'refresh' });
    expect(parse('-- upgrade\nSELECT 1;', 'ROC__views.sql')).not.toHaveProperty('version');
  });

  it('rejects a file without an upgrade section, naming file and line 1', () => {
    const error = errorOf(() => parse('-- just a comment\n'));
    expect(error).toMatchObject({ code: 'MTOOL_MIGRATION_FILE', exitCode: 2 });
    expect(error.message).toMatch(/^migrations\/app\/app__0001_init\.sql:1: no '-- upgrade' section/);
  });

  it('rejects a second upgrade section, naming both lines', () => {
    const error = errorOf(() => parse('-- upgrade\nSELECT 1;\n-- upgrade\nSELECT 2;\n'));
    expect(error.message).toMatch(/app__0001_init\.sql:3: second '-- upgrade' section \(the first is at line 1\)/);
  });

  it('rejects a second rollback section', () => {
    const error = errorOf(() => parse('-- upgrade\nSELECT 1;\n-- rollback\nSELECT 2;\n-- rollback\nSELECT 3;\n'));
    expect(error.message).toMatch(/app__0001_init\.sql:5: second '-- rollback' section \(the first is at line 3\)/);
  });

  it('rejects SQL before the first section', () => {
    const error = errorOf(() => parse('/* a\n   block */\nSELECT 0;\n-- upgrade\nSELECT 1;\n'));
    expect(error.message).toMatch(/app__0001_init\.sql:3: SQL before the '-- upgrade' section/);
  });

  it('rejects SQL after a block comment before the first section, where it was dropped without a word', () => {
    const before = (head: string, dialect: 'postgresql' | 'mysql' = 'postgresql') =>
      errorOf(() => parseMigrationFile({ filename: 'app__0001_init.sql', path: 'migrations/app/app__0001_init.sql', content: `${head}\n-- upgrade\nSELECT 1;\n`, database: 'app', dialect })).message;
    expect(before('/* c */ SELECT 0;')).toMatch(/app__0001_init\.sql:1: SQL before the '-- upgrade' section/);
    expect(before('/* a\n b */ SELECT 0;')).toMatch(/app__0001_init\.sql:2: SQL before/);
    // PostgreSQL's comments nest: the SQL comes after the outer one ends.
    expect(before('/* a /* b */ c */ SELECT 0;')).toMatch(/:1: SQL before/);
    // MySQL's do not: ` c */` is already SQL there. Its executable comments are SQL (mysqldump's headers).
    expect(before('/* a /* b */ c */', 'mysql')).toMatch(/:1: SQL before/);
    expect(before('/*!40101 SET NAMES utf8mb4 */;', 'mysql')).toMatch(/:1: SQL before/);
    // Comments alone still pass.
    for (const head of ['/* c */', '/* a */ /* b */ -- c', '/* a\n b */', '/* a /* b */ c */']) expect(parse(`${head}\n-- upgrade\nSELECT 1;\n`).upgrade).toHaveLength(1);
  });

  it('rejects an unknown directive with its line and the known ones', () => {
    const error = errorOf(() => parse('-- upgrade\nSELECT 1;\n-- mtool: no-transactoin\n'));
    expect(error.message).toMatch(/app__0001_init\.sql:3: unknown directive '-- mtool: no-transactoin'; known directives: irreversible, no-transaction/);
  });

  it('rejects rollback statements in a file marked irreversible', () => {
    const error = errorOf(() => parse('-- mtool: irreversible\n-- upgrade\nDROP TABLE t;\n-- rollback\nCREATE TABLE t (id int);\n'));
    expect(error.message).toMatch(/app__0001_init\.sql:5: .*irreversible/);
  });

  it('rejects a section that begins a transaction it never ends, at the line of its BEGIN', () => {
    const upgrade = errorOf(() => parse('-- upgrade\nBEGIN;\nCREATE TABLE t (id int);\nCOMMIT;\nBEGIN ISOLATION LEVEL SERIALIZABLE;\nINSERT INTO t VALUES (1);\n'));
    expect(upgrade).toMatchObject({ code: 'MTOOL_MIGRATION_FILE', exitCode: 2 });
    expect(upgrade.message).toMatch(/app__0001_init\.sql:5: 'BEGIN ISOLATION LEVEL SERIALIZABLE' begins a transaction that the '-- upgrade' section never ends; end it with COMMIT/);
    const rollback = errorOf(() => parse('-- upgrade\nCREATE TABLE t (id int);\n-- rollback\nSTART TRANSACTION;\nDROP TABLE t;\n'));
    expect(rollback.message).toMatch(/app__0001_init\.sql:4: 'START TRANSACTION' begins .*'-- rollback' section never ends/);
    // Ended by COMMIT, END or ROLLBACK, a BEGIN is the file's own business; a body's BEGIN is no transaction.
    for (const ok of ['BEGIN;\nSELECT 1;\nCOMMIT;', 'begin transaction;\nSELECT 1;\nend;', 'BEGIN;\nSELECT 1;\nROLLBACK;', "CREATE FUNCTION f() RETURNS int AS $$ BEGIN RETURN 1; END $$ LANGUAGE plpgsql;"]) {
      expect(() => parse(`-- upgrade\n${ok}\n`), ok).not.toThrow();
    }
  });

  it('rejects a file in another encoding (Latin-1), naming the line and byte; takes UTF-8 that holds U+FFFD itself', () => {
    const latin1 = Buffer.from("-- upgrade\nCREATE TABLE t (v text);\nINSERT INTO t VALUES ('caf\u00e9');\n", 'latin1');
    const error = errorOf(() => parse(latin1));
    expect(error).toMatchObject({ code: 'MTOOL_MIGRATION_FILE', exitCode: 2 });
    expect(error.message).toBe('migrations/app/app__0001_init.sql:3: byte 0xE9 is not UTF-8: the file is in another encoding (Latin-1 or Windows-1252, say); save it as UTF-8');
    // Overlong forms, surrogates and truncated sequences are not UTF-8 either.
    for (const bad of [[0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xe2, 0x82], [0xf5, 0x80, 0x80, 0x80]]) {
      expect(errorOf(() => parse(Buffer.concat([Buffer.from('-- upgrade\nSELECT \''), Buffer.from(bad), Buffer.from('\';\n')]))).message).toContain(':2: byte 0x');
    }
    const replacement = parse(Buffer.from("-- upgrade\nSELECT '\uFFFD \u00e9 \u{1F600}';\n", 'utf8'));
    expect(replacement.upgrade.map((s) => s.text)).toEqual(["SELECT '\uFFFD \u00e9 \u{1F600}'"]);
  });

  it('rejects a UTF-16 file (what Windows PowerShell 5 writes) with what to do, not as SQL before the first section', () => {
    const text = '-- upgrade\r\nCREATE TABLE t (id int);\r\n';
    const le = Buffer.from(text, 'utf16le');
    const be = Buffer.from(le).swap16();
    for (const [bytes, name] of [
      [Buffer.concat([Buffer.from([0xff, 0xfe]), le]), 'UTF-16LE'],
      [Buffer.concat([Buffer.from([0xfe, 0xff]), be]), 'UTF-16BE'],
      [le, 'UTF-16LE'],
    ] as const) {
      const error = errorOf(() => parse(bytes));
      expect(error).toMatchObject({ code: 'MTOOL_MIGRATION_FILE', exitCode: 2 });
      expect(error.message).toMatch(new RegExp(`app__0001_init\\.sql:1: the file is ${name}, not UTF-8: save it as UTF-8`));
    }
    expect(parse(Buffer.from(`\uFEFF${text}`)).upgrade.map((s) => s.text)).toEqual(['CREATE TABLE t (id int)']);
  });

  it('passes splitter errors through with file and line', () => {
    const error = errorOf(() => parse("-- upgrade\nSELECT 1;\nSELECT 'open;\n"));
    expect(error).toMatchObject({ code: 'MTOOL_SQL_SYNTAX' });
    expect(error.message).toMatch(/app__0001_init\.sql:3:/);
  });

  it('rejects a bad file name', () => {
    expect(() => parse('-- upgrade\nSELECT 1;', 'app__1_init.sql')).toThrow(/app__1_init\.sql: version '1' must be exactly four digits/);
  });
});

describe('loadMigrations reading a folder', () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });

  async function folder(files: Record<string, string>): Promise<string> {
    dir = await mkdtemp(join(tmpdir(), 'mtool-migrations-'));
    const path = join(dir, 'app');
    await mkdir(path);
    for (const [name, content] of Object.entries(files)) await writeFile(join(path, name), content);
    return path;
  }

  it('returns an empty list for a missing folder', async () => {
    expect(await loadMigrations(join(tmpdir(), 'mtool-does-not-exist-xyz'), { database: 'app', dialect: 'sqlite' })).toEqual([]);
  });

  it('sorts versioned files by version, then repeatables by name, skipping companions', async () => {
    const path = await folder({
      'ROC__b.sql': '-- upgrade\nSELECT 1;',
      'RA__a.sql': '-- upgrade\nSELECT 1;',
      'app__0002_second.sql': '-- upgrade\nSELECT 2;',
      'V__0001_first.sql': '-- upgrade\nSELECT 1;',
      'app__0002_second.plan.json': '{}',
      'app__0002_second.rollback.sql': 'not parsed',
      'notes.txt': 'ignored',
    });
    const files = await loadMigrations(path, { database: 'app', dialect: 'sqlite' });
    expect(files.map((f) => f.filename)).toEqual(['V__0001_first.sql', 'app__0002_second.sql', 'RA__a.sql', 'ROC__b.sql']);
    expect(files[1].path).toBe(join(path, 'app__0002_second.sql'));
  });

  it('rejects two files with one version, naming both', async () => {
    const path = await folder({ 'app__0001_a.sql': '-- upgrade\n', 'V__0001_b.sql': '-- upgrade\n' });
    await expect(loadMigrations(path, { database: 'app', dialect: 'sqlite' })).rejects.toThrow(
      /version 0001 is used by two files, (app__0001_a\.sql and V__0001_b\.sql|V__0001_b\.sql and app__0001_a\.sql)/,
    );
  });

  it('rejects a stray .sql file', async () => {
    const path = await folder({ 'app__0001_a.sql': '-- upgrade\n', 'schema.sql': 'SELECT 1;' });
    await expect(loadMigrations(path, { database: 'app', dialect: 'sqlite' })).rejects.toThrow(/schema\.sql: not a migration file name/);
  });

  it('rejects a subfolder holding .sql files (they would never run), and lets other subfolders be', async () => {
    const path = await folder({ 'app__0001_a.sql': '-- upgrade\n' });
    await mkdir(join(path, 'notes'));
    await writeFile(join(path, 'notes', 'readme.txt'), 'not SQL');
    await mkdir(join(path, '.hidden'));
    await writeFile(join(path, '.hidden', 'x.sql'), 'SELECT 1;');
    expect((await loadMigrations(path, { database: 'app', dialect: 'sqlite' })).map((f) => f.filename)).toEqual(['app__0001_a.sql']);
    await mkdir(join(path, '2024', 'q1'), { recursive: true });
    await writeFile(join(path, '2024', 'q1', 'app__0002_b.sql'), '-- upgrade\n');
    const error = (await loadMigrations(path, { database: 'app', dialect: 'sqlite' }).then(
      () => new Error('expected an error'),
      (e: unknown) => e,
    )) as Error & { code?: string };
    expect(error).toMatchObject({ code: 'MTOOL_MIGRATION_FILE', exitCode: 2 });
    expect(error.message).toContain(`its subfolder 2024/ holds .sql files (${join('2024', 'q1', 'app__0002_b.sql')}), but mtool reads only the files directly in ${path}`);
  });

  it("rejects this database's migration files in the folder above (they would never run), and lets other .sql files there be", async () => {
    const path = await folder({ 'app__0001_a.sql': '-- upgrade\n' });
    const dir = dirname(path);
    await writeFile(join(dir, 'schema.sql'), 'SELECT 1;');
    await writeFile(join(dir, 'other__0001_x.sql'), '-- upgrade\n');
    expect((await loadMigrations(path, { database: 'app', dialect: 'sqlite' })).map((f) => f.filename)).toEqual(['app__0001_a.sql']);
    await writeFile(join(dir, 'app__0002_top.sql'), '-- upgrade\n');
    const error = await failure(path);
    expect(error).toMatchObject({ code: 'MTOOL_MIGRATION_FILE', exitCode: 2 });
    expect(error.message).toBe(`${dir}: it holds migration files (app__0002_top.sql), but mtool reads the migrations of 'app' only from ${path}: move them there (or, for another database, into its own folder)`);
    await rm(join(dir, 'app__0002_top.sql'));
    await writeFile(join(dir, 'RA__refresh.sql'), '-- upgrade\n');
    expect((await failure(path)).message).toContain('it holds migration files (RA__refresh.sql)');
  });

  async function failure(path: string): Promise<Error & { code?: string; exitCode?: number }> {
    return (await loadMigrations(path, { database: 'app', dialect: 'sqlite' }).then(
      () => new Error('expected an error'),
      (e: unknown) => e,
    )) as Error & { code?: string; exitCode?: number };
  }

  it('names a file it cannot read and says why, as a migration-file error (not a failure of mtool)', async () => {
    const path = await folder({ 'app__0001_a.sql': '-- upgrade\n' });
    await symlink(join(path, 'gone.sql.orig'), join(path, 'app__0002_b.sql'));
    expect(await failure(path)).toMatchObject({
      code: 'MTOOL_MIGRATION_FILE',
      exitCode: 2,
      message: `${join(path, 'app__0002_b.sql')}: cannot read the migration file: it is a symbolic link whose target does not exist: restore the target or remove the link`,
    });
    await rm(join(path, 'app__0002_b.sql'));
    await mkdir(join(path, 'notes'));
    await symlink(join(path, 'notes'), join(path, 'app__0002_b.sql'));
    expect((await failure(path)).message).toContain('app__0002_b.sql: cannot read the migration file: it is a folder, not a file');
  });

  it('names a migrations folder that is a file', async () => {
    const path = await folder({});
    await rm(path, { recursive: true });
    await writeFile(path, 'not a folder');
    expect(await failure(path)).toMatchObject({ code: 'MTOOL_MIGRATION_FILE', message: `${path}: cannot read the migration folder: it is a file, not a folder: migrations of a database live in the folder migrations/<databaseName>/` });
  });

  it('says what to do about a permission error (tests run as root, which reads anything: the error is made up)', () => {
    const denied = Object.assign(new Error("EACCES: permission denied, open 'x'"), { code: 'EACCES' });
    expect(unreadable('migrations/app/app__0002_b.sql', denied, 'app')).toMatchObject({
      code: 'MTOOL_MIGRATION_FILE',
      message: "migrations/app/app__0002_b.sql: cannot read the migration file: permission denied: let the user running mtool read it (mtool reads every migration file to check the applied ones' checksums)",
    });
  });
});

describe('psql meta-commands in a PostgreSQL migration', () => {
  const dump = [
    '-- upgrade',
    '--',
    '-- PostgreSQL database dump',
    '--',
    '',
    '\\restrict k1MBD3jX8Ybsh3vVTDdXVUqLfXkICOx6dBIRcV1dAlcwJb2bXtiw3ThdyCa3A67',
    '',
    '-- Dumped from database version 15.20',
    '/* a block /* nested */ comment */',
    "SELECT pg_catalog.set_config('search_path', '', false);",
    'CREATE TABLE public.t (id integer, note text DEFAULT \'é\');',
    '',
    '\\unrestrict k1MBD3jX8Ybsh3vVTDdXVUqLfXkICOx6dBIRcV1dAlcwJb2bXtiw3ThdyCa3A67',
    '',
    '-- rollback',
    'DROP TABLE public.t;',
    '',
  ].join('\n');

  it("drops pg_dump's \\restrict and \\unrestrict lines and keeps each statement's position on its first token", () => {
    const file = parse(dump);
    expect(file.upgrade.map((s) => [s.text, s.line, s.column])).toEqual([
      ["SELECT pg_catalog.set_config('search_path', '', false)", 10, 1],
      ["CREATE TABLE public.t (id integer, note text DEFAULT 'é')", 11, 1],
    ]);
    const bytes = Buffer.from(dump);
    for (const st of file.upgrade) expect(bytes.subarray(st.offset, st.endOffset).toString()).toBe(st.text);
  });

  it('refuses any other meta-command at its line', () => {
    const error = errorOf(() => parse('-- upgrade\nCREATE TABLE a (id int);\n\\connect other\nCREATE TABLE b (id int);\n'));
    expect(error).toMatchObject({ code: 'MTOOL_MIGRATION_FILE', exitCode: 2 });
    expect(error.message).toMatch(/app__0001_init\.sql:3: '\\connect' is a psql meta-command/);
  });

  it("refuses COPY ... FROM STDIN (pg_dump's data), whose rows only psql sends, at the COPY's line", () => {
    const error = errorOf(() => parse('-- upgrade\nCREATE TABLE t (id int, name text);\nCOPY public.t (id, name) FROM stdin;\n1\ta\n\\.\n'));
    expect(error).toMatchObject({ code: 'MTOOL_MIGRATION_FILE', exitCode: 2 });
    expect(error.message).toMatch(/app__0001_init\.sql:3: COPY \.\.\. FROM STDIN takes its rows from psql, which mtool is not: dump the data as INSERT statements \(pg_dump --inserts/);
    // A server-side file is the server's business.
    expect(parse("-- upgrade\nCOPY t FROM '/srv/t.csv' WITH (FORMAT csv);\n").upgrade.map((s) => s.text)).toEqual(["COPY t FROM '/srv/t.csv' WITH (FORMAT csv)"]);
  });

  it('leaves other dialects alone', () => {
    const file = parseMigrationFile({ filename: 'app__0001_init.sql', path: 'x', content: '-- upgrade\nSELECT 1;\n', database: 'app', dialect: 'mysql' });
    expect(file.upgrade.map((s) => s.text)).toEqual(['SELECT 1']);
  });
});
