import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestProject, explain, migration } from './support/project.js';
import { TARGETS, provision, tableExistsAt, targetReachable, type ProvisionedDatabase } from './support/targets.js';

const pg = TARGETS.find((t) => t.id === 'postgresql')!;
const sqlite = TARGETS.find((t) => t.id === 'sqlite')!;

describe.skipIf(!(await targetReachable(pg)))('migrate --all over several databases', () => {
  let pgDb: ProvisionedDatabase;
  let dir: string;
  let project: TestProject;
  let broken: TestProject;

  beforeAll(async () => {
    pgDb = await provision(pg);
    dir = await mkdtemp(join(tmpdir(), 'mtool-multi-'));
    project = await TestProject.create([
      { name: 'main', type: 'sqlite', url: `sqlite:///${join(dir, 'main.db')}` },
      { name: 'pgdb', type: 'postgresql', url: pgDb.url },
      // Nothing listens on port 1: an optional database that is down.
      { name: 'optional', type: 'postgresql', url: 'postgresql://postgres@127.0.0.1:1/nothing?connect_timeout=2', skipIfMissing: true },
    ]);
    for (const name of ['main', 'pgdb', 'optional']) {
      await project.write(`${name}__0001_t.sql`, migration(['CREATE TABLE t (id integer primary key)'], ['DROP TABLE t']), name);
    }
    broken = await TestProject.create([
      { name: 'good', type: 'sqlite', url: `sqlite:///${join(dir, 'good.db')}` },
      { name: 'bad', type: 'sqlite', url: `sqlite:///${join(dir, 'bad.db')}` },
    ]);
    await broken.write('good__0001_t.sql', migration(['CREATE TABLE t (id integer primary key)'], ['DROP TABLE t']), 'good');
    await broken.write('bad__0001_t.sql', migration(['CREATE TABLE t (id integer primary key)', 'INSERT INTO missing VALUES (1)'], ['DROP TABLE t']), 'bad');
  });
  afterAll(async () => {
    await project?.dispose();
    await broken?.dispose();
    await pgDb?.drop();
    await rm(dir, { recursive: true, force: true });
  });

  it('skips an unreachable skipIfMissing database with a clear line and exits 3', async () => {
    const result = await project.run(['migrate', '--all']);
    expect(result.code, explain(result)).toBe(3);
    expect(result.stdout).toMatch(/optional \(postgresql\): skipped: optional database unreachable \(skipIfMissing\)/);
    expect(result.stdout).toMatch(/main \(sqlite\): applied 1 migration/);
    expect(result.stdout).toMatch(/pgdb \(postgresql\): applied 1 migration/);
    expect(result.stdout).toContain('3 databases: 2 ok, 1 skipped (optional), 0 failed');
    expect(result.stdout + result.stderr).not.toContain('postgres@');
    expect(await tableExistsAt(pg, pgDb.url, 't')).toBe(true);

    const status = await project.json(['status', '--all']);
    expect(status.result.code).toBe(3);
    expect(status.data.databases.optional).toMatchObject({ status: 'skipped', connected: false });
    expect(status.data.databases.pgdb).toMatchObject({ status: 'ok', applied_migrations: 1, pending_migrations: 0 });
  });

  it('--dry-run --all prints SQL a client can take: the skipped line and the summary are comments', async () => {
    const fresh = await TestProject.create([
      { name: 'main', type: 'sqlite', url: `sqlite:///${join(dir, 'dry.db')}` },
      { name: 'optional', type: 'postgresql', url: 'postgresql://postgres@127.0.0.1:1/nothing?connect_timeout=2', skipIfMissing: true },
    ]);
    try {
      await fresh.write('main__0001_t.sql', migration(['CREATE TABLE t (id integer primary key)'], ['DROP TABLE t']), 'main');
      const result = await fresh.run(['migrate', '--all', '--dry-run']);
      expect(result.code, explain(result)).toBe(3);
      expect(result.stdout).toContain('-- optional (postgresql): skipped: optional database unreachable (skipIfMissing)');
      expect(result.stdout).toContain('-- 2 databases: 1 ok, 1 skipped (optional), 0 failed');
      // Every line is a comment, a blank line or the migration's SQL.
      const lines = result.stdout.split('\n').filter((line) => line !== '' && !line.startsWith('-- '));
      expect(lines).toEqual(['CREATE TABLE t (id integer primary key);']);
    } finally {
      await fresh.dispose();
    }
  });

  it('--disable-skip makes the unreachable optional database fail (exit 1)', async () => {
    const result = await project.run(['--disable-skip', 'migrate', '--all']);
    expect(result.code, explain(result)).toBe(1);
    expect(result.stdout).toMatch(/optional \(postgresql\): FAILED: /);
    expect(result.stdout).toContain('3 databases: 2 ok, 0 skipped, 1 failed (optional)');
  });

  it('one failing database neither stops nor changes the others', async () => {
    const result = await broken.run(['migrate', '--all']);
    expect(result.code, explain(result)).toBe(1);
    expect(result.stdout).toMatch(/good \(sqlite\): applied 1 migration/);
    expect(result.stdout).toMatch(/bad \(sqlite\): FAILED: bad__0001_t.sql:3: /);
    expect(await tableExistsAt(sqlite, `sqlite:///${join(dir, 'good.db')}`, 't')).toBe(true);
    expect(await tableExistsAt(sqlite, `sqlite:///${join(dir, 'bad.db')}`, 't')).toBe(false);
  });

  it("a failing database's JSON ERROR record carries the stack under --debug, as a one-database command's does, and only then", async () => {
    const errorRecords = (stderr: string) =>
      stderr
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((record) => record.level === 'ERROR');
    for (const debug of [true, false]) {
      const result = await broken.run(['--json', ...(debug ? ['--debug'] : []), 'migrate', '--all']);
      expect(result.code, explain(result)).toBe(1);
      const [record, ...more] = errorRecords(result.stderr);
      expect(more).toEqual([]);
      expect(record).toMatchObject({ db_name: 'bad', db_type: 'sqlite', code: 'MTOOL_MIGRATION_FAILED' });
      if (debug) expect(record!.exception).toMatch(/^MigrationFailedError: bad__0001_t\.sql:3: .*\n {4}at /s);
      else expect(record).not.toHaveProperty('exception');
    }
  });
});
