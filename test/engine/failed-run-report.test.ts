import { describe, expect, it } from 'vitest';
import type { CliResult } from '../support/cli.js';
import { TestProject, explain, migration, projectPerTest } from './support/project.js';
import { waitFor } from './support/running.js';
import { TARGETS, queryOnce, tableExistsAt, targetReachable, type EngineTarget } from './support/targets.js';

/**
 * Whatever a run fails with once it has started (a statement error on its first migration, a
 * session the server ends, an answer that times out, an engine whose session the failure left
 * unusable), it says on stdout what it completed before the failure and the version it left the
 * database at, in text and in the JSON document. The partial-run suite covers a statement error
 * after some migrations; this one covers the other ways.
 */

const target = (id: string): EngineTarget => TARGETS.find((t) => t.id === id)!;

/** Text head of a failed run's block. */
const failedHead = (type: string, verb: string, n: number, at: string) =>
  new RegExp(`^app \\(${type}\\): ${verb} ${n} migrations? before the failure, now at version ${at}(\\n|$)`);

for (const t of ['postgresql', 'mysql', 'sqlite'].map(target)) {
  const reachable = await targetReachable(t);
  describe.skipIf(!reachable)(`the first migration of a run fails, on ${t.id}`, () => {
    const fresh = projectPerTest(t);

    it('migrate: text and JSON still say the version the database was left at', async () => {
      const p = await fresh.create();
      await p.write('app__0001_a.sql', migration([t.createTable('a')], ['DROP TABLE a']));
      expect((await p.run(['migrate'])).code).toBe(0);
      // Pending 0002 creates a table that exists: it fails first thing.
      await p.write('app__0002_b.sql', migration([t.createTable('a')], ['DROP TABLE a']));

      const text = await p.run(['migrate']);
      expect(text.code, explain(text)).toBe(1);
      expect(text.stdout).toMatch(failedHead(t.type, 'applied', 0, '0001'));
      expect(text.stderr).toMatch(/error: app__0002_b\.sql:2: /);

      for (const args of [['migrate'], ['migrate', '--all']]) {
        const { result, data } = await p.json(args);
        expect(result.code, explain(result)).toBe(1);
        expect(data.databases.app).toEqual(
          expect.objectContaining({ status: 'failed', database_type: t.type, command: 'migrate', current_version: '0001', migrations: [], code: 'MTOOL_MIGRATION_FAILED' }),
        );
      }
    });

    it('rollback: a failing first rollback still says the version the database is at', async () => {
      const p = await fresh.create();
      await p.write('app__0001_a.sql', migration([t.createTable('a')], ['DROP TABLE missing_table']));
      expect((await p.run(['migrate'])).code).toBe(0);
      const text = await p.run(['rollback']);
      expect(text.code, explain(text)).toBe(1);
      expect(text.stdout).toMatch(failedHead(t.type, 'rolled back', 0, '0001'));
      const { data } = await p.json(['rollback']);
      expect(data.databases.app).toMatchObject({ status: 'failed', command: 'rollback', current_version: '0001', migrations: [], code: 'MTOOL_MIGRATION_FAILED' });
    });
  });
}

/**
 * A statement that sleeps, and how to find and end its session from outside (an administrator's
 * `pg_terminate_backend` / `KILL CONNECTION`): the client sees its connection lost.
 */
const SLEEPS: Record<string, { sleep: string; find: string; kill: (id: unknown) => string }> = {
  postgresql: {
    sleep: 'SELECT pg_sleep(4.5)',
    find: "SELECT pid AS id FROM pg_stat_activity WHERE datname = current_database() AND query LIKE '%sleep(4.5)%' AND pid <> pg_backend_pid()",
    kill: (id) => `SELECT pg_terminate_backend(${Number(id)})`,
  },
  mariadb: {
    sleep: 'SELECT SLEEP(4.5)',
    find: "SELECT id FROM information_schema.processlist WHERE db = DATABASE() AND info LIKE '%SLEEP(4.5)%' AND id <> CONNECTION_ID()",
    kill: (id) => `KILL CONNECTION ${Number(id)}`,
  },
};

