import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdir, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { runMtool } from '../support/cli.js';
import { TestProject, explain, migration } from './support/project.js';
import { start, waitFor } from './support/running.js';

/**
 * The migration lock on SQLite seen from the command line: many `migrate` processes on one file
 * (WAL and the default rollback journal), another program holding the file's write lock, a
 * migrate writing so much that it keeps readers out, a file or folder mtool may not write, and
 * `:memory:`. Where SQLite makes a command wait ("database is locked"), the error must name the
 * file and the URL's `timeout` option.
 */

const PROCESSES = 8;
const Database = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
/** Run one pragma on the file and return its value. */
function pragma(file: string, text: string): unknown {
  const db = new Database(file);
  try {
    return db.pragma(text, { simple: true });
  } finally {
    db.close();
  }
}
const hasSqlite3 = spawnSync('sqlite3', ['-version']).status === 0;
const hasChattr = spawnSync('chattr', ['--help']).error === undefined && process.getuid?.() === 0;

/** A migration that writes enough (tens of MB) that SQLite spills its cache and takes the file's exclusive lock. */
const BIG_WRITE = "INSERT INTO big WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 4000000) SELECT x, hex(randomblob(20)) FROM c";

/** Ran `sqlite3 <file>` with `sql` on its stdin, which stays open (so does its transaction) until `close()`. */
function holdWithSqlite3(file: string, sql: string): { child: ChildProcess; close(): Promise<void> } {
  const child = spawn('sqlite3', [file], { stdio: ['pipe', 'ignore', 'inherit'] });
  child.stdin!.write(`${sql}\n`);
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  return {
    child,
    close: async () => {
      child.stdin!.end();
      await exited;
    },
  };
}

