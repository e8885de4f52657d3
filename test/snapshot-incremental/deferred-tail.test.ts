import { afterAll, describe, expect, it } from 'vitest';
import { disposeDialects, getDialect } from '../../src/dialects/index.js';
import * as engine from '../../src/main/engine/engine.js';
import { snapshotHooks } from '../../src/main/engine/snapshot-hook.js';
import { logger } from '../../src/main/log.js';
import { trackingTables } from '../../src/main/models/live-schema.js';
import { findLatestSnapshot } from '../../src/main/snapshot/index.js';
import { provision, TARGETS, targetReachable, type EngineTarget } from '../engine/support/targets.js';
import { batchProject, body, captureLogs } from './harness.js';
import { CASES } from './window-cases.js';

/**
 * `--defer-snapshots` reads the schema on a second connection while the batch's last
 * migrations run, then re-reads only the tables they touched (snapshot-hook.ts `readAhead`,
 * SchemaWindow.follow). Whatever that read saw (the schema before the tail, as PostgreSQL's
 * snapshot guarantees; on MySQL and MariaDB each table as some tail migration left it), the
 * snapshot must be the live schema at the end: checked for every split of the window cases.
 */

const logs = captureLogs();
afterAll(() => disposeDialects());

/**
 * A data migration that keeps the server busy for a few hundred milliseconds, so the read ahead
 * ends before the DDL after it. Calls no function ddl-targets does not know (pg_sleep may run
 * DDL, as far as it can tell: the snapshot would be read in full).
 */
const PAUSE: Record<string, string> = {
  postgresql: 'SELECT count(*) FROM (SELECT 1 FROM pg_class a, pg_class b, pg_class c LIMIT 4000000) pause',
  mysql: 'SELECT SLEEP(0.4)',
  mariadb: 'SELECT SLEEP(0.4)',
};

interface DeferredRun {
  error: unknown;
  snapshot: string | undefined;
  live: string;
  /** The snapshot's INFO line. */
  written: Record<string, unknown> | undefined;
  warnings: unknown[];
  debug: string[];
}

/** `migrate --defer-snapshots` of `migrations` on a fresh database, the last `tail` read ahead of. */
async function deferred(target: EngineTarget, migrations: readonly string[], tail: number, urlQuery = ''): Promise<DeferredRun> {
  const db = await provision(target);
  try {
    const { dir, config, entry } = await batchProject(target.type, db.url + urlQuery, migrations);
    logs.clear();
    let error: unknown;
    try {
      await engine.migrate(entry, { root: dir, log: logger }, { deferSnapshots: true, hooks: snapshotHooks({ root: dir, databases: config.databases, log: logger, tailMigrations: tail }) });
    } catch (e) {
      error = e;
    }
    const dialect = getDialect(target.type);
    const conn = await dialect.connect({ databaseName: 'app', url: db.url, root: dir });
    const live = body(await dialect.introspect(conn, { exclude: trackingTables(entry) }).finally(() => conn.close()));
    const snap = await findLatestSnapshot(dir, 'app');
    const logged = logs.logged();
    return {
      error,
      snapshot: snap ? body(snap) : undefined,
      live,
      written: logged.find((l) => String(l.message).startsWith('snapshot written in')),
      warnings: logged.filter((l) => l.level === 'WARNING').map((l) => l.message),
      debug: logged.filter((l) => l.level === 'DEBUG').map((l) => String(l.message)),
    };
  } finally {
    await disposeDialects();
    await db.drop();
  }
}

