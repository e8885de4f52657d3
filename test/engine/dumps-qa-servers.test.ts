import { execFileSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestProject, explain } from './support/project.js';
import { TARGETS, provision, queryOnce, tableExistsAt, targetReachable, type ProvisionedDatabase } from './support/targets.js';

/**
 * QA: real dumps, made by the servers' own tools, as the first migration of a project. The
 * dumps' data holds what real data holds: a name with an apostrophe, bytes that are not text.
 */

function installed(tool: string): boolean {
  try {
    execFileSync(tool, ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const pg = TARGETS.find((t) => t.id === 'postgresql')!;
const mariadb = TARGETS.find((t) => t.id === 'mariadb')!;
const pgReady = (await targetReachable(pg)) && installed('pg_dump');
const mariadbReady = (await targetReachable(mariadb)) && installed('mariadb-dump');
if (!installed('pg_dump')) console.warn('dumps-qa-servers: pg_dump is not installed; skipping its tests (it comes with the PostgreSQL client)');
if (!installed('mariadb-dump')) console.warn('dumps-qa-servers: mariadb-dump is not installed; skipping its tests (it comes with the MariaDB client)');

describe.skipIf(!pgReady)('a pg_dump with its data as the first migration', () => {
  let source: ProvisionedDatabase;
  let target: ProvisionedDatabase;
  let project: TestProject;
  beforeAll(async () => {
    source = await provision(pg);
    target = await provision(pg);
    await queryOnce(pg, source.url, `CREATE TABLE people (id integer PRIMARY KEY, name text);
      INSERT INTO people VALUES (1, 'O''Brien'), (2, 'a /* b $$ c');
      CREATE TABLE after_data (id integer);`);
    project = await TestProject.create([{ name: 'app', type: 'postgresql', url: target.url }]);
  });
  afterAll(async () => {
    await project?.dispose();
    await source?.drop();
    await target?.drop();
  });

  it("refuses pg_dump's COPY ... FROM stdin at its line, before anything runs", async () => {
    // The row O'Brien opened a string literal in mtool's reading of the file: the error was an
    // unterminated quoted identifier on a later line, and never named the COPY.
    const dump = execFileSync('pg_dump', ['--no-owner', '--dbname', source.url], { encoding: 'utf8' });
    await project.write('app__0001_baseline.sql', `-- upgrade\n${dump}`);
    const copyLine = dump.split('\n').findIndex((line) => line.startsWith('COPY ')) + 2;
    const result = await project.run(['migrate']);
    expect(result.code, explain(result)).toBe(2);
    expect(result.stderr).toContain(`app__0001_baseline.sql:${copyLine}: COPY ... FROM STDIN takes its rows from psql`);
    expect(result.stderr).toContain('pg_dump --inserts');
    expect(await tableExistsAt(pg, target.url, 'people')).toBe(false);
  });

  it('applies the same data dumped with --inserts, rows equal', async () => {
    const dump = execFileSync('pg_dump', ['--no-owner', '--inserts', '--dbname', source.url], { encoding: 'utf8' });
    await project.write('app__0001_baseline.sql', `-- upgrade\n${dump}`);
    const result = await project.run(['migrate']);
    expect(result.code, explain(result)).toBe(0);
    const rows = (url: string) => queryOnce(pg, url, 'SELECT id, name FROM people ORDER BY id');
    expect(await rows(target.url)).toEqual(await rows(source.url));
  });
});

describe.skipIf(!mariadbReady)('a mariadb-dump of BLOB data as the first migration', () => {
  let source: ProvisionedDatabase;
  let target: ProvisionedDatabase;
  let project: TestProject;
  /** The dump's bytes, written after a `-- upgrade` line as a migration (the first by default). */
  const writeDump = async (options: string[] = [], filename = 'app__0001_baseline.sql'): Promise<void> => {
    const url = new URL(source.url);
    const args = ['-h', url.hostname, '-P', url.port || '3306', '-u', decodeURIComponent(url.username), ...options, url.pathname.slice(1)];
    const bytes = execFileSync('mariadb-dump', args, { env: { ...process.env, MYSQL_PWD: decodeURIComponent(url.password) } });
    await writeFile(project.path(filename), Buffer.concat([Buffer.from('-- upgrade\n'), bytes]));
  };
  beforeAll(async () => {
    source = await provision(mariadb);
    target = await provision(mariadb);
    await queryOnce(mariadb, source.url, 'CREATE TABLE files (id INT PRIMARY KEY, b BLOB)');
    await queryOnce(mariadb, source.url, "INSERT INTO files VALUES (1, X'00FF5C27220A'), (2, 'plain')");
    project = await TestProject.create([{ name: 'app', type: 'mariadb', url: target.url }]);
  });
  afterAll(async () => {
    await project?.dispose();
    await source?.drop();
    await target?.drop();
  });

  it('refuses the raw bytes of a dump without --hex-blob, and says to dump again with it', async () => {
    // The error said only that the file was in another encoding, such as Latin-1.
    await writeDump();
    const result = await project.run(['migrate']);
    expect(result.code, explain(result)).toBe(2);
    expect(result.stderr).toMatch(/app__0001_baseline\.sql:\d+: byte 0xFF is not UTF-8/);
    expect(result.stderr).toContain('dump again with --hex-blob');
    expect(await tableExistsAt(mariadb, target.url, 'files')).toBe(false);
  });

  it('applies the dump made with --hex-blob, bytes equal', async () => {
    await writeDump(['--hex-blob']);
    const result = await project.run(['migrate']);
    expect(result.code, explain(result)).toBe(0);
    const rows = (url: string) => queryOnce(mariadb, url, 'SELECT id, HEX(b) AS b FROM files ORDER BY id');
    expect(await rows(target.url)).toEqual(await rows(source.url));
    expect((await rows(target.url))[0]).toMatchObject({ b: '00FF5C27220A' });
  });

  it('releases the migration lock after a data dump that locks its table fails (its sandbox line hid the LOCK TABLES)', async () => {
    // mariadb-dump --compact --add-locks: the sandbox line, then LOCK TABLES `files` WRITE with no
    // `;` between. mtool saw no LOCK TABLES, so after the failing INSERT it sent no UNLOCK TABLES
    // and could not release its lock row: 'Table 'mtool_lock' was not locked with LOCK TABLES'.
    // Its rows are in the table already (the migration before): the INSERT fails.
    await writeDump(['--compact', '--no-create-info', '--add-locks', '--hex-blob'], 'app__0002_data.sql');
    const result = await project.run(['migrate']);
    expect(result.code, explain(result)).toBe(1);
    expect(result.stderr).toMatch(/app__0002_data\.sql:4: mariadb \(app\): Duplicate entry '1'/);
    expect(result.stderr).toContain('line 3: LOCK TABLES `files` WRITE');
    expect(result.stderr).not.toContain('could not release the migration lock');
    const lock = await project.json(['lock-status']);
    expect(lock.data.lock_active, explain(lock.result)).toBe(false);
  });
});