/** Run `mtool <args>` and end its session from outside once its sleeping statement runs. */
async function runKillingTheSleep(t: EngineTarget, url: string, p: TestProject, args: string[]): Promise<CliResult> {
  const running = p.run(args);
  const { find, kill } = SLEEPS[t.type]!;
  await waitFor('the sleeping statement', async () => {
    const rows = await queryOnce(t, url, find);
    if (rows.length === 0) return false;
    await queryOnce(t, url, kill(rows[0]!.id));
    return true;
  }, 20_000);
  return running;
}

for (const t of ['postgresql', 'mariadb'].map(target)) {
  const reachable = await targetReachable(t);
  describe.skipIf(!reachable)(`a run whose session the server ends, on ${t.id}`, () => {
    const fresh = projectPerTest(t);

    it('migrate: lists the migrations applied before it, in text and JSON', async () => {
      const p = await fresh.create();
      await p.write('app__0001_a.sql', migration([t.createTable('a')], ['DROP TABLE a']));
      await p.write('app__0002_sleep.sql', migration([SLEEPS[t.type]!.sleep], ['SELECT 1']));

      const text = await runKillingTheSleep(t, fresh.db.url, p, ['migrate']);
      expect(text.code, explain(text)).toBe(1);
      expect(text.stdout).toMatch(failedHead(t.type, 'applied', 1, '0001'));
      expect(text.stdout).toMatch(/\n {2}applied +0001 +app__0001_a\.sql /);

      await p.run(['rollback']);
      const result = await runKillingTheSleep(t, fresh.db.url, p, ['migrate', '--all', '--json']);
      expect(result.code, explain(result)).toBe(1);
      const app = JSON.parse(result.stdout).databases.app;
      expect(app).toMatchObject({ status: 'failed', command: 'migrate', current_version: '0001' });
      expect(app.migrations.map((m: { filename: string }) => m.filename)).toEqual(['app__0001_a.sql']);
    });
  });
}

describe.skipIf(!(await targetReachable(target('mariadb'))))('a rollback whose session the server ends, on mariadb', () => {
  const t = target('mariadb');
  const fresh = projectPerTest(t);

  it('says the interrupted migration is still recorded and may be partly rolled back, not what a migrate would', async () => {
    const p = await fresh.create();
    await p.write('app__0001_a.sql', migration([t.createTable('a')], ['DROP TABLE a']));
    await p.write('app__0002_c.sql', migration([t.createTable('c1')], ['DROP TABLE c1', SLEEPS.mariadb!.sleep]));
    await p.write('app__0003_d.sql', migration([t.createTable('d')], ['DROP TABLE d']));
    expect((await p.run(['migrate'])).code).toBe(0);

    const result = await runKillingTheSleep(t, fresh.db.url, p, ['rollback', '--count', '3']);
    expect(result.code, explain(result)).toBe(1);
    expect(result.stdout).toMatch(failedHead('mariadb', 'rolled back', 1, '0002'));
    expect(result.stderr).toMatch(/the connection was lost while the rollback of app__0002_c\.sql ran/);
    expect(result.stderr).toMatch(/if app__0002_c\.sql is no longer recorded, the database finished its rollback\. If it is still recorded, it may be partly rolled back .*inspect the database .* before running `mtool rollback` again/);
    expect(result.stderr).not.toContain('for one that is not recorded');
    // It is: its DROP ran, its record stayed.
    expect(await tableExistsAt(t, fresh.db.url, 'c1')).toBe(false);
    const status = await p.json(['status']);
    expect(status.data.databases.app.current_version).toBe('0002');
  });
});

describe.skipIf(!(await targetReachable(target('clickhouse-18.16'))))('a ClickHouse statement whose answer times out (receive_timeout)', () => {
  const t = target('clickhouse-18.16');
  const fresh = projectPerTest(t);

  it('migrate lists the migrations applied before it, in text and JSON', async () => {
    const p = await fresh.create((db) => `${db.url}?receive_timeout=1`);
    await p.write('app__0001_a.sql', migration([t.createTable('a')], ['DROP TABLE a']));
    await p.write('app__0002_sleep.sql', migration(['SELECT sleep(3)'], ['SELECT 1']));
    const text = await p.run(['migrate']);
    expect(text.code, explain(text)).toBe(1);
    expect(text.stdout).toMatch(failedHead('clickhouse', 'applied', 1, '0001'));
    expect(text.stdout).toMatch(/\n {2}applied +0001 +app__0001_a\.sql /);
  });
});

