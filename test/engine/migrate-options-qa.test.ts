import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TestProject, explain, migration, projectPerTest } from './support/project.js';
import { start, waitFor } from './support/running.js';
import { TARGETS, provision, targetReachable, type ProvisionedDatabase } from './support/targets.js';

/**
 * `migrate`'s options and repeatable migrations end to end on every database type (ClickHouse
 * through the embedded chdb): `--baseline --to-version`, `--dry-run`, `--count` and
 * `--to-version` with repeatables pending, RA__/ROC__ files that change, fail, vanish or are
 * renamed, and a versioned file below the applied version.
 */

interface Target {
  id: string;
  type: 'postgresql' | 'mysql' | 'mariadb' | 'sqlite' | 'clickhouse';
  /** Whether a failing migration is undone whole (its statements in one transaction). */
  transactionalDdl: boolean;
  /** Whether the database has transactions at all (a file can run outside one). */
  transactions: boolean;
  table(name: string): string;
  provision(): Promise<ProvisionedDatabase>;
}

const plain = (name: string) => `CREATE TABLE ${name} (id integer primary key)`;
const engineTarget = (id: string) => TARGETS.find((t) => t.id === id)!;

const CANDIDATES: { target: Target; reachable: () => Promise<boolean> }[] = [
  ...(['postgresql', 'mysql', 'mariadb', 'sqlite'] as const).map((id) => ({
    target: { id, type: id, transactionalDdl: id === 'postgresql' || id === 'sqlite', transactions: true, table: plain, provision: () => provision(engineTarget(id)) } as Target,
    reachable: () => targetReachable(engineTarget(id)),
  })),
  {
    target: {
      id: 'clickhouse (chdb)',
      type: 'clickhouse',
      transactionalDdl: false,
      transactions: false,
      table: (name) => `CREATE TABLE ${name} (id Int32) ENGINE = MergeTree ORDER BY id`,
      provision: async () => ({ url: 'chdb:///chdata', drop: async () => undefined }),
    },
    reachable: async () => true,
  },
  {
    target: {
      id: 'clickhouse-18.16',
      type: 'clickhouse',
      transactionalDdl: false,
      transactions: false,
      table: (name) => `CREATE TABLE ${name} (id Int32) ENGINE = MergeTree ORDER BY id`,
      provision: () => provision(engineTarget('clickhouse-18.16')),
    },
    reachable: () => targetReachable(engineTarget('clickhouse-18.16')),
  },
];

const sha = (text: string) => createHash('sha256').update(text).digest('hex');

/** Tables of the database as `check-db` lists them (mtool's own tables left out). */
async function tables(project: TestProject): Promise<string[]> {
  const result = await project.run(['check-db', '--out', 'json']);
  expect(result.code, explain(result)).toBe(0);
  return Object.keys(JSON.parse(result.stdout).tables).sort();
}

interface HistoryRow {
  filename: string;
  version: string | null;
  type: string;
  description: string;
  checksum: string;
  applied_at: string;
  execution_ms: number;
  applied_by: string;
}

async function history(project: TestProject): Promise<HistoryRow[]> {
  const { result, data } = await project.json(['history']);
  expect(result.code, explain(result)).toBe(0);
  return data.databases.app.migrations;
}

async function states(project: TestProject): Promise<Record<string, string>> {
  const { result, data } = await project.json(['status']);
  expect(result.code, explain(result)).toBe(0);
  return Object.fromEntries(data.databases.app.migrations.map((m: { filename: string; state: string }) => [m.filename, m.state]));
}

async function lockInactive(project: TestProject): Promise<void> {
  const lock = await project.run(['lock-status']);
  expect(lock.code, explain(lock)).toBe(0);
  expect(lock.stdout.trim()).toBe('Migration lock: INACTIVE');
}

const snapshots = (project: TestProject): string[] => {
  const dir = join(project.dir, '.mtool', 'schemas');
  return existsSync(dir) ? readdirSync(dir).sort() : [];
};

