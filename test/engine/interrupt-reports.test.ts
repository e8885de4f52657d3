import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { RunContext } from '../../src/main/run-context.js';
import { TestProject, explain, migration, projectPerTest } from './support/project.js';
import { start, waitFor } from './support/running.js';
import { TARGETS, queryOnce, targetReachable } from './support/targets.js';

/**
 * What mtool tells about the migration lock around signals and `unlock`: whether the holder's
 * pid really is the holder (pid reuse), JSON log mode staying JSON through a signal, the lock a
 * forced exit may leave behind, SIGHUP cleaning up like SIGTERM, and `unlock` warning before it
 * pulls the lock from under a running migration.
 */
const postgresql = TARGETS.find((t) => t.id === 'postgresql')!;
const reachable = await targetReachable(postgresql);
const procfs = process.platform === 'linux' && existsSync('/proc/self/stat');

/** A statement of several seconds (PostgreSQL); its text differs from the ones other tests look for in the server-wide pg_stat_activity. */
const LONG = ['CREATE TABLE partial_t (id integer primary key)', 'SELECT pg_sleep(7)'];
/**
 * Six seconds that ignore the server's cancel requests: the run cannot stop at once, so its
 * cleanup still holds the lock 0.5 s after Ctrl-C.
 */
const DEAF_TO_CANCEL = [
  'CREATE TABLE partial_t (id integer primary key)',
  `DO $$
BEGIN
  FOR i IN 1..60 LOOP
    BEGIN
      PERFORM pg_sleep(0.1);
    EXCEPTION WHEN query_canceled THEN NULL;
    END;
  END LOOP;
END $$`,
];

/** Project with a quick first migration and `long` as the second. */
async function withLongMigration(fresh: ReturnType<typeof projectPerTest>, long: string[]): Promise<TestProject> {
  const project = await fresh.create();
  await project.write('app__0001_first.sql', migration(['CREATE TABLE first_t (id integer primary key)']));
  await project.write('app__0002_long.sql', migration(long, ['DROP TABLE partial_t']));
  return project;
}

/** Start `mtool migrate` and resolve once it has been inside the long migration for 0.7 s. */
async function startLong(project: TestProject, args: string[] = [], env?: Record<string, string>): Promise<ReturnType<typeof start>> {
  const run = start(project, ['migrate', '--verbose', ...args], env);
  await waitFor('the long migration to start', () => run.stderr().includes('applying app__0002_long.sql'));
  await new Promise((r) => setTimeout(r, 700));
  return run;
}

/** Every stderr line as a JSON record; fails naming the first line that is not one. */
function records(stderr: string): Record<string, unknown>[] {
  return stderr
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      try {
        return JSON.parse(line) as Record<string, unknown>;
      } catch {
        throw new Error(`stderr line is not JSON in JSON log mode: ${JSON.stringify(line)}\n--- stderr\n${stderr}`);
      }
    });
}

/** Put a lock row on the database as if `pid` on this host had taken it at `lockedAt`. */
async function plantLock(url: string, pid: number, lockedAt: Date): Promise<void> {
  await queryOnce(postgresql, url, 'DELETE FROM mtool_lock');
  await queryOnce(
    postgresql,
    url,
    `INSERT INTO mtool_lock (id, locked_at, host, pid, command, token) VALUES (1, '${lockedAt.toISOString()}', '${hostname()}', ${pid}, 'migrate', 'planted')`,
  );
}

/** A process of this host that runs until killed, with its command. */
async function runningProcess(command: string, args: string[]): Promise<ChildProcess> {
  const child = spawn(command, args, { stdio: 'ignore' });
  await new Promise<void>((resolve, reject) => child.once('spawn', resolve).once('error', reject));
  return child;
}

