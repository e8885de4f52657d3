import { describe, expect, it } from 'vitest';
import { TestProject, explain, migration, projectPerTest } from './support/project.js';
import { start, waitFor } from './support/running.js';
import { TARGETS, provision, queryOnce, tableExistsAt, targetReachable, type EngineTarget } from './support/targets.js';

/**
 * A process killed or stopped in the middle of a long migration: SIGKILL leaves the lock ACTIVE
 * and no partial migration; SIGTERM releases the lock on the way out.
 */

interface LongMigration {
  target: EngineTarget;
  /** Statements of a migration that runs for several seconds. */
  long: string[];
  /** The same migration, quick (used once the test is done interrupting). */
  quick: string[];
  /**
   * `migrate` groups migrations into one transaction here (capability `singleWriter`): a kill
   * loses the whole open group, so the migration before the long one is gone too, never half.
   */
  grouped: boolean;
}

const CASES: LongMigration[] = [
  {
    target: TARGETS.find((t) => t.id === 'postgresql')!,
    long: ['CREATE TABLE partial_t (id integer primary key)', 'SELECT pg_sleep(6)'],
    quick: ['CREATE TABLE partial_t (id integer primary key)', 'SELECT pg_sleep(0)'],
    grouped: false,
  },
  {
    target: TARGETS.find((t) => t.id === 'sqlite')!,
    long: [
      'CREATE TABLE partial_t (id integer primary key)',
      'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 12000000) SELECT count(*) FROM c',
    ],
    quick: ['CREATE TABLE partial_t (id integer primary key)', 'SELECT 1'],
    grouped: true,
  },
];