for (const id of ['postgresql', 'mysql', 'mariadb']) {
  const target = TARGETS.find((t) => t.id === id)!;
  const cases = CASES[id === 'mariadb' ? 'mysql' : id]!;
  describe.skipIf(!(await targetReachable(target)))(`deferred snapshot read ahead of the last migrations (${id})`, () => {
    it('is the live schema for every split of the batch, read before or while the tail runs', async () => {
      const introspections = new Set<unknown>();
      for (let tail = 1; tail <= cases.length; tail += tail < 4 ? 1 : 3) {
        for (const pause of [false, true]) {
          const head = cases.slice(0, cases.length - tail);
          const migrations = pause ? [...head, PAUSE[id]!, ...cases.slice(head.length)] : cases;
          const run = await deferred(target, migrations, pause ? tail + 1 : tail);
          const what = `tail of ${tail}${pause ? ' after a pause' : ''}`;
          expect(run.error, what).toBeUndefined();
          expect(run.warnings, what).toEqual([]);
          expect(run.snapshot, what).toBe(run.live);
          introspections.add(run.written?.introspection);
        }
      }
      // Some tails need a full read (a table touched twice, inheritance): both paths ran.
      expect([...introspections].sort()).toEqual(['full', 'partial']);
    }, 180_000);

    // MySQL and MariaDB name every table a statement changes: a table changed twice is read once, at the end.
    const namesEveryTable = id !== 'postgresql';
    it(`reads only the tables of the last migrations${namesEveryTable ? ', also one touched twice' : ', and in full where one touches a table an earlier one did'}`, async () => {
      const head = ['CREATE TABLE a (id int PRIMARY KEY)', 'CREATE TABLE b (id int PRIMARY KEY)'];
      const independent = await deferred(target, [...head, 'ALTER TABLE a ADD COLUMN x int', 'CREATE TABLE c (id int PRIMARY KEY)'], 2);
      expect(independent.snapshot).toBe(independent.live);
      expect(independent.written).toMatchObject({ introspection: 'partial', read_ahead_ms: expect.any(Number) });
      // After a pause: the read ends before the tail's DDL, so both changes of each table come after it.
      const twice = await deferred(target, [...head, PAUSE[id]!, 'ALTER TABLE a ADD COLUMN x int', 'CREATE TABLE c (id int PRIMARY KEY)', 'ALTER TABLE a ADD COLUMN y int', 'ALTER TABLE c ADD COLUMN z int'], 5);
      expect(twice.snapshot).toBe(twice.live);
      if (namesEveryTable) expect(twice.written).toMatchObject({ introspection: 'partial', read_ahead_ms: expect.any(Number) });
      else expect(twice.written).not.toHaveProperty('read_ahead_ms');
      expect(twice.written).toMatchObject({ introspection: namesEveryTable ? 'partial' : 'full' });
    }, 60_000);

    it('after a failing last migration is the schema the ones before it left', async () => {
      const run = await deferred(target, ['CREATE TABLE a (id int PRIMARY KEY)', 'CREATE TABLE b (id int PRIMARY KEY)', 'ALTER TABLE a ADD COLUMN x int', 'INSERT INTO nowhere VALUES (1)'], 3);
      expect(run.error).toMatchObject({ name: 'MigrationFailedError' });
      expect(run.snapshot).toBe(run.live);
      expect(run.written).toMatchObject({ introspection: 'partial', file: expect.stringMatching(/app__0003_m3\.schema\.json$/) });
    }, 60_000);
  });
}

const pgTarget = TARGETS.find((t) => t.id === 'postgresql')!;
describe.skipIf(!(await targetReachable(pgTarget)))('deferred snapshot with a pool of one session (postgresql)', () => {
  it('reads in full after the batch instead of waiting pool_timeout for a second session', async () => {
    // With pool_size=1 and max_overflow=0 the migration holds the only session: asking the pool
    // for another would wait the 30 s of pool_timeout (the test's 15 s would run out first).
    const run = await deferred(pgTarget, ['CREATE TABLE a (id int PRIMARY KEY)', 'CREATE TABLE b (id int PRIMARY KEY)'], 2, '?pool_size=1&max_overflow=0');
    expect(run.error).toBeUndefined();
    expect(run.snapshot).toBe(run.live);
    expect(run.written).toMatchObject({ introspection: 'full' });
    expect(run.debug.some((m) => /^schema not read ahead/.test(m))).toBe(true);
  }, 15_000);
});

describe('deferred snapshot on SQLite', () => {
  it('reads in full after the batch: migrations share group transactions, nothing is read ahead', async () => {
    const sqlite = TARGETS.find((t) => t.id === 'sqlite')!;
    const run = await deferred(sqlite, ['CREATE TABLE a (id integer PRIMARY KEY)', 'CREATE TABLE b (id integer PRIMARY KEY)'], 2);
    expect(run.snapshot).toBe(run.live);
    expect(run.written).toMatchObject({ introspection: 'full' });
  });
});
