import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTo, randomName, TEST_URLS } from '../support/databases.js';
import { explain, migration, projectOn } from './support/project.js';
import { TcpProxy } from './support/tcp-proxy.js';
import { TARGETS, queryOnce, tableExistsAt, targetReachable } from './support/targets.js';

/**
 * The connection to the server breaks, or the server stops answering, at chosen points of a run
 * (lost-session.test.ts covers a session the server ends during a migration's statement, and a
 * connection cut while one runs): what mtool says, and what the lock and tracking tables hold.
 * The project reaches the database through a TCP proxy the test cuts or stalls when a given
 * text passes, as a network failure would.
 */
/** The project's URL: through a proxy, with `credentials` (user:password) when given. */
function proxied(onProxy: (proxy: TcpProxy) => void, credentials?: () => { user: string; password: string }) {
  return async (db: { url: string }): Promise<string> => {
    const url = new URL(db.url);
    const proxy = new TcpProxy(url.hostname, Number(url.port));
    await proxy.listen();
    onProxy(proxy);
    url.port = String(proxy.port);
    if (credentials) {
      url.username = credentials().user;
      url.password = credentials().password;
    }
    return url.href;
  };
}

const PASSWORD = 'Nl0ss_s3cret_pw';

/** The lock row's INSERT and the server's answer to it, by dialect. */
const LOCK_INSERT: Record<string, string> = { postgresql: 'INSERT INTO "mtool_lock"', mysql: 'INSERT INTO `mtool_lock`', mariadb: 'INSERT INTO `mtool_lock`' };

for (const target of TARGETS.filter((t) => t.type in LOCK_INSERT)) {
  const mysqlUser = target.type === 'postgresql' ? undefined : randomName('nlqa');
  describe.skipIf(!(await targetReachable(target)))(`the connection lost as the lock row is inserted, on ${target.id}`, () => {
    let proxy: TcpProxy | undefined;
    // PostgreSQL's trust authentication ignores the password; the URL carries one all the same.
    const credentials = () => ({ user: mysqlUser ?? 'postgres', password: PASSWORD });
    const app = projectOn(target, proxied((p) => (proxy = p), credentials));
    beforeAll(async () => {
      if (!mysqlUser) return;
      const database = new URL(app.db.url).pathname.slice(1);
      await queryOnce(target, TEST_URLS.mysql, `CREATE USER '${mysqlUser}'@'%' IDENTIFIED BY '${PASSWORD}'`);
      await queryOnce(target, TEST_URLS.mysql, `GRANT ALL ON \`${database}\`.* TO '${mysqlUser}'@'%'`);
    });
    afterAll(async () => {
      await proxy?.close();
      if (mysqlUser) await queryOnce(target, TEST_URLS.mysql, `DROP USER IF EXISTS '${mysqlUser}'@'%'`);
    });

    it('removes the row the server wrote, says so, and the next migrate runs without `mtool unlock`', async () => {
      const { db, project } = app;
      await project.write('app__0001_a.sql', migration([target.createTable('a')], ['DROP TABLE a']));
      // The server inserts (and commits) the row; its answer is lost with the connection.
      proxy!.arm(LOCK_INSERT[target.type]!, 'cut-answer');
      const result = await project.run(['migrate']);
      expect(result.code, explain(result)).toBe(1);
      expect(result.stderr).toContain('the connection was lost while the migration lock was taken: its row, which the server may have written, was removed from a new connection');
      expect(`${result.stdout}${result.stderr}`).not.toContain(PASSWORD);

      const lock = await project.run(['lock-status']);
      expect(lock.stdout.split('\n')[0], explain(lock)).toBe('Migration lock: INACTIVE');
      expect(await tableExistsAt(target, db.url, 'a')).toBe(false);

      const again = await project.run(['migrate']);
      expect(again.code, explain(again)).toBe(0);
      expect(await tableExistsAt(target, db.url, 'a')).toBe(true);
    });
  });
}

const postgresql = TARGETS.find((t) => t.type === 'postgresql')!;
/** A schema read for snapshots of some tables only: the read after migrations, never the first one of a run. */
const PARTIAL_READ = 'WITH RECURSIVE picked';

describe.skipIf(!(await targetReachable(postgresql)))('postgresql: the connection lost while the schema is read between two migrations', () => {
  let proxy: TcpProxy | undefined;
  const app = projectOn(postgresql, proxied((p) => (proxy = p)));
  afterAll(() => proxy?.close());

  it('does not call the next migration applied, nor name the database twice in the error', async () => {
    const { db, project } = app;
    await project.write('app__0001_a.sql', migration([postgresql.createTable('a')], ['DROP TABLE a']));
    // Touches the table 0001 made: the schema is read between the two, for 0001's snapshot.
    await project.write('app__0002_alter.sql', migration(['ALTER TABLE a ADD COLUMN x integer'], ['ALTER TABLE a DROP COLUMN x']));
    proxy!.arm(PARTIAL_READ, 'cut');
    const result = await project.run(['migrate']);
    expect(result.code, explain(result)).toBe(1);
    expect(result.stderr).toContain('before-migration hook for app__0002_alter.sql failed; the migrations are run all the same');
    expect(result.stderr).not.toContain('app__0002_alter.sql failed; the migration itself is applied and recorded');
    expect(result.stderr).not.toContain('postgresql (app): postgresql (app):');
    expect(result.stderr).toContain('the connection was lost: lock released from a new connection');
    const recorded = await queryOnce(postgresql, db.url, 'SELECT filename FROM _mtool_migrations ORDER BY filename');
    expect(recorded.map((r) => r.filename)).toEqual(['app__0001_a.sql']);
  });
});