for (const c of CASES) {
  const reachable = await targetReachable(c.target);
  describe.skipIf(!reachable)(`interrupting migrate on ${c.target.id}`, () => {
    const fresh = projectPerTest(c.target);

    async function setUp(): Promise<TestProject> {
      const project = await fresh.create();
      await project.write('app__0001_first.sql', migration(['CREATE TABLE first_t (id integer primary key)'], ['DROP TABLE first_t']));
      await project.write('app__0002_long.sql', migration(c.long, ['DROP TABLE partial_t']));
      return project;
    }

    /** Resolves once the long migration is executing (its first statement has run). */
    async function inLongMigration(run: ReturnType<typeof start>): Promise<void> {
      await waitFor('the long migration to start', () => run.stderr().includes('applying app__0002_long.sql'));
      // The CREATE TABLE runs right after the log line; leave it time to be inside the long statement.
      await new Promise((r) => setTimeout(r, 700));
    }

    it('SIGKILL leaves no partial migration and the lock ACTIVE; unlock then migrate finish cleanly', async () => {
      const p = await setUp();
      const run = start(p, ['migrate', '--verbose']);
      await inLongMigration(run);
      run.child.kill('SIGKILL');
      const exit = await run.exit;
      expect(exit.signal).toBe('SIGKILL');

      expect(await tableExistsAt(c.target, fresh.db.url, 'partial_t')).toBe(false);
      expect(await tableExistsAt(c.target, fresh.db.url, 'first_t')).toBe(!c.grouped);
      const history = await p.json(['history']);
      expect(history.data.databases.app.migrations.map((m: { filename: string }) => m.filename)).toEqual(c.grouped ? [] : ['app__0001_first.sql']);

      const lock = await p.run(['lock-status']);
      expect(lock.stdout.split('\n')[0], explain(lock)).toBe('Migration lock: ACTIVE');
      expect(lock.stdout).toContain(`pid ${run.child.pid}`);
      // The holder ran on this host and is gone: lock-status and the refused migrate say so.
      expect(lock.stdout).toContain(`No process ${run.child.pid} runs on this host: the holder was killed or crashed (unless it ran in a container of its own under this host name). Release the lock with \`mtool unlock --database app\`.`);
      const json = await p.json(['lock-status']);
      expect(json.data).toMatchObject({ lock_active: true, holder_running: false });
      const blocked = await p.run(['migrate']);
      expect(blocked.code, explain(blocked)).toBe(1);
      expect(blocked.stderr).toContain(`No process ${run.child.pid} runs on this host: the holder was killed or crashed`);

      const unlock = await p.run(['unlock']);
      expect(unlock.code, explain(unlock)).toBe(0);
      await p.write('app__0002_long.sql', migration(c.quick, ['DROP TABLE partial_t']));
      const again = await p.run(['migrate']);
      expect(again.code, explain(again)).toBe(0);
      expect(again.stdout).toMatch(c.grouped ? /applied 2 migrations/ : /applied 1 migration/);
      expect(await tableExistsAt(c.target, fresh.db.url, 'partial_t')).toBe(true);
      expect(await tableExistsAt(c.target, fresh.db.url, 'first_t')).toBe(true);
      expect((await p.run(['lock-status'])).stdout.trim()).toBe('Migration lock: INACTIVE');
    }, 90_000);

    it('SIGTERM rolls the open migration back and releases the lock', async () => {
      const p = await setUp();
      const run = start(p, ['migrate', '--verbose']);
      await inLongMigration(run);
      run.child.kill('SIGTERM');
      const exit = await run.exit;
      expect(exit.code, run.stderr()).toBe(143);

      const lock = await p.run(['lock-status']);
      expect(lock.stdout.trim(), explain(lock)).toBe('Migration lock: INACTIVE');
      const history = await p.json(['history']);
      expect(history.data.databases.app.migrations.map((m: { filename: string }) => m.filename)).toEqual(['app__0001_first.sql']);
      if (c.target.type === 'postgresql') {
        // The server was asked to stop the statement (Connection.cancel): by the time mtool exits,
        // the sleep is over and the migration rolled back, not left to end on its own.
        expect(run.stderr()).toContain('interrupted: asking the server to stop the running statement');
        expect(run.stderr()).not.toContain('lock released from a second connection');
        expect(await tableExistsAt(c.target, fresh.db.url, 'partial_t')).toBe(false);
        expect(run.stderr()).toMatch(/app__0002_long\.sql:\d+: .*cancel.*rolled back as a whole/);
        const sleeping = await queryOnce(c.target, fresh.db.url, "SELECT count(*) AS n FROM pg_stat_activity WHERE state = 'active' AND query LIKE 'SELECT pg_sleep(6)%'");
        expect(Number(sleeping[0]!.n)).toBe(0);
      }
      await waitFor('the interrupted transaction to be discarded', async () => !(await tableExistsAt(c.target, fresh.db.url, 'partial_t')), 15_000);
      await p.write('app__0002_long.sql', migration(c.quick, ['DROP TABLE partial_t']));
      const again = await p.run(['migrate']);
      expect(again.code, explain(again)).toBe(0);
    }, 90_000);
  });
}

const mariadb = TARGETS.find((t) => t.id === 'mariadb')!;

