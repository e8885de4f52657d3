import { afterAll, describe, expect, it } from 'vitest';
import { disposeDialects, getDialect } from '../../src/dialects/index.js';
import * as engine from '../../src/main/engine/engine.js';
import { FOLLOWED_TAIL } from '../../src/main/engine/deferred-snapshot.js';
import { snapshotHooks } from '../../src/main/engine/snapshot-hook.js';
import { logger } from '../../src/main/log.js';
import { trackingTables } from '../../src/main/models/live-schema.js';
import { findLatestSnapshot } from '../../src/main/snapshot/index.js';
import { provision, TARGETS, targetReachable, type EngineTarget } from '../engine/support/targets.js';
import { batchProject, body, captureLogs } from './harness.js';
import { CASES } from './window-cases.js';

/**
 * `--defer-snapshots` reads the schema on a second connection while the batch's last migrations
 * run (by default 128 on PostgreSQL; 256 on MySQL and MariaDB, which a SchemaFollower follows),
 * then re-reads only the tables they touched (deferred-snapshot.ts, SchemaWindow.follow).
 * Whatever that read saw (the schema before the tail, as PostgreSQL's snapshot guarantees; on
 * MySQL and MariaDB each table as some tail migration left it), the snapshot must be the live
 * schema at the end: checked for every split of the window cases.
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
  /** The schema reads for snapshots: how many tables each asked for (`all`: in full), in order. */
  reads: unknown[];
  /** How many tables each of those reads found. */
  readTables: unknown[];
}

