import { describe, expect, it } from 'vitest';
import { runMtool, type CliResult } from '../support/cli.js';
import { TestProject, explain, migration, projectPerTest } from './support/project.js';
import { start, waitFor } from './support/running.js';
import { TARGETS, provision, queryOnce, tableExistsAt, targetReachable, type EngineTarget } from './support/targets.js';

/**
 * The migration lock on MySQL and MariaDB (one InnoDB row under a primary key) seen from the
 * command line: many `migrate` processes at once, a SIGKILL in the middle of a long migration
 * (DDL commits at once there), `unlock` while a run holds the lock, a lock row of another host,
 * a lock table of a foreign layout, and `migrate --all` where one database's lock is held.
 */

const PROCESSES = 8;
const mysqlTargets = TARGETS.filter((t) => t.id === 'mysql' || t.id === 'mariadb');

/** Sessions on the server still running a statement that contains `fragment` (not this query). */
async function running(target: EngineTarget, url: string, fragment: string): Promise<number> {
  const rows = await queryOnce(target, url, `SELECT count(*) AS n FROM information_schema.processlist WHERE info LIKE '%${fragment}%' AND info NOT LIKE '%processlist%'`);
  return Number(rows[0]!.n);
}

const filenames = (history: { data: any }): string[] => history.data.databases.app.migrations.map((m: { filename: string }) => m.filename);

