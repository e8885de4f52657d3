import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { getDialect } from '../../src/dialects/index.js';
import { connectTo } from '../support/databases.js';
import { explain, migration, projectPerTest, type TestProject } from './support/project.js';
import { start, waitFor } from './support/running.js';
import { TARGETS, queryOnce, targetReachable, type EngineTarget } from './support/targets.js';

/**
 * The lock's advice and a killed run's server session: MySQL and MariaDB go on with the whole
 * message of migrations the run sent, PostgreSQL with a long statement until it next writes to the
 * client (at once where `client_connection_check_interval` is on, which mtool sets: a migration
 * that turns it off, or a server before 14, keeps running). lock-status, the lock error and unlock
 * must say so instead of advising `mtool unlock` as for a holder that is gone.
 */

const serverTargets = TARGETS.filter((t) => t.id === 'postgresql' || t.id === 'mysql' || t.id === 'mariadb');

/** A pid no process can have (above Linux's largest pid_max). */
const NO_SUCH_PID = 4_194_305;

const isPg = (target: EngineTarget) => target.type === 'postgresql';

/** A migration statement that runs 30 s (on PostgreSQL after turning off the server's check that the client is alive). */
function longMigration(target: EngineTarget): string {
  return migration(isPg(target) ? ['SET client_connection_check_interval = 0', 'SELECT pg_sleep(30)'] : ['DO SLEEP(30)']);
}

/** The server session of this database running the 30 s statement, 0 when none does. */
async function sleepingSession(target: EngineTarget, url: string): Promise<number> {
  const sql = isPg(target)
    ? `SELECT pid AS id FROM pg_stat_activity WHERE datname = current_database() AND query LIKE '%pg_sleep(30)%' AND pid <> pg_backend_pid()`
    : `SELECT ID AS id FROM information_schema.PROCESSLIST WHERE DB = DATABASE() AND INFO LIKE '%SLEEP(30)%' AND ID <> CONNECTION_ID()`;
  const rows = await queryOnce(target, url, sql);
  return rows.length > 0 ? Number(rows[0]!.id) : 0;
}

function endStatement(target: EngineTarget, id: number): string {
  return isPg(target) ? `SELECT pg_terminate_backend(${id})` : `KILL ${id}`;
}

/** End the server session `id` from the test and wait until it is gone. */
async function endSession(target: EngineTarget, url: string, id: number): Promise<void> {
  if (id <= 0) return;
  await queryOnce(target, url, endStatement(target, id)).catch(() => undefined);
  await waitFor('the session to end', async () => (await sleepingSession(target, url)) === 0, 15_000);
}

/** Start `migrate` with the long migration, wait until it sleeps, SIGKILL it: the sleeping session's id and the killed pid. */
async function killDuringLongStatement(target: EngineTarget, project: TestProject, url: string): Promise<{ session: number; pid: number }> {
  const run = start(project, ['migrate']);
  let session = 0;
  await waitFor('the long statement to run', async () => (session = await sleepingSession(target, url)) > 0);
  run.child.kill('SIGKILL');
  expect((await run.exit).signal).toBe('SIGKILL');
  return { session, pid: run.child.pid! };
}

/**
 * How old a lock must be for a live session with its session id not to be its holder's: older
 * than the session (PostgreSQL backends tell their start), or than the server (MySQL and MariaDB
 * tell no session's start; thread ids repeat only after a restart).
 */
async function olderThanAnyReuse(target: EngineTarget, url: string): Promise<number> {
  if (isPg(target)) return 2 * 3600_000;
  const [uptime] = await queryOnce(target, url, "SHOW GLOBAL STATUS LIKE 'Uptime'");
  return (Number(uptime!.Value) + 3600) * 1000;
}

/** Insert a lock row as a holder on this host would have written it. */
async function insertLockRow(target: EngineTarget, url: string, token: string, lockedAt: Date): Promise<void> {
  const dialect = getDialect(target.type);
  const q = dialect.quote;
  const at = (await dialect.tracking()).timestamp(q, lockedAt);
  await queryOnce(target, url, `INSERT INTO mtool_lock (id, locked_at, host, pid, command, token) VALUES (1, ${at}, ${q.literal(hostname())}, ${NO_SUCH_PID}, 'migrate', ${q.literal(token)})`);
}

