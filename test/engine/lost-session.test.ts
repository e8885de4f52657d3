import { afterAll, describe, expect, it } from 'vitest';
import { explain, migration, projectOn } from './support/project.js';
import { TcpProxy } from './support/tcp-proxy.js';
import { TARGETS, queryOnce, tableExistsAt, targetReachable } from './support/targets.js';

/**
 * A migration whose session the server ends (an administrator's kill, a statement over MySQL's
 * max_allowed_packet, an idle timeout): the lock row, committed before anything ran, is removed
 * from a new connection instead of staying ACTIVE until `mtool unlock`; the failed migration is
 * not recorded; on PostgreSQL its transaction went with the session.
 */
const KILL_OWN_SESSION: Record<string, string> = {
  postgresql: 'SELECT pg_terminate_backend(pg_backend_pid())',
  mysql: 'KILL CONNECTION_ID()',
  mariadb: 'KILL CONNECTION_ID()',
};

for (const target of TARGETS.filter((t) => t.type in KILL_OWN_SESSION)) {
  const reachable = await targetReachable(target);
  const transactional = target.type === 'postgresql';
  describe.skipIf(!reachable)(`a migration whose session the server ends, on ${target.id}`, () => {
    const app = projectOn(target);

    it('fails naming the file and line, records nothing, and leaves the lock released', async () => {
      const { db, project } = app;
      await project.write('app__0001_a.sql', migration([target.createTable('a')], ['DROP TABLE a']));
      await project.write('app__0002_killed.sql', migration([target.createTable('k'), KILL_OWN_SESSION[target.type]!], ['DROP TABLE k']));
      const result = await project.run(['migrate']);
      expect(result.code, explain(result)).toBe(1);
      expect(result.stderr).toContain('error: app__0002_killed.sql:3: ');
      expect(result.stderr).toContain('the connection was lost: lock released from a new connection');
      expect(result.stderr).not.toContain('mtool unlock');
      if (transactional) expect(result.stderr).toContain('migration app__0002_killed.sql was rolled back as a whole');
      else expect(result.stderr).toMatch(/statements of migration app__0002_killed\.sql that already ran: line 2: CREATE TABLE k/);
      expect(await tableExistsAt(target, db.url, 'k')).toBe(!transactional);

      const lock = await project.run(['lock-status']);
      expect(lock.stdout.split('\n')[0], explain(lock)).toBe('Migration lock: INACTIVE');
      const recorded = await queryOnce(target, db.url, 'SELECT filename FROM _mtool_migrations ORDER BY filename');
      expect(recorded.map((r) => r.filename)).toEqual(['app__0001_a.sql']);

      // Fixed (and, where the DDL stayed, repaired), the next migrate goes on without `unlock`.
      if (!transactional) await queryOnce(target, db.url, 'DROP TABLE k');
      await project.write('app__0002_killed.sql', migration([target.createTable('k')], ['DROP TABLE k']));
      const again = await project.run(['migrate']);
      expect(again.code, explain(again)).toBe(0);
      expect(await tableExistsAt(target, db.url, 'k')).toBe(true);
    });
  });
}

/** Per server: a migration statement that runs for 3 s, and how to see that it is running. */
const SLOW: Record<string, { statement: string; running: string }> = {
  postgresql: {
    statement: 'SELECT pg_sleep(3)',
    running: "SELECT count(*) AS n FROM pg_stat_activity WHERE query LIKE '%pg_sleep(3)%' AND pid <> pg_backend_pid()",
  },
  mysql: {
    statement: 'SELECT SLEEP(3)',
    // The statement's text shows while the statements sent with it before it run: its state tells.
    running: "SELECT count(*) AS n FROM information_schema.PROCESSLIST WHERE INFO LIKE '%SLEEP(3)%' AND STATE = 'User sleep' AND ID <> CONNECTION_ID()",
  },
};

for (const target of TARGETS.filter((t) => t.type === 'postgresql' || t.type === 'mysql')) {
  const slow = SLOW[target.type]!;
  const transactional = target.type === 'postgresql';
  describe.skipIf(!(await targetReachable(target)))(`a ${target.id} connection that fails in the middle of a migration`, () => {
    let proxy: TcpProxy | undefined;
    // The project reaches the database through the proxy.
    const app = projectOn(target, async (db) => {
      const url = new URL(db.url);
      proxy = new TcpProxy(url.hostname, Number(url.port));
      await proxy.listen();
      url.port = String(proxy.port);
      return url.href;
    });
    afterAll(() => proxy?.close());
    const running = async () => Number((await queryOnce(target, app.db.url, slow.running))[0]?.n);

    it('says how far the database got is not known and where to see it, ends the orphaned server session and releases the lock', async () => {
      const { db, project } = app;
      await project.write('app__0001_slow.sql', migration([target.createTable('s'), slow.statement], ['DROP TABLE s']));
      const migrating = project.run(['migrate']);
      // Cut once the migration's slow statement is running on the server.
      for (let i = 0; i < 100 && (await running()) === 0; i++) await new Promise((resolve) => setTimeout(resolve, 50));
      // Sent in one message with the statement before it, whose answer mtool reads as it comes:
      // a busy machine may not have read it yet, and a reset connection drops what is unread.
      await new Promise((resolve) => setTimeout(resolve, 500));
      proxy!.cut();
      const result = await migrating;
      expect(result.code, explain(result)).toBe(1);
      if (transactional) {
        expect(result.stderr).toContain('the connection was lost while migration app__0001_slow.sql ran: the database rolls its transaction back unless the COMMIT had reached it first');
      } else {
        expect(result.stderr).toContain('the connection was lost while migration app__0001_slow.sql ran, so how far the database got is not known here (known to have run: line 2: CREATE TABLE s');
      }
      expect(result.stderr).toContain('Run `mtool status`');
      expect(result.stderr).toContain('the connection was lost: lock released from a new connection');
      expect(result.stderr).not.toContain('ROLLBACK failed');

      // mtool ended its orphaned server session before releasing the lock: the slow statement no
      // longer runs, the rest of what was sent with it never ran (the tracking row), and on
      // PostgreSQL nothing of the migration was committed.
      expect(await running()).toBe(0);
      const status = await project.json(['status']);
      expect(status.data.databases.app).toMatchObject({ lock_active: false, applied_migrations: 0, pending_migrations: 1 });
      expect(await tableExistsAt(target, db.url, 's')).toBe(!transactional);
    });
  });
}