for (const target of mysqlTargets) {
  describe.skipIf(!(await targetReachable(target)))(`the migration lock on ${target.id}`, () => {
    const fresh = projectPerTest(target);

    it(`${PROCESSES} concurrent migrate processes: exactly one applies each migration, the others exit 1 with the lock error naming unlock`, async () => {
      const project = await fresh.create();
      // Long enough that every process has started before the winner finishes.
      await project.write('app__0001_slow.sql', migration(['CREATE TABLE a (id integer primary key)', 'CREATE TABLE slow_t AS SELECT SLEEP(6) AS x']));
      await project.write('app__0002_next.sql', migration(['CREATE TABLE b (id integer primary key)']));
      const results = await Promise.all(Array.from({ length: PROCESSES }, () => runMtool(['migrate'], { cwd: project.dir, timeoutMs: 90_000 })));
      const all = results.map(explain).join('\n=====\n');
      const winners = results.filter((r) => r.code === 0);
      expect(winners, all).toHaveLength(1);
      expect(winners[0]!.stdout).toMatch(/applied 2 migrations/);
      expect(winners[0]!.stderr).not.toContain('released by someone else');
      for (const loser of results.filter((r) => r.code !== 0)) {
        expect(loser.code, explain(loser)).toBe(1);
        expect(loser.signal).toBeNull();
        expect(loser.stderr).toContain('Another migration may be running');
        expect(loser.stderr).toContain('`mtool unlock --database app`');
      }
      expect(filenames(await project.json(['history']))).toEqual(['app__0001_slow.sql', 'app__0002_next.sql']);
      const rows = await queryOnce(target, fresh.db.url, 'SELECT filename, count(*) AS n FROM _mtool_migrations GROUP BY filename HAVING count(*) > 1');
      expect(rows).toEqual([]);
      expect(await queryOnce(target, fresh.db.url, 'SELECT * FROM mtool_lock')).toEqual([]);
      expect((await project.run(['lock-status'])).stdout.trim()).toBe('Migration lock: INACTIVE');
    }, 120_000);

    it('SIGKILL during a long statement of a migration sent statement by statement: the tracking table never claims it, the lock stays ACTIVE with its holder; the rerun fails clearly on what the killed run left', async () => {
      const project = await fresh.create();
      await project.write('app__0001_first.sql', migration(['CREATE TABLE first_t (id integer primary key)']));
      await project.write('app__0002_long.sql', migration(['CREATE TABLE half_t (id integer)', 'CREATE TABLE slow_t AS SELECT SLEEP(3) AS x', 'CREATE TABLE after_t (id integer)']));
      // --verbose sends one statement at a time: the server cannot run past the killed client.
      const run = start(project, ['migrate', '--verbose']);
      await waitFor('the long statement to run', async () => (await running(target, fresh.db.url, 'SLEEP(3)')) > 0);
      run.child.kill('SIGKILL');
      expect((await run.exit).signal).toBe('SIGKILL');
      // The server runs the statement it was given to its end, whether or not its client is there.
      await waitFor('the orphaned statement to end', async () => (await running(target, fresh.db.url, 'SLEEP(3)')) === 0, 15_000);

      expect(await tableExistsAt(target, fresh.db.url, 'half_t')).toBe(true);
      expect(await tableExistsAt(target, fresh.db.url, 'after_t')).toBe(false);
      expect(filenames(await project.json(['history']))).toEqual(['app__0001_first.sql']);

      const lock = await project.run(['lock-status']);
      expect(lock.stdout.split('\n')[0], explain(lock)).toBe('Migration lock: ACTIVE');
      expect(lock.stdout).toContain(`host '${(await import('node:os')).hostname()}', pid ${run.child.pid}, command 'migrate --verbose'`);
      expect(lock.stdout).toContain(`No process ${run.child.pid} runs on this host`);
      const json = await project.json(['lock-status']);
      expect(json.data).toMatchObject({ lock_active: true, holder_running: false, holder: { pid: run.child.pid, command: 'migrate --verbose' } });
      expect(json.data.held_for_ms).toBeGreaterThan(0);

      expect((await project.run(['unlock'])).code).toBe(0);
      const again = await project.run(['migrate']);
      expect(again.code, explain(again)).toBe(1);
      // The half-applied file's first statement fails, named by file and line, with the server's reason.
      expect(again.stderr).toMatch(/app__0002_long\.sql:2: .*Table 'half_t' already exists/);
      expect(filenames(await project.json(['history']))).toEqual(['app__0001_first.sql']);
      expect((await project.run(['lock-status'])).stdout.trim()).toBe('Migration lock: INACTIVE');

      // Made re-runnable, the file finishes.
      await project.write('app__0002_long.sql', migration(['CREATE TABLE IF NOT EXISTS half_t (id integer)', 'CREATE TABLE IF NOT EXISTS slow_t (x integer)', 'CREATE TABLE after_t (id integer)']));
      const fixed = await project.run(['migrate']);
      expect(fixed.code, explain(fixed)).toBe(0);
      expect(filenames(await project.json(['history']))).toEqual(['app__0001_first.sql', 'app__0002_long.sql']);
    }, 90_000);

    it('SIGKILL during a message of DDL migrations: the server finishes what was sent, rows included; the lock stays ACTIVE', async () => {
      const project = await fresh.create();
      await project.write('app__0001_first.sql', migration(['CREATE TABLE first_t (id integer primary key)']));
      await project.write('app__0002_long.sql', migration(['CREATE TABLE slow_t AS SELECT SLEEP(3) AS x']));
      await project.write('app__0003_after.sql', migration(['CREATE TABLE after_t (id integer)']));
      const run = start(project, ['migrate']);
      await waitFor('the long statement to run', async () => (await running(target, fresh.db.url, 'SLEEP(3)')) > 0);
      run.child.kill('SIGKILL');
      await run.exit;
      await waitFor('the orphaned message to end', async () => (await running(target, fresh.db.url, 'SLEEP(3)')) === 0, 15_000);
      // Every migration of the message ran whole, and each has its row (never one without the other).
      await waitFor('the rows of the message', async () => filenames(await project.json(['history'])).length === 3, 5_000);
      expect(await tableExistsAt(target, fresh.db.url, 'after_t')).toBe(true);
      expect((await project.run(['lock-status'])).stdout.split('\n')[0]).toBe('Migration lock: ACTIVE');
      expect((await project.run(['unlock'])).code).toBe(0);
      const again = await project.run(['migrate']);
      expect(again.code, explain(again)).toBe(0);
      expect(again.stdout).toMatch(/nothing to apply, at version 0003/);
    }, 60_000);

    it('unlock while a migrate runs warns that its holder still runs, releases anyway; the run still ends cleanly and removes only its own row', async () => {
      const project = await fresh.create();
      await project.write('app__0001_slow.sql', migration(['SELECT SLEEP(3)']));
      const run = start(project, ['migrate']);
      await waitFor('the migration to run', async () => (await running(target, fresh.db.url, 'SLEEP(3)')) > 0);
      const status = await project.json(['lock-status']);
      expect(status.data).toMatchObject({ database: 'app', database_type: target.type, lock_active: true, holder_running: true, holder: { pid: run.child.pid, command: 'migrate' } });
      expect(Object.keys(status.data).sort()).toEqual(['database', 'database_type', 'held_for_ms', 'holder', 'holder_running', 'holder_session_running', 'lock_active']);
      expect(Object.keys(status.data.holder).sort()).toEqual(['command', 'host', 'locked_at', 'pid']);
      // held_for: from locked_at to now, within the time this test took to ask.
      expect(status.data.held_for_ms).toBeGreaterThanOrEqual(0);
      expect(status.data.held_for_ms).toBeLessThan(5_000);
      expect(Math.abs(Date.now() - Date.parse(status.data.holder.locked_at) - status.data.held_for_ms)).toBeLessThan(3_000);

      const unlock = await project.run(['unlock']);
      expect(unlock.code, explain(unlock)).toBe(0);
      expect(unlock.stderr).toContain(`still runs on this host: a migration ('migrate'`);
      expect(unlock.stderr).toContain(`Stop process ${run.child.pid} (or let it finish) before migrating again`);
      // Its server session runs the migration: stopping the process would not stop it.
      expect(status.data.holder_session_running).toBe(true);
      expect(unlock.stderr).toMatch(/Stopping it does not stop its database session \d+ on the server, which goes on with what the run sent: end that too \(`KILL \d+`\)/);
      expect(unlock.stdout).toContain(`Migration lock on 'app' released`);

      // Another run takes the lock meanwhile: the first one's release must not remove it.
      await queryOnce(target, fresh.db.url, "INSERT INTO mtool_lock (id, locked_at, host, pid, command, token) VALUES (1, '2026-01-01 00:00:00', 'other-host', 7, 'migrate', 'theirs')");
      const exit = await run.exit;
      expect(exit.code, run.stderr()).toBe(0);
      expect((await queryOnce(target, fresh.db.url, 'SELECT token FROM mtool_lock')).map((r) => r.token)).toEqual(['theirs']);
      // The run says at its end that its lock was taken from it, and what to check.
      expect(run.stderr()).toContain("the migration lock of 'app' had been released by someone else (`mtool unlock`) while this run held it");
      expect(run.stderr()).toContain('`mtool status --database app`');
    }, 60_000);

    it("a lock row left by another host: lock-status and the refused migrate give the advice for a holder this host cannot see", async () => {
      const project = await fresh.create();
      await project.write('app__0001_a.sql', migration(['CREATE TABLE a (id integer)']));
      expect((await project.run(['lock-status'])).code).toBe(0); // no tables yet: INACTIVE
      expect((await project.run(['migrate'])).code).toBe(0);
      await queryOnce(target, fresh.db.url, "INSERT INTO mtool_lock (id, locked_at, host, pid, command, token) VALUES (1, '2026-01-01 00:00:00', 'ci-runner-7', 4242, 'migrate --all', 'theirs')");
      await project.write('app__0002_b.sql', migration(['CREATE TABLE b (id integer)']));
      const lock = await project.run(['lock-status']);
      expect(lock.stdout).toContain("Held by host 'ci-runner-7', pid 4242, command 'migrate --all', since 2026-01-01T00:00:00.000Z");
      expect(lock.stdout).toContain("Warning: another mtool process may be running a migration on 'app'. If none is (for example it was killed), release the lock with `mtool unlock --database app`.");
      expect((await project.json(['lock-status'])).data).toMatchObject({ lock_active: true, holder_running: null, holder: { host: 'ci-runner-7', pid: 4242 } });
      const refused = await project.run(['migrate']);
      expect(refused.code, explain(refused)).toBe(1);
      expect(refused.stderr).toContain("held by host 'ci-runner-7', pid 4242");
      expect(refused.stderr).toContain('`mtool unlock --database app`');
      const unlock = await project.run(['unlock']);
      expect(unlock.stderr).not.toContain('still runs on this host');
      expect((await project.run(['migrate'])).code).toBe(0);
    }, 60_000);

    it('a lock table of a foreign layout (missing columns): lock-status, migrate and unlock fail clearly, saying what to do', async () => {
      const project = await fresh.create();
      await project.write('app__0001_a.sql', migration(['CREATE TABLE a (id integer)']));
      // As another tool (or an older mtool) would have left it.
      await queryOnce(target, fresh.db.url, 'CREATE TABLE mtool_lock (id integer primary key, locked_at datetime)');
      for (const command of ['lock-status', 'migrate', 'unlock']) {
        const result = await project.run([command]);
        expect(result.code, `${command}: ${explain(result)}`).not.toBe(0);
        expect(result.stderr, command).toContain('mtool_lock');
        expect(result.stderr, command).toContain('host, pid, command, token');
        expect(result.stderr, command).toContain('DROP TABLE mtool_lock');
      }
      expect(await tableExistsAt(target, fresh.db.url, 'a')).toBe(false);
      await queryOnce(target, fresh.db.url, 'DROP TABLE mtool_lock');
      expect((await project.run(['migrate'])).code).toBe(0);
    }, 60_000);
  });
}