for (const target of serverTargets) {
  describe.skipIf(!(await targetReachable(target)))(`a killed run's server session on ${target.id}`, () => {
    const fresh = projectPerTest(target);

    it('SIGKILL during a long statement: lock-status (text and JSON) and the refused migrate say the session still runs and how to end it; once it is ended, the holder is gone with the old advice', async () => {
      const project = await fresh.create();
      const url = fresh.db.url;
      await project.write('app__0001_first.sql', migration(['CREATE TABLE first_t (id integer primary key)']));
      await project.write('app__0002_long.sql', longMigration(target));
      await project.write('app__0003_after.sql', migration(['CREATE TABLE after_t (id integer)']));
      const { session, pid } = await killDuringLongStatement(target, project, url);
      try {
        // The lock row names the session that runs the migrations, in its token.
        const [row] = await queryOnce(target, url, 'SELECT token FROM mtool_lock');
        expect(String(row!.token)).toMatch(new RegExp(`^[0-9a-f]{32}\\.s${session}$`));

        const text = await project.run(['lock-status']);
        expect(text.code, explain(text)).toBe(0);
        expect(text.stdout.split('\n')[0]).toBe('Migration lock: ACTIVE');
        expect(text.stdout).toContain(`No process ${pid} runs on this host`);
        expect(text.stdout).toContain(`Its database session ${session} is still running on the server`);
        expect(text.stdout).toContain(`end it (\`${endStatement(target, session)}\`), and only then release the lock with \`mtool unlock --database app\`.`);
        expect(text.stdout).not.toContain('Release the lock with');

        const json = await project.json(['lock-status']);
        expect(json.data).toMatchObject({ lock_active: true, holder_running: false, holder_session_running: true, holder: { pid } });

        const again = await project.run(['migrate']);
        expect(again.code, explain(again)).toBe(1);
        expect(again.stderr).toContain(`Its database session ${session} is still running on the server`);
        expect(again.stderr).toContain(endStatement(target, session));
        expect(again.stderr).not.toContain('Release the lock with');
      } finally {
        await endSession(target, url, session);
      }

      const after = await project.run(['lock-status']);
      expect(after.stdout.split('\n')[0], explain(after)).toBe('Migration lock: ACTIVE');
      expect(after.stdout).toContain(`No process ${pid} runs on this host: the holder was killed or crashed`);
      expect(after.stdout).toContain('Release the lock with `mtool unlock --database app`.');
      expect(after.stdout).not.toContain('database session');
      expect((await project.json(['lock-status'])).data).toMatchObject({ holder_running: false, holder_session_running: false });
      const unlock = await project.run(['unlock']);
      expect(unlock.code, explain(unlock)).toBe(0);
      expect(unlock.stderr).not.toContain('although');
    }, 60_000);

    it('unlock while the killed run\'s session still runs warns, naming the session and how to end it, and releases the lock', async () => {
      const project = await fresh.create();
      const url = fresh.db.url;
      await project.write('app__0001_long.sql', longMigration(target));
      const { session } = await killDuringLongStatement(target, project, url);
      try {
        const unlock = await project.run(['unlock']);
        expect(unlock.code, explain(unlock)).toBe(0);
        expect(unlock.stderr).toContain(`releasing the migration lock on 'app' although its database session ${session} still runs on the server`);
        expect(unlock.stderr).toContain(`End session ${session} (\`${endStatement(target, session)}\`) or wait until it ends before migrating again.`);
        expect(unlock.stderr).toContain('migration lock released');
        expect((await project.run(['lock-status'])).stdout.trim()).toBe('Migration lock: INACTIVE');
      } finally {
        await endSession(target, url, session);
      }
    }, 60_000);

    it('a lock row whose token names no session (written before) keeps the process advice; a session the server does not run, or one younger than the lock, is not the holder\'s', async () => {
      const project = await fresh.create();
      const url = fresh.db.url;
      const init = await project.run(['migrate']); // creates the tracking and lock tables
      expect(init.code, explain(init)).toBe(0);

      await insertLockRow(target, url, '0123456789abcdef0123456789abcdef', new Date());
      const old = await project.run(['lock-status']);
      expect(old.stdout, explain(old)).toContain(`No process ${NO_SUCH_PID} runs on this host`);
      expect(old.stdout).toContain('Release the lock with `mtool unlock --database app`.');
      expect(old.stdout).not.toContain('database session');
      expect((await project.json(['lock-status'])).data).toMatchObject({ lock_active: true, holder_running: false, holder_session_running: null });
      const refused = await project.run(['migrate']);
      expect(refused.code, explain(refused)).toBe(1);
      expect(refused.stderr).toContain('Release the lock with `mtool unlock --database app`. Then run the command again.');
      const unlock = await project.run(['unlock']);
      expect(unlock.code, explain(unlock)).toBe(0);
      expect(unlock.stderr).not.toContain('although');

      // A session id no session has.
      await insertLockRow(target, url, '0123456789abcdef0123456789abcdef.s2000000000', new Date());
      expect((await project.json(['lock-status'])).data).toMatchObject({ holder_running: false, holder_session_running: false });
      expect((await project.run(['unlock'])).code).toBe(0);

      // A live session: the holder's while the lock is younger than it, another's with the same id
      // when the lock is older (PostgreSQL reuses pids; MySQL and MariaDB thread ids restart with the server).
      const other = await connectTo(target.type, url);
      try {
        const id = other.serverSession!;
        expect(id).toBeGreaterThan(0);
        await insertLockRow(target, url, `0123456789abcdef0123456789abcdef.s${id}`, new Date());
        const live = await project.run(['lock-status']);
        expect(live.stdout, explain(live)).toContain(`Its database session ${id} is still running on the server`);
        expect((await project.json(['lock-status'])).data).toMatchObject({ holder_session_running: true });
        expect((await project.run(['unlock'])).code).toBe(0);

        await insertLockRow(target, url, `0123456789abcdef0123456789abcdef.s${id}`, new Date(Date.now() - (await olderThanAnyReuse(target, url))));
        expect((await project.json(['lock-status'])).data).toMatchObject({ holder_session_running: false });
        expect((await project.run(['unlock'])).code).toBe(0);
      } finally {
        await other.close();
      }
    }, 60_000);
  });
}