describe.skipIf(!reachable || !procfs)('lock-status: is the process with the holder pid the holder? (Linux /proc)', () => {
  const fresh = projectPerTest(postgresql);

  async function lockedProject(): Promise<TestProject> {
    const project = await fresh.create();
    await project.write('app__0001_first.sql', migration(['CREATE TABLE first_t (id integer primary key)']));
    const migrated = await project.run(['migrate']);
    expect(migrated.code, explain(migrated)).toBe(0);
    return project;
  }

  it('a pid that now belongs to a process started after the lock was taken (pid 1, lock 3 days old) is not the holder', async () => {
    const project = await lockedProject();
    await plantLock(fresh.db.url, 1, new Date(Date.now() - 3 * 86_400_000));

    const text = await project.run(['lock-status']);
    expect(text.stdout, explain(text)).toContain('Migration lock: ACTIVE');
    expect(text.stdout).toMatch(/Process 1 on this host is not the holder but another process with the same pid \(it started at \S+, after the lock was taken at \S+\): the holder was killed or crashed/);
    expect(text.stdout).toContain('Release the lock with `mtool unlock --database app`.');
    expect(text.stdout).not.toContain('still runs on this host');
    const { data } = await project.json(['lock-status']);
    expect(data).toMatchObject({ lock_active: true, holder_running: false });

    const blocked = await project.run(['migrate']);
    expect(blocked.code, explain(blocked)).toBe(1);
    expect(blocked.stderr).toContain('Process 1 on this host is not the holder');
  }, 60_000);

  it('a process with the holder pid that is not node or mtool is not the holder', async () => {
    const project = await lockedProject();
    const sleeper = await runningProcess('sleep', ['60']);
    try {
      await plantLock(fresh.db.url, sleeper.pid!, new Date(Date.now() + 1000));
      const text = await project.run(['lock-status']);
      expect(text.stdout, explain(text)).toContain(`Process ${sleeper.pid} on this host is not the holder but another process with the same pid (it runs 'sleep', not node or mtool)`);
      expect((await project.json(['lock-status'])).data.holder_running).toBe(false);
    } finally {
      sleeper.kill('SIGKILL');
    }
  }, 60_000);

  it('a node process that started before the lock was taken still holds it: wait', async () => {
    const project = await lockedProject();
    const holder = await runningProcess(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
    try {
      await new Promise((r) => setTimeout(r, 200));
      await plantLock(fresh.db.url, holder.pid!, new Date());
      const text = await project.run(['lock-status']);
      expect(text.stdout, explain(text)).toContain(`Process ${holder.pid} still runs on this host: a migration is most likely in progress on 'app'; wait for it to finish.`);
      expect(text.stdout).toMatch(/It is '\S*node\S* -e setTimeout\(.*\)', running since \S+Z; `mtool unlock --database app` is for a lock whose holder is gone\./);
      expect((await project.json(['lock-status'])).data.holder_running).toBe(true);
    } finally {
      holder.kill('SIGKILL');
    }
  }, 60_000);
});

describe.skipIf(!reachable)('signals during migrate on postgresql: what mtool reports', () => {
  const fresh = projectPerTest(postgresql);

  const jsonModes: [NodeJS.Signals, number, Record<string, string> | undefined, string[]][] = [
    ['SIGTERM', 143, { MTOOL_LOG_JSON: 'true' }, []],
    ['SIGINT', 130, undefined, ['--json']],
  ];
  it.for(jsonModes)('JSON log mode stays JSON through %s, and the final record reports exit code %i', { timeout: 60_000 }, async ([signal, exitCode, env, args]) => {
    const project = await withLongMigration(fresh, LONG);
    const run = await startLong(project, args, env);
    run.child.kill(signal);
    const exit = await run.exit;
    expect(exit.code, run.stderr()).toBe(exitCode);

    const logged = records(run.stderr());
    const notice = logged.find((r) => String(r.message).includes('cleaning up'));
    expect(notice, run.stderr()).toMatchObject({ level: 'WARNING', signal, exit_code: exitCode });
    const last = logged.at(-1)!;
    expect(last, run.stderr()).toMatchObject({ level: 'ERROR', exit_code: exitCode });
    expect((await project.run(['lock-status'])).stdout.trim()).toBe('Migration lock: INACTIVE');
  });

  it('SIGHUP (terminal closed) cleans up like SIGTERM: the migration rolled back, the lock released, exit 129', async () => {
    const project = await withLongMigration(fresh, LONG);
    const run = await startLong(project);
    run.child.kill('SIGHUP');
    const exit = await run.exit;
    expect(exit.code, run.stderr()).toBe(129);
    expect(run.stderr()).toContain('mtool: hung up (SIGHUP: terminal or session closed); cleaning up');
    expect(run.stderr()).toMatch(/app__0002_long\.sql:\d+: .*cancel.*rolled back as a whole/);
    const lock = await project.run(['lock-status']);
    expect(lock.stdout.trim(), explain(lock)).toBe('Migration lock: INACTIVE');
    const history = await project.json(['history']);
    expect(history.data.databases.app.migrations.map((m: { filename: string }) => m.filename)).toEqual(['app__0001_first.sql']);
  }, 60_000);

  const logModes: [string, Record<string, string> | undefined][] = [
    ['plain', undefined],
    ['JSON', { MTOOL_LOG_JSON: 'true' }],
  ];
  it.for(logModes)('a second Ctrl-C exits at once and says (%s) that the lock may be left held and how to recover', { timeout: 60_000 }, async ([, env]) => {
    const project = await withLongMigration(fresh, DEAF_TO_CANCEL);
    const run = await startLong(project, [], env);
    run.child.kill('SIGINT');
    // Cleanup is waiting for the statement to stop; the lock is still held.
    await new Promise((r) => setTimeout(r, 500));
    run.child.kill('SIGINT');
    const exit = await run.exit;
    expect(exit.code, run.stderr()).toBe(130);

    const advice =
      "exiting at once (SIGINT): the migration lock on 'app' may be left held (ACTIVE). Check it with `mtool lock-status --database app`; " +
      "once no mtool process is migrating 'app', release it with `mtool unlock --database app`";
    if (env) expect(records(run.stderr()).find((r) => r.message === advice), run.stderr()).toMatchObject({ level: 'WARNING', db_name: 'app', exit_code: 130 });
    else expect(run.stderr()).toContain(`mtool: ${advice}`);
    const lock = await project.run(['lock-status']);
    expect(lock.stdout.split('\n')[0], explain(lock)).toBe('Migration lock: ACTIVE');
  });

  it('unlock warns before it releases a lock whose holder still runs on this host, and releases it', async () => {
    const project = await withLongMigration(fresh, ['SELECT pg_sleep(25)']);
    const run = await startLong(project);
    try {
      const unlock = await project.run(['unlock']);
      expect(unlock.code, explain(unlock)).toBe(0);
      const warning = `releasing the migration lock on 'app' although its holder, process ${run.child.pid} (`;
      if (procfs) expect(unlock.stderr, explain(unlock)).toContain(warning);
      else expect(unlock.stderr, explain(unlock)).toContain(`a process with the holder's pid ${run.child.pid} runs on this host`);
      expect(unlock.stderr).toContain('two at once can corrupt the tracking table');
      expect(unlock.stdout).toContain("Migration lock on 'app' released");
      expect((await project.run(['lock-status'])).stdout.trim()).toBe('Migration lock: INACTIVE');
    } finally {
      run.child.kill('SIGKILL');
      await run.exit;
    }
    // A holder that is gone: no warning.
    await plantLock(fresh.db.url, 999_999_999, new Date());
    const quiet = await project.run(['unlock']);
    expect(quiet.stdout, explain(quiet)).toContain("Migration lock on 'app' released");
    expect(quiet.stderr).not.toContain('releasing the migration lock');
  }, 60_000);
});

describe('RunContext on a forced exit', () => {
  it('names only the locks still held', () => {
    const run = new RunContext();
    const written: string[] = [];
    const out = { write: (text: string) => void written.push(text) };
    let appHeld = true;
    run.trackLock('app', () => appHeld);
    const untrack = run.trackLock('audit', () => true);
    untrack();
    run.trackLock('tentative', () => false);
    expect(run.heldLocks()).toEqual(['app']);
    run.forcedExit('SIGINT', out);
    expect(written).toHaveLength(1);
    expect(written[0]).toContain("the migration lock on 'app' may be left held");
    appHeld = false;
    written.length = 0;
    run.forcedExit('SIGINT', out);
    expect(written).toEqual([]);
  });

  it('records the exit code of the signal that stopped it', () => {
    const run = new RunContext();
    expect(run.exitCode).toBeUndefined();
    run.stop('SIGHUP', { write: () => undefined });
    expect(run.exitCode).toBe(129);
    expect(run.signal.aborted).toBe(true);
  });
});