for (const { target: t, reachable } of CANDIDATES) {
  const up = await reachable();

  describe.skipIf(!up)(`migrate options and repeatables on ${t.id}`, () => {
    let db: ProvisionedDatabase | undefined;
    let project: TestProject | undefined;
    afterEach(async () => {
      await project?.dispose();
      await db?.drop();
      project = undefined;
      db = undefined;
    });
    /** A fresh database and a project on it holding `files`. */
    const fresh = async (files: Record<string, string>): Promise<TestProject> => {
      db = await t.provision();
      project = await TestProject.create([{ name: 'app', type: t.type, url: db.url }]);
      for (const [name, content] of Object.entries(files)) await project.write(name, content);
      return project;
    };
    const ifNotExists = (name: string) => t.table(name).replace('CREATE TABLE', 'CREATE TABLE IF NOT EXISTS');
    const four = (): Record<string, string> => ({
      'app__0001_one.sql': migration([t.table('t1')], ['DROP TABLE t1']),
      'app__0002_two.sql': migration([t.table('t2')], ['DROP TABLE t2']),
      'app__0003_three.sql': migration([t.table('t3')], ['DROP TABLE t3']),
      'app__0004_four.sql': migration([t.table('t4')], ['DROP TABLE t4']),
      'RA__always.sql': migration([ifNotExists('ra_t')], ['DROP TABLE ra_t']),
      'ROC__on_change.sql': migration([ifNotExists('roc_t')]),
    });

    it('--baseline --to-version on an empty database records without running; status, history and a later migrate agree', async () => {
      const files = four();
      const p = await fresh(files);
      const { result, data } = await p.json(['migrate', '--baseline', '--to-version', '0002']);
      expect(result.code, explain(result)).toBe(0);
      expect(data.databases.app).toMatchObject({
        status: 'ok',
        current_version: '0002',
        migrations: [
          { filename: 'app__0001_one.sql', version: '0001', type: 'versioned', action: 'baselined' },
          { filename: 'app__0002_two.sql', version: '0002', type: 'versioned', action: 'baselined' },
        ],
      });
      // Nothing ran: no table, no repeatable, no snapshot.
      expect(await tables(p)).toEqual([]);
      expect(snapshots(p)).toEqual([]);
      const rows = await history(p);
      expect(rows.map((r) => r.filename)).toEqual(['app__0001_one.sql', 'app__0002_two.sql']);
      expect(rows[0]).toMatchObject({ version: '0001', type: 'versioned', description: 'one', checksum: sha(files['app__0001_one.sql']!), execution_ms: 0 });
      expect(rows[1]).toMatchObject({ version: '0002', type: 'versioned', description: 'two', checksum: sha(files['app__0002_two.sql']!), execution_ms: 0 });
      for (const row of rows) {
        expect(row.applied_by).toMatch(/.+@.+/);
        expect(Date.parse(row.applied_at)).toBeGreaterThan(Date.now() - 10 * 60_000);
      }
      expect(await states(p)).toEqual({
        'app__0001_one.sql': 'applied',
        'app__0002_two.sql': 'applied',
        'app__0003_three.sql': 'pending',
        'app__0004_four.sql': 'pending',
        'RA__always.sql': 'pending',
        'ROC__on_change.sql': 'pending',
      });

      const text = await p.run(['migrate', '--baseline', '--to-version', '0003']);
      expect(text.code, explain(text)).toBe(0);
      expect(text.stdout).toMatch(/^app \([a-z]+\): baselined 1 migration in .*, now at version 0003\n {2}baselined {3}0003 {2}app__0003_three\.sql\n$/);

      const migrated = await p.json(['migrate']);
      expect(migrated.result.code, explain(migrated.result)).toBe(0);
      expect(migrated.data.databases.app.migrations.map((m: { filename: string; action: string }) => `${m.action} ${m.filename}`)).toEqual([
        'applied app__0004_four.sql',
        'applied RA__always.sql',
        'applied ROC__on_change.sql',
      ]);
      expect(await tables(p)).toEqual(['ra_t', 'roc_t', 't4']);
      expect(Object.values(await states(p)).every((s) => s === 'applied')).toBe(true);
      await lockInactive(p);
    }, 180_000);

    it('--baseline at or below the current version does nothing; an unknown version records nothing; with --dry-run and --count', async () => {
      const p = await fresh(four());
      const first = await p.run(['migrate', '--to-version', '0002']);
      expect(first.code, explain(first)).toBe(0);
      const before = await history(p);

      for (const version of ['0001', '0002']) {
        const { result, data } = await p.json(['migrate', '--baseline', '--to-version', version]);
        expect(result.code, explain(result)).toBe(0);
        expect(data.databases.app).toMatchObject({ status: 'ok', current_version: '0002', migrations: [] });
      }
      const unknown = await p.json(['migrate', '--baseline', '--to-version', '0007']);
      expect(unknown.result.code, explain(unknown.result)).toBe(1);
      expect(unknown.data.databases.app).toMatchObject({ status: 'failed', code: 'MTOOL_NOT_FOUND' });
      expect(unknown.data.databases.app.error).toContain('no migration has version 0007');

      const dry = await p.run(['migrate', '--baseline', '--to-version', '0004', '--dry-run']);
      expect(dry.code, explain(dry)).toBe(0);
      expect(dry.stdout).toContain('dry run, 2 migrations would be baselined; nothing was written (at version 0002)');
      expect(dry.stdout).toContain('-- app__0003_three.sql');
      expect(dry.stdout).toContain('-- app__0004_four.sql');
      expect(dry.stdout).not.toContain('CREATE TABLE');
      expect(dry.stdout).not.toContain('RA__always.sql');
      // The JSON says what a dry run says of the other migrations: what would happen (it said `baselined`).
      const dryJson = await p.json(['migrate', '--baseline', '--to-version', '0004', '--dry-run']);
      expect(dryJson.result.code, explain(dryJson.result)).toBe(0);
      expect(dryJson.data.databases.app).toMatchObject({
        dry_run: true,
        current_version: '0002',
        migrations: [
          { filename: 'app__0003_three.sql', action: 'would_baseline' },
          { filename: 'app__0004_four.sql', action: 'would_baseline' },
        ],
      });
      expect(await history(p)).toEqual(before);

      const counted = await p.json(['migrate', '--baseline', '--to-version', '0004', '--count', '1']);
      expect(counted.result.code, explain(counted.result)).toBe(0);
      expect(counted.data.databases.app).toMatchObject({ current_version: '0003', migrations: [{ filename: 'app__0003_three.sql', action: 'baselined' }] });
      expect((await history(p)).map((r) => r.filename)).toEqual([...before.map((r) => r.filename), 'app__0003_three.sql']);
      expect(await tables(p)).toEqual(['ra_t', 'roc_t', 't1', 't2']);
      await lockInactive(p);
    }, 180_000);

    it('--dry-run prints the SQL in run order and writes nothing: no table, no snapshot, no SQLite file; a checksum mismatch still fails', async () => {
      const files = four();
      const p = await fresh(files);
      const dry = await p.run(['migrate', '--dry-run']);
      expect(dry.code, explain(dry)).toBe(0);
      const order = ['app__0001_one.sql', 'app__0002_two.sql', 'app__0003_three.sql', 'app__0004_four.sql', 'RA__always.sql', 'ROC__on_change.sql'];
      const positions = order.map((f) => dry.stdout.indexOf(`-- ${f}\n`));
      expect(positions.every((at, i) => at >= 0 && (i === 0 || at > positions[i - 1]!)), dry.stdout).toBe(true);
      expect(dry.stdout).toContain(`-- app__0001_one.sql\n${t.table('t1')};\n`);
      expect(dry.stdout).not.toContain('DROP TABLE');
      expect(snapshots(p)).toEqual([]);
      if (t.type === 'sqlite') expect(existsSync(db!.url.slice('sqlite:///'.length))).toBe(false);
      else expect(await tables(p)).toEqual([]);
      expect(await history(p)).toEqual([]);

      // Limited runs: the versioned files they allow, and the repeatables (which run on every migrate).
      const counted = await p.json(['migrate', '--dry-run', '--count', '1']);
      expect(counted.data.databases.app.migrations.map((m: { filename: string }) => m.filename)).toEqual(['app__0001_one.sql', 'RA__always.sql', 'ROC__on_change.sql']);
      const upTo = await p.json(['migrate', '--dry-run', '--to-version', '0002', '--count', '9']);
      expect(upTo.data.databases.app.migrations.map((m: { filename: string }) => m.filename)).toEqual(['app__0001_one.sql', 'app__0002_two.sql', 'RA__always.sql', 'ROC__on_change.sql']);

      const migrated = await p.run(['migrate', '--to-version', '0002']);
      expect(migrated.code, explain(migrated)).toBe(0);
      const snapshotsBefore = snapshots(p);
      const after = await p.json(['migrate', '--dry-run']);
      expect(after.result.code, explain(after.result)).toBe(0);
      expect(after.data.databases.app).toMatchObject({ current_version: '0002', dry_run: true });
      // RA__ runs on every migrate; the unchanged ROC__ does not.
      expect(after.data.databases.app.migrations.map((m: { filename: string; action: string }) => `${m.action} ${m.filename}`)).toEqual([
        'would_apply app__0003_three.sql',
        'would_apply app__0004_four.sql',
        'would_apply RA__always.sql',
      ]);
      expect(snapshots(p)).toEqual(snapshotsBefore);

      await p.write('app__0001_one.sql', `${files['app__0001_one.sql']}-- edited\n`);
      const mismatch = await p.run(['migrate', '--dry-run']);
      expect(mismatch.code, explain(mismatch)).toBe(1);
      expect(mismatch.stderr).toContain('checksum mismatch');
      expect(mismatch.stdout).toBe('');
      await p.write('app__0001_one.sql', files['app__0001_one.sql']!);
      expect(await tables(p)).toEqual(['ra_t', 'roc_t', 't1', 't2']);
      await lockInactive(p);
    }, 180_000);

    it('--dry-run says which files run outside a transaction, as the run then does', async () => {
      const p = await fresh({
        'app__0001_one.sql': migration([t.table('t1')]),
        // A first statement that is not DDL: on MySQL and MariaDB, DDL first runs outside a transaction anyway.
        'app__0002_loose.sql': migration(['INSERT INTO t1 (id) VALUES (1)'], undefined, ['no-transaction']),
        'ROC__loose.sql': migration(['INSERT INTO t1 (id) VALUES (2)'], undefined, ['no-transaction']),
      });
      const outside = (data: any) => data.databases.app.migrations.map((m: { filename: string; outside_transaction: boolean }) => `${m.filename} ${m.outside_transaction}`);
      const expected = ['app__0001_one.sql false', `app__0002_loose.sql ${t.transactions}`, `ROC__loose.sql ${t.transactions}`];
      const dry = await p.json(['migrate', '--dry-run']);
      expect(dry.result.code, explain(dry.result)).toBe(0);
      expect(outside(dry.data)).toEqual(expected);
      const text = await p.run(['migrate', '--dry-run']);
      const note = '-- runs outside a transaction: the file declares `-- mtool: no-transaction`; if a statement fails, the statements before it stay applied\n';
      if (t.transactions) {
        expect(text.stdout).toContain(`-- app__0002_loose.sql\n${note}INSERT INTO t1 (id) VALUES (1);\n`);
        expect(text.stdout).toContain(`-- ROC__loose.sql\n${note}`);
        expect(text.stdout).toContain(`-- app__0001_one.sql\n${t.table('t1')};\n`);
      } else {
        expect(text.stdout).not.toContain('outside a transaction');
      }
      const run = await p.json(['migrate']);
      expect(run.result.code, explain(run.result)).toBe(0);
      expect(outside(run.data)).toEqual(expected);

      if (!t.transactions) return;
      // Files taken out of a transaction by what they hold: their own transaction control, and a
      // statement the database refuses inside a transaction.
      await p.write('app__0003_own.sql', migration(['BEGIN', 'INSERT INTO t1 (id) VALUES (3)', 'COMMIT']));
      const refused = { postgresql: 'CREATE INDEX CONCURRENTLY t1_id ON t1 (id)', sqlite: 'VACUUM' } as Record<string, string>;
      if (refused[t.type]) await p.write('app__0004_refused.sql', migration([refused[t.type]!]));
      const more = await p.run(['migrate', '--dry-run']);
      expect(more.code, explain(more)).toBe(0);
      expect(more.stdout).toContain(
        "-- app__0003_own.sql\n-- runs outside a transaction of mtool's: the file begins and ends transactions itself ('BEGIN', line 2); " +
          'if a statement fails, the transaction it is in is rolled back and what the file committed before it stays applied\nBEGIN;\n',
      );
      if (refused[t.type]) expect(more.stdout).toMatch(/-- app__0004_refused\.sql\n-- runs outside a transaction: (CREATE INDEX CONCURRENTLY|VACUUM) cannot run inside a transaction \(line 2\)/);
      const dryMore = await p.json(['migrate', '--dry-run']);
      const runMore = await p.json(['migrate']);
      expect(runMore.result.code, explain(runMore.result)).toBe(0);
      expect(outside(dryMore.data)).toEqual(outside(runMore.data));
      expect(outside(runMore.data)).toContain('app__0003_own.sql true');
    }, 180_000);

    it('--count and --to-version with repeatables pending: the limit is on versioned files; at or below the current version only repeatables run', async () => {
      const p = await fresh(four());
      const one = await p.json(['migrate', '--count', '1']);
      expect(one.result.code, explain(one.result)).toBe(0);
      expect(one.data.databases.app.migrations.map((m: { filename: string }) => m.filename)).toEqual(['app__0001_one.sql', 'RA__always.sql', 'ROC__on_change.sql']);
      for (const version of ['0001', '0000']) {
        if (version === '0000') {
          const unknown = await p.run(['migrate', '--to-version', version]);
          expect(unknown.code, explain(unknown)).toBe(1);
          expect(unknown.stderr).toContain('no migration has version 0000');
          continue;
        }
        const same = await p.json(['migrate', '--to-version', version]);
        expect(same.result.code, explain(same.result)).toBe(0);
        expect(same.data.databases.app).toMatchObject({ current_version: '0001', migrations: [{ filename: 'RA__always.sql', action: 'applied' }] });
      }
      const many = await p.json(['migrate', '--count', '50']);
      expect(many.result.code, explain(many.result)).toBe(0);
      expect(many.data.databases.app).toMatchObject({ current_version: '0004' });
      expect(many.data.databases.app.migrations.map((m: { filename: string }) => m.filename)).toEqual(['app__0002_two.sql', 'app__0003_three.sql', 'app__0004_four.sql', 'RA__always.sql']);
      // A version below the current one, given as a number without leading zeros.
      const below = await p.json(['migrate', '--to-version', '2']);
      expect(below.result.code, explain(below.result)).toBe(0);
      expect(below.data.databases.app).toMatchObject({ current_version: '0004', migrations: [{ filename: 'RA__always.sql' }] });
      await lockInactive(p);
    }, 180_000);

    it('a changed ROC__ re-runs and keeps one row; deleted repeatables show as missing and migrate goes on; a renamed ROC__ runs under its new name', async () => {
      const p = await fresh({
        'app__0001_one.sql': migration([t.table('t1')]),
        'RA__always.sql': migration([ifNotExists('ra_t')]),
        'ROC__view.sql': `-- v1\n${migration([ifNotExists('roc_t')])}`,
      });
      expect((await p.run(['migrate'])).code).toBe(0);
      const changed = `-- v2\n${migration([ifNotExists('roc_t')])}`;
      await p.write('ROC__view.sql', changed);
      expect((await states(p))['ROC__view.sql']).toBe('changed');
      const rerun = await p.json(['migrate']);
      expect(rerun.result.code, explain(rerun.result)).toBe(0);
      expect(rerun.data.databases.app.migrations.map((m: { filename: string }) => m.filename)).toEqual(['RA__always.sql', 'ROC__view.sql']);
      let rows = (await history(p)).filter((r) => r.filename === 'ROC__view.sql');
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ checksum: sha(changed), type: 'repeatable_on_change', version: null, description: 'view' });

      await p.remove('RA__always.sql');
      await p.remove('ROC__view.sql');
      await p.write('ROC__view_renamed.sql', changed);
      expect(await states(p)).toEqual({ 'app__0001_one.sql': 'applied', 'RA__always.sql': 'missing', 'ROC__view.sql': 'missing', 'ROC__view_renamed.sql': 'pending' });
      const renamed = await p.json(['migrate']);
      expect(renamed.result.code, explain(renamed.result)).toBe(0);
      expect(renamed.data.databases.app.migrations.map((m: { filename: string }) => m.filename)).toEqual(['ROC__view_renamed.sql']);
      const nothing = await p.run(['migrate']);
      expect(nothing.code, explain(nothing)).toBe(0);
      expect(nothing.stdout).toMatch(/nothing to apply, at version 0001/);
      rows = await history(p);
      expect(rows.map((r) => r.filename).sort()).toEqual(['RA__always.sql', 'ROC__view.sql', 'ROC__view_renamed.sql', 'app__0001_one.sql']);
      await lockInactive(p);
    }, 180_000);

    it('an ROC__ that fails midway keeps its old checksum, so it runs again once fixed; a failed versioned file skips the repeatables', async () => {
      const v1 = migration([ifNotExists('roc_a')]);
      const p = await fresh({ 'app__0001_one.sql': migration([t.table('t1')]), 'ROC__view.sql': v1 });
      expect((await p.run(['migrate'])).code).toBe(0);
      const broken = migration([t.table('roc_b'), 'SELECT no_such_column FROM t1']);
      await p.write('ROC__view.sql', broken);
      const failed = await p.json(['migrate']);
      expect(failed.result.code, explain(failed.result)).toBe(1);
      expect(failed.data.databases.app).toMatchObject({ status: 'failed', code: 'MTOOL_MIGRATION_FAILED', migrations: [] });
      expect((await history(p)).find((r) => r.filename === 'ROC__view.sql')!.checksum).toBe(sha(v1));
      expect((await states(p))['ROC__view.sql']).toBe('changed');
      expect(await tables(p)).toEqual(t.transactionalDdl ? ['roc_a', 't1'] : ['roc_a', 'roc_b', 't1']);
      await lockInactive(p);

      const fixed = migration([ifNotExists('roc_b')]);
      await p.write('ROC__view.sql', fixed);
      // A versioned file that fails first: the repeatables wait for the next run.
      await p.write('RA__always.sql', migration([ifNotExists('ra_t')]));
      await p.write('app__0002_bad.sql', migration(['SELECT no_such_column FROM t1']));
      const blocked = await p.json(['migrate']);
      expect(blocked.result.code, explain(blocked.result)).toBe(1);
      expect(blocked.data.databases.app).toMatchObject({ status: 'failed', current_version: '0001', migrations: [] });
      expect((await history(p)).map((r) => r.filename).sort()).toEqual(['ROC__view.sql', 'app__0001_one.sql']);
      expect((await history(p)).find((r) => r.filename === 'ROC__view.sql')!.checksum).toBe(sha(v1));
      await p.remove('app__0002_bad.sql');

      const retried = await p.json(['migrate']);
      expect(retried.result.code, explain(retried.result)).toBe(0);
      expect(retried.data.databases.app.migrations.map((m: { filename: string }) => m.filename)).toEqual(['RA__always.sql', 'ROC__view.sql']);
      expect((await history(p)).find((r) => r.filename === 'ROC__view.sql')!.checksum).toBe(sha(fixed));
      await lockInactive(p);
    }, 180_000);

    it('a new file below the applied version is refused by migrate and --dry-run before anything runs', async () => {
      const p = await fresh({ 'app__0002_two.sql': migration([t.table('t2')]), 'RA__always.sql': migration([ifNotExists('ra_t')]) });
      expect((await p.run(['migrate'])).code).toBe(0);
      await p.write('app__0001_late.sql', migration([t.table('t1')]));
      for (const args of [['migrate'], ['migrate', '--dry-run'], ['migrate', '--baseline', '--to-version', '0002']]) {
        const refused = await p.run(args);
        expect(refused.code, `${args.join(' ')}\n${explain(refused)}`).toBe(2);
        expect(refused.stderr).toContain("database 'app': app__0001_late.sql (version 0001) is pending but version 0002 is already applied; mtool applies versions in order only: renumber the file above 0002");
      }
      expect(await tables(p)).toEqual(['ra_t', 't2']);
      expect((await history(p)).map((r) => r.filename).sort()).toEqual(['RA__always.sql', 'app__0002_two.sql']);
      await lockInactive(p);
    }, 180_000);
  });
}

