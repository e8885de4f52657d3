import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { disposeDialects } from '../../src/dialects/index.js';
import { ChecksumMismatchError, LockError } from '../../src/errors.js';
import * as engine from '../../src/main/engine/engine.js';
import { configureLogging, logger } from '../../src/main/log.js';
import type { DatabaseEntry } from '../../src/main/config/types.js';
import { runMtool } from '../support/cli.js';
import { testEntry } from '../support/database-entry.js';
import { TestProject, explain, migration } from './support/project.js';

/**
 * SQLite takes the migration lock tentatively (MigrationLock, TrackingSql.lockTransaction): the
 * lock row is inserted inside a `BEGIN IMMEDIATE` transaction and committed only when something
 * will run, so a `migrate` with nothing to run never commits. The lock's promises still hold:
 * a held lock fails the command at once, concurrent runs apply each migration once, and a
 * migration runs only after the lock row is committed (test/engine/signals.test.ts kills one).
 */

const Database = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
const lines: string[] = [];
const sink = { write: (line: string) => void lines.push(line) };

afterAll(() => disposeDialects());

describe('the SQLite migration lock, taken tentatively', () => {
  let root: string;
  let entry: DatabaseEntry;
  let watcher: BetterSqlite3.Database;
  const put = (filename: string, content: string) => writeFile(join(root, 'migrations', 'app', filename), content);
  /** Commits made by any connection but the watcher's own change this number. */
  const dataVersion = () => watcher.pragma('data_version', { simple: true }) as number;
  const lockRows = () => (watcher.prepare('SELECT count(*) AS n FROM mtool_lock').get() as { n: number }).n;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'mtool-sqlite-lock-'));
    await mkdir(join(root, 'migrations', 'app'), { recursive: true });
    entry = testEntry(root, 'app', 'sqlite', 'sqlite:///app.db');
    await put('app__0001_a.sql', migration(['CREATE TABLE a (id integer)'], ['DROP TABLE a']));
    await engine.migrate(entry, { root, log: logger });
    watcher = new Database(join(root, 'app.db'), { timeout: 0 });
    configureLogging({ level: 'info', json: true, sink });
    lines.length = 0;
  });
  afterEach(async () => {
    configureLogging({ level: 'info', json: false, sink: undefined });
    watcher.close();
    await rm(root, { recursive: true, force: true });
  });

  it('a migrate with nothing to run logs the lock, commits nothing and leaves the lock INACTIVE; one with work commits', async () => {
    const before = dataVersion();
    const noop = await engine.migrate(entry, { root, log: logger });
    expect(noop.outcomes).toEqual([]);
    expect(noop.currentVersion).toBe('0001');
    expect(lines.map((l) => JSON.parse(l).message)).toContainEqual(expect.stringMatching(/^lock acquired in /));
    expect(dataVersion()).toBe(before);
    expect(lockRows()).toBe(0);
    // The watcher can take the write lock at once: no transaction was left open.
    watcher.exec('BEGIN IMMEDIATE; ROLLBACK');

    // The check can fail: a run that applies something commits (the lock row, the migration, its release).
    await put('app__0002_b.sql', migration(['CREATE TABLE b (id integer)'], ['DROP TABLE b']));
    const applied = await engine.migrate(entry, { root, log: logger });
    expect(applied.outcomes.map((o) => o.filename)).toEqual(['app__0002_b.sql']);
    expect(dataVersion()).not.toBe(before);
    expect(lockRows()).toBe(0);
  });

  it('still fails at once while another process holds the lock, and leaves that row alone', async () => {
    watcher
      .prepare("INSERT INTO mtool_lock (id, locked_at, host, pid, command, token) VALUES (1, '2026-01-01T00:00:00.000Z', 'elsewhere', 4242, 'migrate', 'theirs')")
      .run();
    const error = await engine.migrate(entry, { root, log: logger }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LockError);
    expect((error as Error).message).toContain("host 'elsewhere', pid 4242");
    expect(lockRows()).toBe(1);
    watcher.exec('BEGIN IMMEDIATE; ROLLBACK');
    watcher.prepare('DELETE FROM mtool_lock').run();
    expect((await engine.migrate(entry, { root, log: logger })).outcomes).toEqual([]);
  });

  it('fails at once, naming the holder, while the holder runs a migration (holding the write lock past the busy timeout)', async () => {
    await put('app__0002_b.sql', migration(['CREATE TABLE b (id integer)'], ['DROP TABLE b']));
    watcher
      .prepare("INSERT INTO mtool_lock (id, locked_at, host, pid, command, token) VALUES (1, '2026-01-01T00:00:00.000Z', 'elsewhere', 4242, 'migrate', 'theirs')")
      .run();
    watcher.exec('BEGIN IMMEDIATE; CREATE TABLE running (id integer)');
    try {
      for (const run of [() => engine.migrate(entry, { root, log: logger }), () => engine.rollback(entry, { root, log: logger })]) {
        const started = performance.now();
        const error = await run().catch((e: unknown) => e);
        expect(error).toBeInstanceOf(LockError);
        expect((error as Error).message).toContain("host 'elsewhere', pid 4242");
        // The busy timeout is 5 s: the lock error must not wait it out.
        expect(performance.now() - started).toBeLessThan(4000);
      }
    } finally {
      watcher.exec('ROLLBACK');
    }
    expect(lockRows()).toBe(1);
  });

  it('a checksum mismatch found under the tentative lock rolls it back: INACTIVE, no transaction left open', async () => {
    await put('app__0001_a.sql', migration(['CREATE TABLE a (id integer, changed integer)'], ['DROP TABLE a']));
    await expect(engine.migrate(entry, { root, log: logger })).rejects.toBeInstanceOf(ChecksumMismatchError);
    expect(lockRows()).toBe(0);
    watcher.exec('BEGIN IMMEDIATE; ROLLBACK');
  });
});