describe.skipIf(!(await targetReachable(postgresql)))("postgresql: the connection lost while the schema is read after a run's last migration", () => {
  let proxy: TcpProxy | undefined;
  const app = projectOn(postgresql, proxied((p) => (proxy = p)));
  afterAll(() => proxy?.close());

  it('says the snapshots were not read, without sending the user to fix the snapshot folder', async () => {
    const { project } = app;
    await project.write('app__0001_a.sql', migration([postgresql.createTable('a')], ['DROP TABLE a']));
    await project.write('app__0002_b.sql', migration([postgresql.createTable('b')], ['DROP TABLE b']));
    proxy!.arm(PARTIAL_READ, 'cut');
    const result = await project.run(['migrate']);
    expect(result.code, explain(result)).toBe(0);
    expect(result.stderr).toMatch(/schema snapshots of database 'app' not written to \S+: app__0001_a\.sql, app__0002_b\.sql \(reading the schema failed: .*ECONNRESET/);
    expect(result.stderr).toContain('The migrations are applied and recorded. The next `migrate` that applies a migration writes a snapshot again');
    expect(result.stderr).not.toContain('Fix what keeps mtool from writing there');
    const status = await project.json(['status']);
    expect(status.data.databases.app).toMatchObject({ lock_active: false, applied_migrations: 2, pending_migrations: 0 });
  });
});

describe.skipIf(!(await targetReachable(postgresql)))('postgresql: the connection lost as the tracking row of a migration run outside a transaction is written', () => {
  let proxy: TcpProxy | undefined;
  const app = projectOn(postgresql, proxied((p) => (proxy = p)));
  afterAll(() => proxy?.close());

  it('says that every statement ran and how to record it, not to repair what it did', async () => {
    const { db, project } = app;
    await project.write('app__0001_a.sql', migration([postgresql.createTable('a')], ['DROP TABLE a']));
    await project.write('app__0002_index.sql', migration(['CREATE INDEX CONCURRENTLY a_name ON a (name)'], ['DROP INDEX CONCURRENTLY a_name']));
    // The index is built (outside any transaction); the row's INSERT never reaches the server.
    proxy!.arm("VALUES ('app__0002_index.sql'", 'cut');
    const result = await project.run(['migrate']);
    expect(result.code, explain(result)).toBe(1);
    expect(result.stderr).toContain(
      'the connection was lost after every statement of migration app__0002_index.sql had run (line 2: CREATE INDEX CONCURRENTLY a_name ON a (name)), as its tracking row was written. ' +
        'Run `mtool status` before running the command again: if it shows app__0002_index.sql applied, the row was written; if pending, its statements ran all the same: ' +
        'check that they did what they say, then record it without running it again: `mtool migrate --database app --baseline --to-version 0002`.',
    );
    expect(result.stderr).not.toContain('inspect the database for what its statements did and repair it');
    const indexes = await queryOnce(postgresql, db.url, "SELECT indexname FROM pg_indexes WHERE tablename = 'a' AND indexname = 'a_name'");
    expect(indexes).toHaveLength(1);

    // As the message says: the run's advice records it, and nothing runs twice.
    const baseline = await project.run(['migrate', '--database', 'app', '--baseline', '--to-version', '0002']);
    expect(baseline.code, explain(baseline)).toBe(0);
    const status = await project.json(['status']);
    expect(status.data.databases.app).toMatchObject({ lock_active: false, applied_migrations: 2, pending_migrations: 0 });
  });
});

const clickhouse = TARGETS.find((t) => t.type === 'clickhouse')!;

describe.skipIf(!(await targetReachable(clickhouse)))('clickhouse-18.16: the server stops answering during a migration', () => {
  let proxy: TcpProxy | undefined;
  // A short receive_timeout: the statement's request gives up after 2 s.
  const app = projectOn(clickhouse, async (db) => `${await proxied((p) => (proxy = p))(db)}?receive_timeout=2`);
  afterAll(() => proxy?.close());

  it('names the timeout and the server that did not answer when the statement cannot be stopped, and keeps the lock ACTIVE', async () => {
    const { db, project } = app;
    const marker = randomName('stall');
    await project.write('app__0001_stalled.sql', migration([`SELECT '${marker}'`], []));
    proxy!.arm(marker, 'stall');
    const result = await project.run(['migrate']);
    expect(result.code, explain(result)).toBe(1);
    expect(result.stderr).toContain('the request timed out: no answer within 2 s (receive_timeout=2 in the URL)');
    expect(result.stderr).toContain(`the statement could not be stopped on the server (no answer from 127.0.0.1:${proxy!.port} in time) and may still complete`);
    expect(result.stderr).not.toContain('The user aborted a request.');
    // The statement may still complete on the server: the lock is not released behind it.
    const conn = await connectTo(clickhouse.type, db.url);
    try {
      const { rows } = await conn.query('SELECT count() AS n FROM (SELECT token, deleted FROM mtool_lock FINAL) WHERE deleted = 0');
      expect(Number(rows[0]?.n)).toBe(1);
    } finally {
      await conn.close();
    }
  });
});