const mariadb = TARGETS.find((t) => t.id === 'mariadb')!;
const mysql = TARGETS.find((t) => t.id === 'mysql')!;
const sqlite = TARGETS.find((t) => t.id === 'sqlite')!;

describe.skipIf(!(await targetReachable(mariadb)))('several databases, one lock held', () => {
  it('migrate --all: only the locked database fails, the others apply; exit 1 and the summary say so', async () => {
    const dbs = [await provision(mariadb), await provision(mysql), await provision(sqlite)];
    const project = await TestProject.create([
      { name: 'one', type: 'mariadb', url: dbs[0]!.url },
      { name: 'two', type: 'mysql', url: dbs[1]!.url },
      { name: 'three', type: 'sqlite', url: dbs[2]!.url },
    ]);
    try {
      for (const name of ['one', 'two', 'three']) await project.write(`${name}__0001_t.sql`, migration([`CREATE TABLE t_${name} (id integer)`]), name);
      expect((await project.run(['lock-status', '-d', 'two'])).stdout.trim()).toBe('Migration lock: INACTIVE');
      await queryOnce(mysql, dbs[1]!.url, 'CREATE TABLE mtool_lock (id INT NOT NULL PRIMARY KEY, locked_at DATETIME(3) NOT NULL, host VARCHAR(255) NOT NULL, pid INT NOT NULL, command VARCHAR(255) NOT NULL, token VARCHAR(64) NOT NULL)');
      await queryOnce(mysql, dbs[1]!.url, "INSERT INTO mtool_lock VALUES (1, '2026-01-01 00:00:00', 'ci-runner-7', 4242, 'migrate', 'theirs')");

      const result: CliResult = await project.run(['migrate', '--all']);
      expect(result.code, explain(result)).toBe(1);
      expect(result.stdout).toMatch(/one \(mariadb\): applied 1 migration/);
      expect(result.stdout).toMatch(/two \(mysql\): FAILED: database 'two': the migration lock is held by host 'ci-runner-7'/);
      expect(result.stdout).toMatch(/three \(sqlite\): applied 1 migration/);
      expect(result.stdout).toContain('3 databases: 2 ok, 0 skipped, 1 failed (two)');
      const json = await project.json(['migrate', '--all']);
      expect(json.result.code).toBe(1);
      expect(json.data.summary).toEqual({ ok: 2, skipped: 0, failed: 1 });
      expect(json.data.databases.two).toMatchObject({ status: 'failed', code: 'MTOOL_LOCKED' });
      expect(await tableExistsAt(mysql, dbs[1]!.url, 't_two')).toBe(false);

      // One database named: the hint under the error must not send the user to the default
      // database's lock (`mtool unlock` alone would release 'one', not 'two').
      const single = await project.run(['migrate', '-d', 'two']);
      expect(single.code).toBe(1);
      expect(single.stderr).toContain('`mtool unlock --database two`');
      expect(single.stderr).not.toMatch(/`mtool unlock`/);
    } finally {
      await project.dispose();
      for (const db of dbs) await db.drop();
    }
  }, 60_000);
});
