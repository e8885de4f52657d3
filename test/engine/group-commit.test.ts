import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { disposeDialects } from '../../src/dialects/index.js';
import { withSession } from '../../src/main/engine/database-session.js';
import * as engine from '../../src/main/engine/engine.js';
import { Executor } from '../../src/main/engine/executor.js';
import { ensureParsed, loadMigrations } from '../../src/main/engine/load-migrations.js';
import { MigrationFailedError } from '../../src/main/engine/migration-error.js';
import { configureLogging, logger } from '../../src/main/log.js';
import { testEntry } from '../support/database-entry.js';
import { DEFERRED_ORPHAN, migration } from './support/project.js';
import { recordingHooks } from './support/recording-hooks.js';
import { TARGETS, provision, queryOnce, tableExistsAt, targetReachable, type ProvisionedDatabase } from './support/targets.js';

/**
 * Group commit: on SQLite (`singleWriter`) `migrate` runs consecutive migrations in one
 * transaction, each in a savepoint; elsewhere one transaction per migration. Either way each
 * migration is all or nothing, the ones before a failure stay applied, and hooks learn which
 * migrations are committed.
 */

const lines: string[] = [];
const sink = { write: (line: string) => void lines.push(line) };
let root: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'mtool-group-commit-'));
  await mkdir(join(root, 'migrations', 'app'), { recursive: true });
});
afterEach(async () => {
  configureLogging({ level: 'info', json: false, sink: undefined });
  lines.length = 0;
  await rm(root, { recursive: true, force: true });
});
afterAll(() => disposeDialects());

const put = (filename: string, content: string) => writeFile(join(root, 'migrations', 'app', filename), content);

const pg = TARGETS.find((t) => t.id === 'postgresql')!;
const pgReachable = await targetReachable(pg);

describe('hook order', () => {
  it('SQLite: one commit for the batch, after every migration ran', async () => {
    const entry = testEntry(root, 'app', 'sqlite', 'sqlite:///group.db');
    for (const v of ['0001', '0002', '0003']) await put(`app__${v}_t${v}.sql`, migration([`CREATE TABLE t${v} (id integer)`]));
    await put('RA__r.sql', migration(['SELECT 1']));
    const calls: string[] = [];
    const result = await engine.migrate(entry, { root, log: logger }, { hooks: recordingHooks(calls) });
    expect(calls).toEqual(['before 0001', 'after 0001', 'before 0002', 'after 0002', 'before 0003', 'after 0003', 'commit 0001,0002,0003', 'batch 0001,0002,0003 failed=false']);
    expect(result.outcomes.map((o) => `${o.filename} ${o.action}`)).toEqual([
      'app__0001_t0001.sql applied',
      'app__0002_t0002.sql applied',
      'app__0003_t0003.sql applied',
      'RA__r.sql applied',
    ]);
  });

  it.skipIf(!pgReachable)('PostgreSQL: each migration commits on its own', async () => {
    const db: ProvisionedDatabase = await provision(pg);
    try {
      const entry = testEntry(root, 'app', 'postgresql', db.url);
      for (const v of ['0001', '0002']) await put(`app__${v}_t${v}.sql`, migration([`CREATE TABLE t${v} (id integer)`]));
      const calls: string[] = [];
      await engine.migrate(entry, { root, log: logger }, { hooks: recordingHooks(calls) });
      expect(calls).toEqual(['before 0001', 'after 0001', 'commit 0001', 'before 0002', 'after 0002', 'commit 0002', 'batch 0001,0002 failed=false']);
    } finally {
      await db.drop();
    }
  });
});