/** A `migrate --dry-run` while another migrate holds the lock: it takes no lock, so it is not refused. */
const SLOW = [
  { id: 'postgresql', sleep: 'SELECT pg_sleep(6)' },
  { id: 'mariadb', sleep: 'DO SLEEP(6)' },
] as const;

for (const { id, sleep } of SLOW) {
  const target = engineTarget(id);
  describe.skipIf(!(await targetReachable(target)))(`--dry-run while the lock is held on ${id}`, () => {
    const fresh = projectPerTest(target);

    it('previews without waiting for the lock or being refused', async () => {
      const p = await fresh.create();
      await p.write('app__0001_one.sql', migration([plain('t1')]));
      expect((await p.run(['migrate'])).code).toBe(0);
      await p.write('app__0002_slow.sql', migration([sleep]));
      const running = start(p, ['migrate', '--verbose']);
      await waitFor('the slow migration to start', () => running.stderr().includes('applying app__0002_slow.sql'));
      const locked = await p.run(['migrate']);
      expect(locked.code, explain(locked)).toBe(1);
      const dry = await p.run(['migrate', '--dry-run']);
      expect(dry.code, explain(dry)).toBe(0);
      expect(dry.stdout).toContain(`-- app__0002_slow.sql\n${sleep};`);
      expect((await running.exit).code).toBe(0);
    }, 120_000);
  });
}