/** `migrate --defer-snapshots` of `migrations` on a fresh database, the last `tail` read ahead of (undefined: as mtool chooses). */
async function deferred(target: EngineTarget, migrations: readonly string[], tail: number | undefined, urlQuery = ''): Promise<DeferredRun> {
  const db = await provision(target);
  try {
    const { dir, config, entry } = await batchProject(target.type, db.url + urlQuery, migrations);
    logs.clear();
    let error: unknown;
    try {
      await engine.migrate(entry, { root: dir, log: logger }, { deferSnapshots: true, hooks: snapshotHooks({ root: dir, databases: config.databases, log: logger, ...(tail === undefined ? {} : { tailMigrations: tail }) }) });
    } catch (e) {
      error = e;
    }
    const dialect = getDialect(target.type);
    const conn = await dialect.connect({ databaseName: 'app', url: db.url, root: dir });
    const live = body(await dialect.introspect(conn, { exclude: trackingTables(entry) }).finally(() => conn.close()));
    const snap = await findLatestSnapshot(dir, 'app');
    const logged = logs.logged();
    const reads = logged.filter((l) => String(l.message).startsWith('schema read for snapshots'));
    return {
      error,
      snapshot: snap ? body(snap) : undefined,
      live,
      written: logged.find((l) => String(l.message).startsWith('snapshot written in')),
      warnings: logged.filter((l) => l.level === 'WARNING').map((l) => l.message),
      debug: logged.filter((l) => l.level === 'DEBUG').map((l) => String(l.message)),
      reads: reads.map((l) => l.asked),
      readTables: reads.map((l) => l.tables),
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
      // PostgreSQL: some tails need a full read (a table touched twice, inheritance), so both
      // paths ran. MySQL and MariaDB follow every split (a table touched twice is read once).
      expect([...introspections].sort()).toEqual(id === 'postgresql' ? ['full', 'partial'] : ['partial']);
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

/**
 * A batch of several messages (the executor sends up to 100 migrations in one): tables created,
 * altered, renamed, indexed and dropped across message boundaries, so the follower's reads see
 * tables that later messages change again.
 */
function longBatch(count: number, unknownAt?: number): string[] {
  const out: string[] = [];
  const live: string[] = [];
  const older = (back: number) => live[Math.max(0, live.length - 1 - back)]!;
  for (let i = 0; out.length < count; i++) {
    out.push(`CREATE TABLE t${i} (id int PRIMARY KEY, name varchar(20))`);
    live.push(`t${i}`);
    if (i % 9 === 4) out.push(`ALTER TABLE ${older(3)} ADD COLUMN late${i} int`);
    if (i % 23 === 11) {
      const from = older(10);
      out.push(`RENAME TABLE ${from} TO r${i}`);
      live[live.indexOf(from)] = `r${i}`;
    }
    if (i % 31 === 20) out.push(`CREATE INDEX ix${i} ON ${older(1)} (name)`);
    if (i % 37 === 30) {
      const gone = older(2);
      out.push(`DROP TABLE ${gone}`);
      live.splice(live.indexOf(gone), 1);
    }
    if (unknownAt !== undefined && out.length === unknownAt) out.push(`CREATE VIEW v${i} AS SELECT 1 AS one`);
  }
  return out.slice(0, count);
}

for (const id of ['mysql', 'mariadb']) {
  const target = TARGETS.find((t) => t.id === id)!;
  describe.skipIf(!(await targetReachable(target)))(`deferred snapshot followed while the batch runs (${id})`, () => {
    it('reads the tables of migrations as their records are written, and at the end only those of the last few', async () => {
      const migrations = longBatch(FOLLOWED_TAIL + 64);
      const run = await deferred(target, migrations, undefined);
      expect(run.error).toBeUndefined();
      expect(run.warnings).toEqual([]);
      expect(run.snapshot).toBe(run.live);
      expect(run.written).toMatchObject({ introspection: 'partial', read_ahead_ms: expect.any(Number), followed_at_end: expect.any(Number) });
      // In full as the tail (the last FOLLOWED_TAIL) starts, then the tables of the migrations
      // recorded since the last read (ten to a row group) once 30 wait: fewer than 30 left after
      // the batch (the tail's last message alone holds 56).
      expect(run.reads[0]).toBe('all');
      expect(run.reads.length).toBeGreaterThanOrEqual(5);
      expect(run.reads[run.reads.length - 1]).toEqual(expect.any(Number));
      expect(run.written!.followed_at_end).toBeLessThan(30);
      // Only the tail is followed: the read in full comes as it starts, after the migrations
      // before it made their tables (read at the batch's start, it found fewer).
      const head = migrations.slice(0, -FOLLOWED_TAIL);
      const beforeTail = head.filter((m) => m.startsWith('CREATE TABLE')).length - head.filter((m) => m.startsWith('DROP TABLE')).length;
      expect(run.readTables[0]).toBeGreaterThanOrEqual(beforeTail);
    }, 60_000);

    it('reads in full after a migration whose tables it cannot tell, and follows on', async () => {
      const run = await deferred(target, longBatch(180, 120), undefined);
      expect(run.error).toBeUndefined();
      expect(run.snapshot).toBe(run.live);
      expect(run.written).toMatchObject({ introspection: 'partial' });
      expect(run.reads.filter((r) => r === 'all').length).toBeGreaterThanOrEqual(2);
    }, 60_000);

    it('after a migration failing in the third message is the schema the ones before it left', async () => {
      const migrations = longBatch(230);
      migrations[219] = 'INSERT INTO nowhere VALUES (1)';
      const run = await deferred(target, migrations, undefined);
      expect(run.error).toMatchObject({ name: 'MigrationFailedError' });
      expect(run.snapshot).toBe(run.live);
      expect(run.written).toMatchObject({ introspection: 'partial', file: expect.stringMatching(/app__0219_m219\.schema\.json$/) });
    }, 60_000);

    it('writes nothing and says nothing of a snapshot when the first migration fails', async () => {
      const run = await deferred(target, ['INSERT INTO nowhere VALUES (1)', 'CREATE TABLE a (id int PRIMARY KEY)'], undefined);
      expect(run.error).toMatchObject({ name: 'MigrationFailedError' });
      expect(run.snapshot).toBeUndefined();
      expect(run.written).toBeUndefined();
      expect(run.warnings).toEqual([]);
    }, 30_000);
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