describe('SQLite group commit', () => {
  const sqlite = TARGETS.find((t) => t.id === 'sqlite')!;

  it('a failing migration is rolled back alone; the ones before it are committed and recorded', async () => {
    const url = 'sqlite:///fail.db';
    const entry = testEntry(root, 'app', 'sqlite', url);
    await put('app__0001_a.sql', migration(['CREATE TABLE a (id integer)', 'INSERT INTO a VALUES (1)']));
    await put('app__0002_b.sql', migration(['CREATE TABLE b (id integer)']));
    await put('app__0003_c.sql', migration(['CREATE TABLE c (id integer)', 'INSERT INTO missing_table VALUES (1)']));
    await put('app__0004_d.sql', migration(['CREATE TABLE d (id integer)']));
    const calls: string[] = [];
    const error = await engine.migrate(entry, { root, log: logger }, { hooks: recordingHooks(calls) }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MigrationFailedError);
    expect((error as MigrationFailedError).message).toMatch(/app__0003_c\.sql:\d+: .*missing_table.*rolled back as a whole/);
    expect(calls).toEqual(['before 0001', 'after 0001', 'before 0002', 'after 0002', 'before 0003', 'commit 0001,0002', 'batch 0001,0002 failed=true']);
    const at = join(root, 'fail.db');
    const file = `sqlite:///${at}`;
    expect(await tableExistsAt(sqlite, file, 'b')).toBe(true);
    expect(await tableExistsAt(sqlite, file, 'c')).toBe(false);
    expect(await tableExistsAt(sqlite, file, 'd')).toBe(false);
    const rows = await queryOnce(sqlite, file, 'SELECT filename FROM _mtool_migrations ORDER BY filename');
    expect(rows.map((r) => r.filename)).toEqual(['app__0001_a.sql', 'app__0002_b.sql']);
  });

  it('a COMMIT that fails (deferred foreign key) is retried one migration per transaction, so only the guilty one fails', async () => {
    const entry = testEntry(root, 'app', 'sqlite', 'sqlite:///deferred.db');
    for (const [name, content] of Object.entries(DEFERRED_ORPHAN)) await put(name, content);
    configureLogging({ level: 'info', json: true, sink });
    const calls: string[] = [];
    const error = await engine.migrate(entry, { root, log: logger }, { hooks: recordingHooks(calls) }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MigrationFailedError);
    expect((error as MigrationFailedError).message).toMatch(/app__0002_orphan\.sql: .*FOREIGN KEY/i);
    expect(calls).toEqual(['before 0001', 'after 0001', 'before 0002', 'after 0002', 'commit 0001', 'batch 0001 failed=true']);
    const warning = lines.map((l) => JSON.parse(l)).find((r) => r.level === 'WARNING');
    expect(warning?.message).toMatch(/committing 2 grouped migration\(s\) failed .*applying them again one transaction each/);
    const file = `sqlite:///${join(root, 'deferred.db')}`;
    const rows = await queryOnce(sqlite, file, 'SELECT filename FROM _mtool_migrations');
    expect(rows.map((r) => r.filename)).toEqual(['app__0001_schema.sql']);
    expect(Number((await queryOnce(sqlite, file, 'SELECT count(*) AS n FROM child'))[0]!.n)).toBe(0);
  });

  it("SQLite's table rebuild: PRAGMA foreign_keys = OFF takes effect (the file runs outside a transaction) and the checks are back on after it", async () => {
    const entry = testEntry(root, 'app', 'sqlite', 'sqlite:///rebuild.db');
    await put('app__0001_init.sql', migration(['CREATE TABLE parent (id integer primary key, name text)', 'CREATE TABLE child (id integer primary key, parent_id integer references parent(id))', "INSERT INTO parent VALUES (1, 'a')", 'INSERT INTO child VALUES (1, 1)']));
    // As SQLite's ALTER TABLE procedure has it, without turning the checks back on at its end.
    await put('app__0002_rebuild.sql', migration(['PRAGMA foreign_keys = OFF', "CREATE TABLE parent_new (id integer primary key, name text not null default '')", "INSERT INTO parent_new SELECT id, coalesce(name, '') FROM parent", 'DROP TABLE parent', 'ALTER TABLE parent_new RENAME TO parent']));
    await put('app__0003_orphan.sql', migration(['INSERT INTO child VALUES (2, 99)']));
    configureLogging({ level: 'info', json: true, sink });
    const error = await engine.migrate(entry, { root, log: logger }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MigrationFailedError);
    expect((error as MigrationFailedError).message).toMatch(/app__0003_orphan\.sql:\d+: .*FOREIGN KEY constraint failed/);
    const warning = lines.map((l) => JSON.parse(l)).find((r) => r.level === 'WARNING');
    expect(warning?.message).toMatch(/app__0002_rebuild\.sql: runs outside a transaction: PRAGMA foreign_keys does nothing inside a transaction/);
    const file = `sqlite:///${join(root, 'rebuild.db')}`;
    expect((await queryOnce(sqlite, file, 'SELECT filename FROM _mtool_migrations ORDER BY filename')).map((r) => r.filename)).toEqual(['app__0001_init.sql', 'app__0002_rebuild.sql']);
    expect(await queryOnce(sqlite, file, 'SELECT id, parent_id FROM child')).toEqual([{ id: 1, parent_id: 1 }]);
    expect(String((await queryOnce(sqlite, file, "SELECT sql FROM sqlite_schema WHERE name = 'parent'"))[0]!.sql)).toMatch(/name text not null default ''/);
  });

  it('ATTACH ... DETACH runs outside a transaction (a database attached in one cannot be detached before it ends)', async () => {
    const entry = testEntry(root, 'app', 'sqlite', 'sqlite:///attach.db');
    const other = join(root, 'other.db').replace(/'/g, "''");
    await put('app__0001_a.sql', migration(['CREATE TABLE a (id integer)']));
    await put('app__0002_copy.sql', migration([`ATTACH DATABASE '${other}' AS other`, 'CREATE TABLE other.copied (id integer)', 'DETACH DATABASE other']));
    const result = await engine.migrate(entry, { root, log: logger });
    expect(result.outcomes.map((o) => [o.filename, o.outsideTransaction ?? false])).toEqual([
      ['app__0001_a.sql', false],
      ['app__0002_copy.sql', true],
    ]);
    expect(await tableExistsAt(sqlite, `sqlite:///${join(root, 'other.db')}`, 'copied')).toBe(true);
  });

  it("runs each migration's statements, savepoints and tracking row through the driver's exec, not query", async () => {
    const entry = testEntry(root, 'app', 'sqlite', 'sqlite:///exec.db');
    await put('app__0001_a.sql', migration(['CREATE TABLE a (id integer)', 'INSERT INTO a VALUES (1)', 'SELECT * FROM a']));
    await put('app__0002_b.sql', migration(['CREATE TABLE b (id integer)']));
    const files = await loadMigrations(entry.migrationsDir, { database: 'app', dialect: 'sqlite' });
    ensureParsed(files);
    const calls: string[] = [];
    await withSession(entry, root, logger, async (session) => {
      await session.store.ensureTables();
      const conn = session.conn;
      expect(conn.exec).toBeTypeOf('function');
      const noted = {
        ...conn,
        query: (sql: string) => (calls.push(`query ${sql}`), conn.query(sql)),
        exec: (sql: string) => (calls.push(`exec ${sql}`), conn.exec!(sql)),
        begin: () => (calls.push('begin'), conn.begin()),
        commit: () => (calls.push('commit'), conn.commit()),
      };
      const exec = new Executor(noted, session.dialect, session.store, session.log, 'app', {
        perf: false,
        verbose: false,
        signal: undefined,
        appliedBy: 'test@host',
        groupWindowMs: 60_000,
        onCommit: async () => undefined,
      });
      for (const file of files) await exec.apply(file);
      await exec.finish();
    });
    expect(calls.filter((c) => c.startsWith('query'))).toEqual([]);
    expect(calls.map((c) => c.replace(/^(exec INSERT INTO "_mtool_migrations").*/, '$1'))).toEqual([
      'begin',
      'exec SAVEPOINT mtool_migration',
      'exec CREATE TABLE a (id integer)',
      'exec INSERT INTO a VALUES (1)',
      'exec SELECT * FROM a',
      'exec INSERT INTO "_mtool_migrations"',
      'exec RELEASE SAVEPOINT mtool_migration',
      'exec SAVEPOINT mtool_migration',
      'exec CREATE TABLE b (id integer)',
      'exec INSERT INTO "_mtool_migrations"',
      'exec RELEASE SAVEPOINT mtool_migration',
      'commit',
    ]);
    const file = `sqlite:///${join(root, 'exec.db')}`;
    expect(await queryOnce(sqlite, file, 'SELECT id FROM a')).toEqual([{ id: 1 }]);
    const rows = await queryOnce(sqlite, file, 'SELECT filename FROM _mtool_migrations ORDER BY filename');
    expect(rows.map((r) => r.filename)).toEqual(['app__0001_a.sql', 'app__0002_b.sql']);
  });

  it('commits once the group has been open for the window, and again at finish()', async () => {
    const entry = testEntry(root, 'app', 'sqlite', 'sqlite:///window.db');
    for (const v of ['0001', '0002', '0003']) await put(`app__${v}_t${v}.sql`, migration([`CREATE TABLE t${v} (id integer)`]));
    const files = await loadMigrations(entry.migrationsDir, { database: 'app', dialect: 'sqlite' });
    ensureParsed(files);
    for (const [windowMs, expected] of [
      [0, ['0001', '0002', '0003']],
      [60_000, ['0001,0002,0003']],
    ] as const) {
      const commits: string[] = [];
      await rm(join(root, 'window.db'), { force: true });
      await withSession(entry, root, logger, async (session) => {
        await session.store.ensureTables();
        const exec = new Executor(session.conn, session.dialect, session.store, session.log, 'app', {
          perf: false,
          verbose: false,
          signal: undefined,
          appliedBy: 'test@host',
          groupWindowMs: windowMs,
          onCommit: async (committed) => void commits.push(committed.map((c) => c.file.version).join(',')),
        });
        for (const file of files) await exec.apply(file);
        await exec.finish();
      });
      expect(commits, `window ${windowMs} ms`).toEqual(expected);
    }
  });
});