/**
 * Ctrl-C during a long `--baseline`: the records are written in one transaction where the
 * database has transactions, so an interrupted baseline records nothing (it used to go on to the
 * end on SQLite, whose synchronous driver never let the signal in, and exit 0).
 */
for (const id of ['sqlite', 'postgresql', 'mariadb'] as const) {
  const target = engineTarget(id);
  describe.skipIf(!(await targetReachable(target)))(`interrupting --baseline on ${id}`, () => {
    const fresh = projectPerTest(target);

    it('SIGINT while baselining stops it: nothing recorded, the lock released, exit 130', async () => {
      const p = await fresh.create();
      const files = 5000;
      await p.write('app__0001_t.sql', migration([plain('t1')]));
      expect((await p.run(['migrate'])).code).toBe(0);
      for (let i = 2; i <= files; i++) await p.write(`app__${String(i).padStart(4, '0')}_t.sql`, migration([plain(`t${i}`)]));
      const run = start(p, ['migrate', '--baseline', '--to-version', String(files)]);
      await waitFor('the baseline to start', () => run.stderr().includes('app__0002_t.sql: baselined'));
      run.child.kill('SIGINT');
      const exit = await run.exit;
      expect(exit.code, run.stderr()).toBe(130);
      expect(run.stderr()).toContain('interrupted');
      // The records written before the interrupt were rolled back: none is reported as baselined.
      expect(run.stdout()).not.toMatch(/baselined/);
      expect((await history(p)).map((r) => r.filename)).toEqual(['app__0001_t.sql']);
      await lockInactive(p);
      // And run again, it records them all.
      const again = await p.json(['migrate', '--baseline', '--to-version', String(files)]);
      expect(again.result.code, explain(again.result)).toBe(0);
      expect(again.data.databases.app.current_version).toBe(String(files));
      expect(await history(p)).toHaveLength(files);
    }, 180_000);
  });
}