describe('concurrent `mtool migrate` processes on one SQLite database', () => {
  let project: TestProject;
  afterEach(() => project?.dispose());

  it('with work to do, exactly one applies it; each other run fails with the lock error or, after it, finds nothing to do', async () => {
    project = await TestProject.create([{ name: 'app', type: 'sqlite', url: 'sqlite:///app.db' }]);
    await project.write('app__0001_slow.sql', migration(['CREATE TABLE a (id integer primary key)', 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 3000000) SELECT count(*) FROM c'], ['DROP TABLE a']));
    await project.write('app__0002_next.sql', migration(['CREATE TABLE b (id integer primary key)'], ['DROP TABLE b']));
    // SQLite has one writer: a run that finds the database's write lock taken waits for it (the
    // busy timeout), then either meets the committed lock row or, once the winner is done, nothing to run.
    const results = await Promise.all(Array.from({ length: 6 }, () => runMtool(['migrate'], { cwd: project.dir, timeoutMs: 60_000 })));
    const all = results.map(explain).join('\n=====\n');
    const appliers = results.filter((r) => /applied 2 migrations/.test(r.stdout));
    expect(appliers, all).toHaveLength(1);
    expect(appliers[0].code).toBe(0);
    for (const other of results.filter((r) => r !== appliers[0])) {
      if (other.code === 0) expect(other.stdout, explain(other)).toMatch(/nothing to apply, at version 0002/);
      else expect(other.stderr, explain(other)).toContain('Another migration may be running');
    }
    const history = await project.json(['history']);
    expect(history.data.databases.app.migrations.map((m: { filename: string }) => m.filename)).toEqual(['app__0001_slow.sql', 'app__0002_next.sql']);

    // Nothing left to run: the runs wait for each other's write lock instead of failing.
    const noops = await Promise.all(Array.from({ length: 6 }, () => runMtool(['migrate'], { cwd: project.dir, timeoutMs: 60_000 })));
    for (const noop of noops) expect(noop.code, explain(noop)).toBe(0);
    expect((await project.run(['lock-status'])).stdout.trim()).toBe('Migration lock: INACTIVE');
  }, 90_000);
});