describe('the migration lock on SQLite', () => {
  let project: TestProject | undefined;
  afterEach(async () => {
    await project?.dispose();
    project = undefined;
  });

  async function sqliteProject(url = 'sqlite:///app.db'): Promise<TestProject> {
    project = await TestProject.create([{ name: 'app', type: 'sqlite', url }]);
    return project;
  }

  it(`${PROCESSES} concurrent migrate processes on a WAL database: one applies, the others exit 1 with the lock error at once`, async () => {
    const p = await sqliteProject();
    await p.write('app__0001_a.sql', migration(['CREATE TABLE a (id integer)']));
    expect((await p.run(['migrate'])).code).toBe(0);
    expect(pragma(join(p.dir, 'app.db'), 'journal_mode = WAL')).toBe('wal');
    await p.write('app__0002_big.sql', migration(['CREATE TABLE big (id integer primary key, pad text)', BIG_WRITE]));
    await p.write('app__0003_next.sql', migration(['CREATE TABLE b (id integer)']));
    const results = await Promise.all(Array.from({ length: PROCESSES }, () => runMtool(['migrate'], { cwd: p.dir, timeoutMs: 90_000 })));
    const all = results.map(explain).join('\n=====\n');
    const appliers = results.filter((r) => /applied 2 migrations/.test(r.stdout));
    expect(appliers, all).toHaveLength(1);
    for (const other of results.filter((r) => r !== appliers[0])) {
      // A run that came after the winner finds nothing to do; every other is refused by the lock.
      if (other.code === 0) expect(other.stdout, explain(other)).toMatch(/nothing to apply, at version 0003/);
      else {
        expect(other.code, explain(other)).toBe(1);
        expect(other.stderr, explain(other)).toContain('`mtool unlock --database app`');
      }
    }
    const history = await p.json(['history']);
    expect(history.data.databases.app.migrations.map((m: { filename: string }) => m.filename)).toEqual(['app__0001_a.sql', 'app__0002_big.sql', 'app__0003_next.sql']);
    expect((await p.run(['lock-status'])).stdout.trim()).toBe('Migration lock: INACTIVE');
    expect(pragma(join(p.dir, 'app.db'), 'journal_mode')).toBe('wal');
  }, 120_000);

  it('in the default journal mode, a migrate writing much keeps readers out: the others fail after the busy timeout naming the file and the timeout option, or with the lock error', async () => {
    const p = await sqliteProject('sqlite:///app.db?timeout=1');
    await p.write('app__0001_big.sql', migration(['CREATE TABLE big (id integer primary key, pad text)', BIG_WRITE, BIG_WRITE.replace('SELECT x,', 'SELECT x + 4000000,')]));
    const run = start(p, ['migrate', '--verbose']);
    await waitFor('the migration to run', () => run.stderr().includes('applying app__0001_big.sql'));
    await new Promise((r) => setTimeout(r, 1500));
    const others = await Promise.all([p.run(['migrate']), p.run(['lock-status']), p.run(['status'])]);
    const exit = await run.exit;
    expect(exit.code, run.stderr()).toBe(0);
    for (const other of others) {
      // A reader that got in between two of the writer's locks sees it hold the lock; one kept out says why.
      if (other.code === 0) continue;
      expect(other.code, explain(other)).toBe(1);
      if (other.stderr.includes('the migration lock is held')) continue;
      expect(other.stderr, explain(other)).toContain(`database is locked; the database file '${join(p.dir, 'app.db')}' is locked by another process writing to it`);
      expect(other.stderr).toContain('still after waiting 1 s');
      expect(other.stderr).toContain("the URL's timeout option");
      expect(other.stderr).not.toContain('check that its folder exists');
    }
    // lock-status and status only read: kept out, they fail on the busy file, never on the lock.
    expect(others.slice(1).some((o) => o.stderr.includes('database is locked; the database file')), others.map(explain).join('\n=====\n')).toBe(true);
    expect((await p.run(['lock-status'])).stdout.trim()).toBe('Migration lock: INACTIVE');
  }, 120_000);

  it.skipIf(!hasSqlite3)('another program holding a write transaction: migrate waits the timeout, then fails naming the file and the option; status and lock-status do not wait', async () => {
    const p = await sqliteProject('sqlite:///app.db?timeout=1.5');
    await p.write('app__0001_a.sql', migration(['CREATE TABLE a (id integer)']));
    expect((await p.run(['migrate'])).code).toBe(0);
    await p.write('app__0002_b.sql', migration(['CREATE TABLE b (id integer)']));
    const holder = holdWithSqlite3(join(p.dir, 'app.db'), 'BEGIN IMMEDIATE; CREATE TABLE held (x);');
    try {
      await waitFor('sqlite3 to hold the write lock', () => spawnSync('sqlite3', ['-cmd', '.timeout 0', join(p.dir, 'app.db'), 'BEGIN IMMEDIATE; ROLLBACK;']).status !== 0, 10_000);
      const started = performance.now();
      const migrate = await p.run(['migrate']);
      const took = performance.now() - started;
      expect(migrate.code, explain(migrate)).toBe(1);
      expect(took).toBeGreaterThan(1400);
      expect(migrate.stderr).toContain(`sqlite (app): database is locked; the database file '${join(p.dir, 'app.db')}' is locked by another process writing to it (another migrate, or any program holding a write transaction), still after waiting 1500 ms (the busy timeout)`);
      expect(migrate.stderr).toContain("let it wait longer with the URL's timeout option, in seconds (e.g. ?timeout=30)");

      for (const read of [['status'], ['lock-status'], ['history']]) {
        const t0 = performance.now();
        const result = await p.run(read);
        expect(result.code, explain(result)).toBe(0);
        expect(performance.now() - t0).toBeLessThan(1400);
      }
      expect((await p.run(['lock-status'])).stdout.trim()).toBe('Migration lock: INACTIVE');
    } finally {
      await holder.close();
    }
    const again = await p.run(['migrate']);
    expect(again.code, explain(again)).toBe(0);
    expect(again.stdout).toMatch(/applied 1 migration/);
  }, 60_000);

  it.skipIf(!hasChattr)('a file or a folder mtool may not write: the error names the file and its folder and says what to check', async () => {
    const p = await sqliteProject('sqlite:///data/app.db');
    await mkdir(join(p.dir, 'data'));
    await p.write('app__0001_a.sql', migration(['CREATE TABLE a (id integer)']));
    expect((await p.run(['migrate'])).code).toBe(0);
    await p.write('app__0002_b.sql', migration(['CREATE TABLE b (id integer)']));
    const file = join(p.dir, 'data', 'app.db');
    for (const target of [file, join(p.dir, 'data')]) {
      // The journal (kept, emptied, in TRUNCATE mode) would let SQLite write in a locked folder.
      await rm(`${file}-journal`, { force: true });
      // Immutable: even root may not write it (permissions alone do not stop root).
      expect(spawnSync('chattr', ['+i', target]).status).toBe(0);
      try {
        const migrate = await p.run(['migrate']);
        expect(migrate.code, explain(migrate)).toBe(1);
        expect(migrate.stderr).toContain(`mtool must be able to write the database file '${file}' and its folder '${join(p.dir, 'data')}'`);
        // Read-only commands still work, and nothing was left held.
        expect((await p.run(['lock-status'])).stdout.trim()).toBe('Migration lock: INACTIVE');
        expect((await p.run(['status'])).code).toBe(0);
      } finally {
        spawnSync('chattr', ['-i', target]);
      }
    }
    expect((await p.run(['migrate'])).code).toBe(0);
  }, 60_000);

  it('a lock table of a foreign layout (missing columns): lock-status, migrate and unlock fail clearly, saying what to do', async () => {
    const p = await sqliteProject();
    await p.write('app__0001_a.sql', migration(['CREATE TABLE a (id integer)']));
    const db = new Database(join(p.dir, 'app.db'));
    db.exec('CREATE TABLE mtool_lock (id integer primary key, locked_at text)');
    db.close();
    for (const command of ['lock-status', 'migrate', 'unlock']) {
      const result = await p.run([command]);
      expect(result.code, `${command}: ${explain(result)}`).toBe(1);
      expect(result.stderr, command).toContain("database 'app': mtool's lock table mtool_lock has no columns host, pid, command, token");
      expect(result.stderr, command).toContain('DROP TABLE mtool_lock');
    }
    const check = new Database(join(p.dir, 'app.db'));
    try {
      // migrate ran nothing and left no transaction open.
      expect(check.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'a'").get()).toEqual({ n: 0 });
      check.exec('BEGIN IMMEDIATE; DROP TABLE mtool_lock; COMMIT');
    } finally {
      check.close();
    }
    expect((await p.run(['migrate'])).code).toBe(0);
  }, 60_000);

  it('`:memory:`: every command opens a database of its own, so the lock is never seen held', async () => {
    const p = await sqliteProject('sqlite:///:memory:');
    await p.write('app__0001_a.sql', migration(['CREATE TABLE a (id integer)']));
    const migrate = await p.run(['migrate']);
    expect(migrate.code, explain(migrate)).toBe(0);
    expect((await p.run(['lock-status'])).stdout.trim()).toBe('Migration lock: INACTIVE');
    const unlock = await p.run(['unlock']);
    expect(unlock.code).toBe(0);
    expect(unlock.stdout).toContain('was not held; nothing to release');
    const results = await Promise.all(Array.from({ length: 4 }, () => p.run(['migrate'])));
    for (const r of results) expect(r.code, explain(r)).toBe(0);
  }, 60_000);
});
