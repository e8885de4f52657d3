import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { runMtool } from '../support/cli.js';
import { explain, migration, projectPerTest } from './support/project.js';
import { start, waitFor } from './support/running.js';
import { TARGETS, queryOnce, tableExistsAt, targetReachable } from './support/targets.js';

/**
 * The migration lock on ClickHouse 18.16 (no unique key, no transaction: an append-only lock
 * table read with FINAL, see src/dialects/clickhouse/tracking.ts) seen from the command line:
 * 16 `migrate` processes at once on a fresh database, a SIGKILL in the middle of a long
 * migration, a lock row of another host and a lock table of a foreign layout.
 */

const PROCESSES = 16;
const clickhouse = TARGETS.find((t) => t.id === 'clickhouse-18.16')!;
const filenames = (history: { data: any }): string[] => history.data.databases.app.migrations.map((m: { filename: string }) => m.filename);

/** Queries the server is running whose text contains `fragment` (not this one). */
async function running(url: string, fragment: string): Promise<number> {
  const rows = await queryOnce(clickhouse, url, `SELECT count() AS n FROM system.processes WHERE query LIKE '%${fragment}%' AND query NOT LIKE '%system.processes%'`);
  return Number(rows[0]!.n);
}

describe.skipIf(!(await targetReachable(clickhouse)))('the migration lock on ClickHouse 18.16', () => {
  const fresh = projectPerTest(clickhouse);

  it(`${PROCESSES} concurrent migrate processes on a fresh database: exactly one applies each migration, the others exit 1 with the lock error`, async () => {
    for (let round = 0; round < 2; round++) {
      const project = await fresh.create();
      await project.write('app__0001_a.sql', migration(['CREATE TABLE a (id UInt32) ENGINE = MergeTree ORDER BY id']));
      // Long enough that every process has started before the winner finishes.
      await project.write('app__0002_slow.sql', migration(['SELECT sleep(3)', 'CREATE TABLE c (id UInt32) ENGINE = MergeTree ORDER BY id']));
      const results = await Promise.all(Array.from({ length: PROCESSES }, () => runMtool(['migrate'], { cwd: project.dir, timeoutMs: 90_000 })));
      const all = results.map(explain).join('\n=====\n');
      const winners = results.filter((r) => r.code === 0);
      expect(winners, all).toHaveLength(1);
      expect(winners[0]!.stdout).toMatch(/applied 2 migrations/);
      for (const loser of results.filter((r) => r.code !== 0)) {
        expect(loser.code, explain(loser)).toBe(1);
        expect(loser.stderr, explain(loser)).toContain('Another migration may be running');
        expect(loser.stderr).toContain('`mtool unlock --database app`');
      }
      // One row written per migration: no second run recorded one too.
      const rows = await queryOnce(clickhouse, fresh.db.url, 'SELECT filename, count() AS n FROM _mtool_migrations GROUP BY filename ORDER BY filename');
      expect(rows.map((r) => [r.filename, Number(r.n)])).toEqual([
        ['app__0001_a.sql', 1],
        ['app__0002_slow.sql', 1],
      ]);
      expect((await project.run(['lock-status'])).stdout.trim()).toBe('Migration lock: INACTIVE');
      // Every lock row written (the winner's, the withdrawn ones) is removed.
      const live = await queryOnce(clickhouse, fresh.db.url, 'SELECT count() AS n FROM (SELECT deleted FROM mtool_lock FINAL) WHERE deleted = 0');
      expect(Number(live[0]!.n)).toBe(0);
      await project.dispose();
      await fresh.db.drop();
    }
  }, 180_000);

  it('SIGKILL during a long statement: the tracking table never claims the migration, the lock stays ACTIVE with its holder; unlock, then the rerun fails clearly on what the killed run left', async () => {
    const project = await fresh.create();
    await project.write('app__0001_first.sql', migration(['CREATE TABLE first_t (id UInt32) ENGINE = MergeTree ORDER BY id']));
    await project.write('app__0002_long.sql', migration(['CREATE TABLE half_t (id UInt32) ENGINE = MergeTree ORDER BY id', 'SELECT sleep(3)', 'CREATE TABLE after_t (id UInt32) ENGINE = MergeTree ORDER BY id']));
    const run = start(project, ['migrate', '--verbose']);
    await waitFor('the long statement to run', async () => (await running(fresh.db.url, 'sleep(3)')) > 0);
    run.child.kill('SIGKILL');
    expect((await run.exit).signal).toBe('SIGKILL');
    await waitFor('the orphaned statement to end', async () => (await running(fresh.db.url, 'sleep(3)')) === 0, 15_000);

    expect(await tableExistsAt(clickhouse, fresh.db.url, 'half_t')).toBe(true);
    expect(await tableExistsAt(clickhouse, fresh.db.url, 'after_t')).toBe(false);
    expect(filenames(await project.json(['history']))).toEqual(['app__0001_first.sql']);

    const lock = await project.run(['lock-status']);
    expect(lock.stdout.split('\n')[0], explain(lock)).toBe('Migration lock: ACTIVE');
    expect(lock.stdout).toContain(`host '${hostname()}', pid ${run.child.pid}, command 'migrate --verbose'`);
    expect(lock.stdout).toContain(`No process ${run.child.pid} runs on this host`);
    const json = await project.json(['lock-status']);
    expect(json.data).toMatchObject({ database_type: 'clickhouse', lock_active: true, holder_running: false, holder: { pid: run.child.pid } });
    // locked_at is stored to the second (DateTime): held_for is at most a second more than the truth.
    expect(json.data.held_for_ms).toBeGreaterThan(0);
    expect(Math.abs(Date.now() - Date.parse(json.data.holder.locked_at) - json.data.held_for_ms)).toBeLessThan(3_000);
    const refused = await project.run(['migrate']);
    expect(refused.code, explain(refused)).toBe(1);
    expect(refused.stderr).toContain(`No process ${run.child.pid} runs on this host`);

    expect((await project.run(['unlock'])).code).toBe(0);
    expect((await project.run(['lock-status'])).stdout.trim()).toBe('Migration lock: INACTIVE');
    const again = await project.run(['migrate']);
    expect(again.code, explain(again)).toBe(1);
    expect(again.stderr).toMatch(/app__0002_long\.sql:2: .*half_t.* already exists/);
    expect(filenames(await project.json(['history']))).toEqual(['app__0001_first.sql']);
    expect((await project.run(['lock-status'])).stdout.trim()).toBe('Migration lock: INACTIVE');

    await project.write('app__0002_long.sql', migration(['CREATE TABLE IF NOT EXISTS half_t (id UInt32) ENGINE = MergeTree ORDER BY id', 'CREATE TABLE after_t (id UInt32) ENGINE = MergeTree ORDER BY id']));
    const fixed = await project.run(['migrate']);
    expect(fixed.code, explain(fixed)).toBe(0);
    expect(filenames(await project.json(['history']))).toEqual(['app__0001_first.sql', 'app__0002_long.sql']);
  }, 90_000);

  it('a lock row of another host: the refused migrate and lock-status give the advice for a holder this host cannot see; unlock releases it', async () => {
    const project = await fresh.create();
    await project.write('app__0001_a.sql', migration(['CREATE TABLE a (id UInt32) ENGINE = MergeTree ORDER BY id']));
    expect((await project.run(['migrate'])).code).toBe(0);
    await queryOnce(clickhouse, fresh.db.url, "INSERT INTO mtool_lock (token, locked_at, host, pid, command, seq, deleted) VALUES ('theirs', toDateTime('2026-01-01 00:00:00', 'UTC'), 'ci-runner-7', 4242, 'migrate', 1, 0)");
    await project.write('app__0002_b.sql', migration(['CREATE TABLE b (id UInt32) ENGINE = MergeTree ORDER BY id']));
    const lock = await project.run(['lock-status']);
    expect(lock.stdout).toContain("Held by host 'ci-runner-7', pid 4242, command 'migrate', since 2026-01-01T00:00:00.000Z");
    expect(lock.stdout).toContain("Warning: another mtool process may be running a migration on 'app'");
    const refused = await project.run(['migrate']);
    expect(refused.code, explain(refused)).toBe(1);
    expect(refused.stderr).toContain("held by host 'ci-runner-7', pid 4242");
    expect(await tableExistsAt(clickhouse, fresh.db.url, 'b')).toBe(false);
    expect((await project.run(['unlock'])).code).toBe(0);
    const again = await project.run(['migrate']);
    expect(again.code, explain(again)).toBe(0);
    expect(await tableExistsAt(clickhouse, fresh.db.url, 'b')).toBe(true);
  }, 60_000);

  it('a lock table of a foreign layout: lock-status, migrate and unlock fail clearly, saying what to do', async () => {
    const project = await fresh.create();
    await project.write('app__0001_a.sql', migration(['CREATE TABLE a (id UInt32) ENGINE = MergeTree ORDER BY id']));
    await queryOnce(clickhouse, fresh.db.url, 'CREATE TABLE mtool_lock (id UInt8, locked_at DateTime) ENGINE = MergeTree ORDER BY id');
    for (const command of ['lock-status', 'migrate', 'unlock']) {
      const result = await project.run([command]);
      expect(result.code, `${command}: ${explain(result)}`).toBe(1);
      expect(result.stderr, command).toContain("mtool's lock table mtool_lock has no columns token, host, pid, command, seq, deleted");
      expect(result.stderr, command).toContain('DROP TABLE mtool_lock');
    }
    expect(await tableExistsAt(clickhouse, fresh.db.url, 'a')).toBe(false);
    await queryOnce(clickhouse, fresh.db.url, 'DROP TABLE mtool_lock');
    expect((await project.run(['migrate'])).code).toBe(0);
  }, 60_000);
});