/** `migrate --verbose`, SIGTERM once `filename` has run for 0.7 s: exit 143 after asking the server to stop it. */
async function terminateWhileApplying(project: TestProject, filename: string): Promise<ReturnType<typeof start>> {
  const run = start(project, ['migrate', '--verbose']);
  await waitFor('the long migration to start', () => run.stderr().includes(`applying ${filename}`));
  await new Promise((r) => setTimeout(r, 700));
  run.child.kill('SIGTERM');
  const exit = await run.exit;
  expect(exit.code, run.stderr()).toBe(143);
  expect(run.stderr()).toContain('interrupted: asking the server to stop the running statement');
  return run;
}
describe.skipIf(!(await targetReachable(mariadb)))('interrupting migrate on mariadb', () => {
  const fresh = projectPerTest(mariadb);

  it('SIGTERM stops the running statement on the server (KILL QUERY), records nothing for the migration and releases the lock', async () => {
    const project = await fresh.create();
    await project.write('app__0001_first.sql', migration(['CREATE TABLE first_t (id integer primary key)']));
    // Data first: MariaDB runs the file in a transaction (DDL would commit on its own).
    await project.write('app__0002_long.sql', migration(['INSERT INTO first_t VALUES (1)', 'SELECT SLEEP(6)', 'INSERT INTO first_t VALUES (2)']));
    const run = await terminateWhileApplying(project, 'app__0002_long.sql');
    expect(run.stderr()).not.toContain('lock released from a second connection');
    const sleeping = await queryOnce(mariadb, fresh.db.url, "SELECT count(*) AS n FROM information_schema.processlist WHERE info LIKE 'SELECT SLEEP(6)%'");
    expect(Number(sleeping[0]!.n)).toBe(0);
    expect((await queryOnce(mariadb, fresh.db.url, 'SELECT id FROM first_t')).map((r) => Number(r.id))).toEqual([]);
    const history = await project.json(['history']);
    expect(history.data.databases.app.migrations.map((m: { filename: string }) => m.filename)).toEqual(['app__0001_first.sql']);
    expect((await project.run(['lock-status'])).stdout.trim()).toBe('Migration lock: INACTIVE');
  }, 60_000);

  it('SIGTERM during a message of several DDL migrations stops it there: the later ones never run', async () => {
    const project = await fresh.create();
    // Three files that start with DDL: one message (Executor.applyAll); the second runs for a while.
    await project.write('app__0001_first.sql', migration(['CREATE TABLE first_t (id integer primary key)']));
    await project.write('app__0002_long.sql', migration(['CREATE TABLE long_t AS SELECT SLEEP(6) AS x']));
    await project.write('app__0003_after.sql', migration(['CREATE TABLE after_t (id integer)']));
    const run = await terminateWhileApplying(project, 'app__0002_long.sql');
    expect(run.stderr()).toMatch(/app__0002_long\.sql:2: .*interrupted/i);
    const sleeping = await queryOnce(mariadb, fresh.db.url, "SELECT count(*) AS n FROM information_schema.processlist WHERE info LIKE 'CREATE TABLE long_t%'");
    expect(Number(sleeping[0]!.n)).toBe(0);
    expect(await tableExistsAt(mariadb, fresh.db.url, 'after_t')).toBe(false);
    const history = await project.json(['history']);
    expect(history.data.databases.app.migrations.map((m: { filename: string }) => m.filename)).toEqual(['app__0001_first.sql']);
    expect((await project.run(['lock-status'])).stdout.trim()).toBe('Migration lock: INACTIVE');
    // The next migrate applies the rest.
    const again = await project.run(['migrate']);
    expect(again.code, explain(again)).toBe(0);
    expect(await tableExistsAt(mariadb, fresh.db.url, 'after_t')).toBe(true);
  }, 60_000);
});

const postgresql = TARGETS.find((t) => t.id === 'postgresql')!;
describe.skipIf(!(await targetReachable(postgresql)))('interrupting migrate on postgresql with a pool of one session', () => {
  it('SIGTERM stops the statement from a session outside the pool, and releases the lock', async () => {
    const db = await provision(postgresql);
    // The migration holds the pool's only session: asking the pool for another to cancel from
    // would wait pool_timeout and then leave the statement running and the lock ACTIVE.
    const project = await TestProject.create([{ name: 'app', type: 'postgresql', url: `${db.url}?pool_size=1&max_overflow=0&pool_timeout=20` }]);
    try {
      await project.write('app__0001_long.sql', migration(['CREATE TABLE partial_t (id integer primary key)', 'SELECT pg_sleep(30)'], ['DROP TABLE partial_t']));
      const run = start(project, ['migrate', '--verbose']);
      await waitFor('the long migration to start', () => run.stderr().includes('applying app__0001_long.sql'));
      await new Promise((r) => setTimeout(r, 700));
      run.child.kill('SIGTERM');
      const exit = await run.exit;
      expect(exit.code, run.stderr()).toBe(143);
      expect(run.stderr()).toContain('interrupted: asking the server to stop the running statement');
      expect(run.stderr()).toMatch(/app__0001_long\.sql:\d+: .*cancel.*rolled back as a whole/);
      const lock = await project.run(['lock-status']);
      expect(lock.stdout.trim(), explain(lock)).toBe('Migration lock: INACTIVE');
      expect(await tableExistsAt(postgresql, db.url, 'partial_t')).toBe(false);
    } finally {
      await project.dispose();
      await db.drop();
    }
  }, 15_000);
});