describe('a failure on chdb (in-process ClickHouse)', () => {
  it('migrate lists the migrations applied before it, in text and JSON', async () => {
    // The failed statement leaves the run's chdb session unable to read the tracking table.
    const p = await TestProject.create([{ name: 'app', type: 'clickhouse', url: 'chdb:///data' }]);
    try {
      await p.write('app__0001_a.sql', migration(['CREATE TABLE a (x UInt8) ENGINE = Memory'], ['DROP TABLE a']));
      await p.write('app__0002_b.sql', migration(['CREATE TABLE t2 (x UInt8) ENGINE = Memory', "SELECT throwIf(1, 'boom')"], ['DROP TABLE t2']));
      const text = await p.run(['migrate']);
      expect(text.code, explain(text)).toBe(1);
      expect(text.stdout).toMatch(failedHead('clickhouse', 'applied', 1, '0001'));
      expect(text.stdout).toMatch(/\n {2}applied +0001 +app__0001_a\.sql /);

      // t2 stayed (no transactions): now 0002 fails first thing.
      const { result, data } = await p.json(['migrate']);
      expect(result.code, explain(result)).toBe(1);
      expect(data.databases.app).toMatchObject({ status: 'failed', command: 'migrate', current_version: '0001', migrations: [] });
    } finally {
      await p.dispose();
    }
  }, 60_000);
});

for (const t of ['postgresql', 'sqlite'].map(target)) {
  const reachable = await targetReachable(t);
  describe.skipIf(!reachable)(`--to-version naming no usable version, on ${t.id}`, () => {
    const fresh = projectPerTest(t);

    it('migrate --to-version of no migration: MTOOL_NOT_FOUND (exit 1), before the lock, creating nothing', async () => {
      const p = await fresh.create();
      await p.write('app__0001_a.sql', migration([t.createTable('a')], ['DROP TABLE a']));
      const result = await p.run(['migrate', '--to-version', '0099']);
      expect(result.code, explain(result)).toBe(1);
      expect(result.stderr).toMatch(/error: database 'app': no migration has version 0099/);
      expect(result.stderr).not.toContain('lock acquired');
      expect(await tableExistsAt(t, fresh.db.url, '_mtool_migrations')).toBe(false);
      const { data } = await p.json(['migrate', '--to-version', '0099']);
      expect(data.databases.app).toMatchObject({ status: 'failed', code: 'MTOOL_NOT_FOUND' });

      // An applied migration whose file is gone still names a version.
      expect((await p.run(['migrate'])).code).toBe(0);
      await p.remove('app__0001_a.sql');
      const applied = await p.run(['migrate', '--to-version', '0001']);
      expect(applied.code, explain(applied)).toBe(0);
    });

    it('rollback --to-version of a version that is not applied is refused like downgrade, before the lock', async () => {
      const p = await fresh.create();
      for (const [v, name] of [['0001', 'a'], ['0002', 'b'], ['0003', 'c']]) await p.write(`app__${v}_${name}.sql`, migration([t.createTable(name)], [`DROP TABLE ${name}`]));
      expect((await p.run(['migrate'])).code).toBe(0);

      const downgrade = await p.json(['downgrade', '--to', '0099']);
      for (const version of ['0099', '0000', '0']) {
        const result = await p.run(['rollback', '--to-version', version]);
        expect(result.code, explain(result)).toBe(downgrade.result.code);
        expect(result.stderr).toMatch(new RegExp(`error: database 'app': cannot roll back to version ${version}: it is not applied \\(applied versions: 0001, 0002, 0003\\); nothing was rolled back`));
        expect(result.stderr).not.toContain('lock acquired');
        const { data } = await p.json(['rollback', '--to-version', version]);
        expect(data.databases.app.code).toBe(downgrade.data.databases.app.code);
      }
      expect(downgrade.data.databases.app.code).toBe('MTOOL_ROLLBACK');
      expect((await p.run(['rollback', '--to-version', '0000'])).stderr).toContain('`mtool rollback --database app --count 3` to roll back the 3 applied above it');
      expect((await p.json(['status'])).data.databases.app.current_version).toBe('0003');

      // An applied target still works as before: it stays applied.
      const ok = await p.run(['rollback', '--to-version', '0001']);
      expect(ok.code, explain(ok)).toBe(0);
      expect(ok.stdout).toMatch(/rolled back 2 migrations in .*, now at version 0001/);
    });
  });
}
