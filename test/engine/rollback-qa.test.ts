import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseMigrationFile } from '../../src/parser/migration-file.js';
import type { SplitDialect } from '../../src/parser/split-statements.js';
import { TestProject, explain, migration, projectPerTest } from './support/project.js';
import { start, waitFor } from './support/running.js';
import { TARGETS, provision, queryOnce, tableExistsAt, targetReachable, type ProvisionedDatabase } from './support/targets.js';

/**
 * `rollback` and `downgrade` end to end on every database type (ClickHouse through the embedded
 * chdb): the `-- rollback` marker as the spec writes it and its near misses, ranges that cannot
 * be reverted (refused before any SQL), a rollback that fails midway (the tracking row stays, the
 * lock goes, a retry works once the cause is repaired), changed and deleted files, repeatables,
 * and what status, history and the JSON documents say afterwards.
 */

interface Target {
  id: string;
  type: 'postgresql' | 'mysql' | 'mariadb' | 'sqlite' | 'clickhouse';
  /** Whether a failing rollback is undone whole (its statements in one transaction). */
  transactionalDdl: boolean;
  table(name: string): string;
  /** A fresh database URL and how to drop it; chdb lives in the project folder. */
  provision(): Promise<ProvisionedDatabase>;
}

const plain = (name: string) => `CREATE TABLE ${name} (id integer primary key)`;
const engineTarget = (id: string) => TARGETS.find((t) => t.id === id)!;

const CANDIDATES: { target: Target; reachable: () => Promise<boolean> }[] = [
  ...(['postgresql', 'mysql', 'mariadb', 'sqlite'] as const).map((id) => ({
    target: { id, type: id, transactionalDdl: id === 'postgresql' || id === 'sqlite', table: plain, provision: () => provision(engineTarget(id)) } as Target,
    reachable: () => targetReachable(engineTarget(id)),
  })),
  {
    target: {
      id: 'clickhouse (chdb)',
      type: 'clickhouse',
      transactionalDdl: false,
      table: (name) => `CREATE TABLE ${name} (id Int32) ENGINE = MergeTree ORDER BY id`,
      provision: async () => ({ url: 'chdb:///chdata', drop: async () => undefined }),
    },
    reachable: async () => true,
  },
];

/** Tables of the database as `check-db` lists them (mtool's own tables left out). */
async function tables(project: TestProject): Promise<string[]> {
  const result = await project.run(['check-db', '--out', 'json']);
  expect(result.code, explain(result)).toBe(0);
  return Object.keys(JSON.parse(result.stdout).tables).sort();
}

async function applied(project: TestProject): Promise<string[]> {
  const { result, data } = await project.json(['history']);
  expect(result.code, explain(result)).toBe(0);
  return data.databases.app.migrations.map((m: { filename: string }) => m.filename);
}

async function lockInactive(project: TestProject): Promise<void> {
  const lock = await project.run(['lock-status']);
  expect(lock.code, explain(lock)).toBe(0);
  expect(lock.stdout.trim()).toBe('Migration lock: INACTIVE');
}

describe('section markers: what the spec allows and its near misses', () => {
  const parse = (content: string, dialect: SplitDialect = 'postgresql') =>
    parseMigrationFile({ filename: 'app__0001_a.sql', path: 'migrations/app/app__0001_a.sql', content, database: 'app', dialect });
  const texts = (statements: readonly { text: string }[] | undefined) => statements?.map((s) => s.text);

  it('reads the markers in any case and spacing, with CRLF line ends and a BOM', () => {
    for (const [upgrade, rollback] of [
      ['-- UPGRADE', '-- ROLLBACK'],
      ['--upgrade', '--Rollback'],
      ['\t--\tupgrade\t', '   --   rollback   '],
    ]) {
      for (const eol of ['\n', '\r\n']) {
        const file = parse(`\uFEFF${upgrade}${eol}CREATE TABLE a (id int);${eol}${rollback}${eol}DROP TABLE a;${eol}`);
        expect(texts(file.upgrade), `${upgrade} ${rollback} ${JSON.stringify(eol)}`).toEqual(['CREATE TABLE a (id int)']);
        expect(texts(file.rollback), `${upgrade} ${rollback} ${JSON.stringify(eol)}`).toEqual(['DROP TABLE a']);
      }
    }
  });

  it('refuses a marker with punctuation around its word, which would put the rollback statements into the upgrade', () => {
    for (const near of ['-- rollback:', '--- rollback ---', '-- [rollback]', '-- ROLLBACK;', '-- == rollback ==', '--rollback:', '-- rollback -- drops a', '-- rollback /* drops a */']) {
      const error = (() => {
        try {
          parse(`-- upgrade\nCREATE TABLE a (id int);\n${near}\nDROP TABLE a;\n`);
        } catch (e) {
          return e as Error & { code: string };
        }
        throw new Error(`'${near}' was accepted`);
      })();
      expect(error.code, near).toBe('MTOOL_MIGRATION_FILE');
      expect(error.message, near).toBe(
        `migrations/app/app__0001_a.sql:3: '${near}' is not a section marker: the statements after it would stay in the '-- upgrade' section and run with it; write it as '-- rollback' alone on its line`,
      );
    }
    expect(() => parse('-- upgrade:\nCREATE TABLE a (id int);\n')).toThrow(
      "migrations/app/app__0001_a.sql:1: '-- upgrade:' is not a section marker and starts no section; write it as '-- upgrade' alone on its line",
    );
  });

  it('refuses `# rollback` where # begins a comment (MySQL, MariaDB; ClickHouse after `# `), and only there', () => {
    for (const dialect of ['mysql', 'clickhouse'] as const) {
      expect(() => parse('-- upgrade\nCREATE TABLE a (id int);\n# rollback\nDROP TABLE a;\n', dialect), dialect).toThrow(
        "migrations/app/app__0001_a.sql:3: '# rollback' is not a section marker: the statements after it would stay in the '-- upgrade' section and run with it; write it as '-- rollback' alone on its line",
      );
      expect(texts(parse('-- upgrade\n# rollback is manual\nSELECT 1;\n', dialect).upgrade), dialect).toEqual(['SELECT 1']);
    }
    expect(() => parse('-- upgrade\nSELECT 1;\n#rollback\n', 'mysql')).toThrow(/'#rollback' is not a section marker/);
    // Not a comment there: SQL text, which the database will refuse (ClickHouse: `#` then no space).
    expect(texts(parse('-- upgrade\nSELECT 1;\n#rollback\n', 'clickhouse').upgrade)).toEqual(['SELECT 1', '#rollback']);
    expect(texts(parse('-- upgrade\nSELECT 1;\n# rollback\n', 'postgresql').upgrade)).toEqual(['SELECT 1', '# rollback']);
  });

  it('leaves comments that say more than the word, and near misses inside strings and comments, alone', () => {
    const file = parse("-- upgrade\n-- Rollback: not needed, rows only\nINSERT INTO t VALUES ('\n-- rollback:\n');\n/*\n-- rollback:\n*/\n-- rollback\nDELETE FROM t;\n");
    expect(texts(file.upgrade)).toEqual(["INSERT INTO t VALUES ('\n-- rollback:\n')"]);
    expect(texts(file.rollback)).toEqual(['DELETE FROM t']);
  });
});

/** A database of `t` and a project migrating it, made before the block's tests and removed after them. */
function provisionedProject(t: (typeof CANDIDATES)[number]['target'], use: (project: TestProject) => void): void {
  let db: ProvisionedDatabase | undefined;
  let project: TestProject | undefined;
  beforeAll(async () => {
    db = await t.provision();
    project = await TestProject.create([{ name: 'app', type: t.type, url: db.url }]);
    use(project);
  });
  afterAll(async () => {
    await project?.dispose();
    await db?.drop();
  });
}

for (const { target: t, reachable } of CANDIDATES) {
  const up = await reachable();
  describe.skipIf(!up)(`a near-miss rollback marker on ${t.id}`, () => {
    let project: TestProject;
    provisionedProject(t, (p) => (project = p));

    it('migrate refuses a file whose rollback marker has a colon before anything runs (it used to create and drop the table)', async () => {
      await project.write('app__0001_near.sql', `-- upgrade\n${t.table('near_miss')};\n-- rollback:\nDROP TABLE near_miss;\n`);
      const result = await project.run(['migrate']);
      expect(result.code, explain(result)).toBe(2);
      expect(result.stderr).toContain("app__0001_near.sql:3: '-- rollback:' is not a section marker");
      expect(await applied(project)).toEqual([]);
      expect(await tables(project)).toEqual([]);
      await lockInactive(project);
    }, 120_000);
  });

  describe.skipIf(!up)(`rollback and downgrade on ${t.id}`, () => {
    let project: TestProject;
    provisionedProject(t, (p) => (project = p));

    it('refuses a range with a migration without rollback before any SQL runs, whatever the command', async () => {
      await project.write('app__0001_a.sql', migration([t.table('t1')], ['DROP TABLE t1']));
      await project.write('app__0002_b.sql', migration([t.table('t2')]));
      // CRLF line ends: the markers still count, and the rollback runs.
      await project.write('app__0003_c.sql', migration([t.table('t3')], ['DROP TABLE t3']).replace(/\n/g, '\r\n'));
      const migrated = await project.run(['migrate']);
      expect(migrated.code, explain(migrated)).toBe(0);

      for (const args of [['rollback', '--count', '3'], ['rollback', '--count', '99'], ['rollback', '--to-version', '0001'], ['downgrade', '--to', '0001']]) {
        const text = await project.run(args);
        expect(text.code, `${args.join(' ')}\n${explain(text)}`).toBe(1);
        // What to do, since the obvious fix (adding the section) would make the applied file's checksum mismatch.
        const above = args[0] === 'downgrade' ? 'mtool downgrade --database app --to 0002' : 'mtool rollback --database app --count 1';
        expect(text.stderr).toContain(
          "error: database 'app': cannot roll back app__0002_b.sql: it has no `-- rollback` section; nothing was rolled back. " +
            'An applied file must not change (its checksum is checked), so do not add a rollback to it now: undo what it did in a new migration, ' +
            `or roll back only the migration above it: \`${above}\`\n`,
        );
        const { result, data } = await project.json(args);
        expect(result.code, explain(result)).toBe(1);
        expect(data.databases.app).toMatchObject({ status: 'failed', migrations: [], code: 'MTOOL_ROLLBACK' });
      }
      // 0003's rollback (first in line) did not run.
      expect(await tables(project)).toEqual(['t1', 't2', 't3']);
      expect(await applied(project)).toEqual(['app__0001_a.sql', 'app__0002_b.sql', 'app__0003_c.sql']);
      await lockInactive(project);

      // --count 0 is a usage error; the current version as target is nothing to do.
      const zero = await project.run(['rollback', '--count', '0']);
      expect(zero.code, explain(zero)).toBe(2);
      for (const args of [['rollback', '--to-version', '0003'], ['downgrade', '--to', '0003']]) {
        const { result, data } = await project.json(args);
        expect(result.code, explain(result)).toBe(0);
        expect(data.databases.app).toMatchObject({ status: 'ok', current_version: '0003', migrations: [] });
      }

      const one = await project.json(['rollback']);
      expect(one.result.code, explain(one.result)).toBe(0);
      expect(one.data.databases.app).toMatchObject({
        status: 'ok',
        command: 'rollback',
        current_version: '0002',
        migrations: [{ filename: 'app__0003_c.sql', version: '0003', type: 'versioned', action: 'rolled_back' }],
        error: null,
      });
      expect(await tables(project)).toEqual(['t1', 't2']);
    }, 180_000);

    it('a rollback that fails midway keeps the tracking row and releases the lock; once repaired, a retry finishes it', async () => {
      // 0003 is pending again; apply it, then a migration whose rollback fails at its second statement.
      await project.write(
        'app__0004_d.sql',
        migration([t.table('t4a'), t.table('t4b')], ['DROP TABLE IF EXISTS t4b', 'DROP TABLE gate', 'DROP TABLE t4a']),
      );
      const migrated = await project.run(['migrate']);
      expect(migrated.code, explain(migrated)).toBe(0);

      const failed = await project.run(['rollback']);
      expect(failed.code, explain(failed)).toBe(1);
      expect(failed.stdout).toMatch(new RegExp(`^app \\(${t.type}\\): rolled back 0 migrations before the failure, now at version 0004`));
      expect(failed.stderr).toMatch(/error: app__0004_d\.sql:6: /);
      if (t.transactionalDdl) {
        expect(failed.stderr).toContain('the rollback of app__0004_d.sql was rolled back as a whole: none of its statements remain and app__0004_d.sql is still recorded as applied.');
        expect(await tables(project)).toEqual(['t1', 't2', 't3', 't4a', 't4b']);
      } else {
        expect(failed.stderr).toContain('statements of the rollback of app__0004_d.sql that already ran: line 5: DROP TABLE IF EXISTS t4b.');
        expect(failed.stderr).toContain('The tracking table is unchanged.');
        expect(await tables(project)).toEqual(['t1', 't2', 't3', 't4a']);
      }
      expect(await applied(project)).toContain('app__0004_d.sql');
      await lockInactive(project);
      const { data } = await project.json(['rollback']);
      expect(data.databases.app).toMatchObject({ status: 'failed', command: 'rollback', current_version: '0004', migrations: [], code: 'MTOOL_MIGRATION_FAILED' });

      // The repair: the missing table, made by a repeatable migration (which rollback leaves alone).
      await project.write('RA__gate.sql', migration([t.table('gate')]).replace('CREATE TABLE', 'CREATE TABLE IF NOT EXISTS'));
      const repaired = await project.run(['migrate']);
      expect(repaired.code, explain(repaired)).toBe(0);
      const retry = await project.run(['rollback']);
      expect(retry.code, explain(retry)).toBe(0);
      expect(retry.stdout).toMatch(/rolled back 1 migration in .*, now at version 0003/);
      expect(await tables(project)).toEqual(['t1', 't2', 't3']);
      expect(await applied(project)).toEqual(['app__0001_a.sql', 'app__0002_b.sql', 'app__0003_c.sql', 'RA__gate.sql']);
      // Spec: a rollback leaves the schema snapshot as it was (kept as an audit record).
      expect(existsSync(join(project.dir, '.mtool', 'schemas', 'app__0004_d.schema.json'))).toBe(true);
      await project.remove('RA__gate.sql');
      await lockInactive(project);
    }, 180_000);

    it('refuses a changed or deleted file, keeps snapshots, and a new migrate applies again', async () => {
      const original = await project.read('app__0003_c.sql');
      await project.write('app__0003_c.sql', `${original}-- edited\n`);
      const changed = await project.run(['rollback']);
      expect(changed.code, explain(changed)).toBe(1);
      expect(changed.stderr).toContain('checksum mismatch');
      await project.remove('app__0003_c.sql');
      const deleted = await project.run(['rollback']);
      expect(deleted.code, explain(deleted)).toBe(1);
      expect(deleted.stderr).toContain(
        "cannot roll back app__0003_c.sql: the file is no longer in the migrations folder; nothing was rolled back. Restore it as it was applied (`mtool history --database app` shows its checksum).\n",
      );
      await project.write('app__0003_c.sql', original);
      expect(await tables(project)).toEqual(['t1', 't2', 't3']);
      await lockInactive(project);

      const rolled = await project.run(['rollback']);
      expect(rolled.code, explain(rolled)).toBe(0);
      const status = await project.json(['status']);
      expect(status.data.databases.app).toMatchObject({ current_version: '0002', pending_migrations: 2 });
      const again = await project.run(['migrate']);
      expect(again.code, explain(again)).toBe(0);
      expect(again.stdout).toMatch(/applied 2 migrations .*now at version 0004/);
      expect(await tables(project)).toEqual(['t1', 't2', 't3', 't4a', 't4b']);
    }, 180_000);
  });
}

/** A rollback interrupted in a long statement: the lock goes, the record stays, the message says what remains. */
const SLOW_ROLLBACKS = [
  { id: 'postgresql', sleep: 'SELECT pg_sleep(8)' },
  { id: 'mariadb', sleep: 'DO SLEEP(8)' },
] as const;

for (const { id, sleep } of SLOW_ROLLBACKS) {
  const target = engineTarget(id);
  const transactional = id === 'postgresql';
  describe.skipIf(!(await targetReachable(target)))(`interrupting a rollback on ${id}`, () => {
    const fresh = projectPerTest(target);

    it('SIGTERM in a long rollback statement releases the lock and keeps the tracking row', async () => {
      const p = await fresh.create();
      await p.write('app__0001_a.sql', migration([target.createTable('ta'), target.createTable('tb')], ['DROP TABLE ta', sleep, 'DROP TABLE tb']));
      const migrated = await p.run(['migrate']);
      expect(migrated.code, explain(migrated)).toBe(0);

      const run = start(p, ['rollback', '--verbose']);
      await waitFor('the rollback to start', () => run.stderr().includes('rolling back app__0001_a.sql'));
      await new Promise((r) => setTimeout(r, 1000));
      run.child.kill('SIGTERM');
      const exit = await run.exit;
      expect(exit.code, run.stderr()).toBe(143);
      if (transactional) {
        expect(run.stderr()).toContain('the rollback of app__0001_a.sql was rolled back as a whole: none of its statements remain and app__0001_a.sql is still recorded as applied.');
      } else {
        expect(run.stderr()).toContain('statements of the rollback of app__0001_a.sql that already ran: line 5: DROP TABLE ta;');
      }
      expect(await tableExistsAt(target, fresh.db.url, 'ta')).toBe(transactional);
      expect(await tableExistsAt(target, fresh.db.url, 'tb')).toBe(true);
      expect(await applied(p)).toEqual(['app__0001_a.sql']);
      await lockInactive(p);
    }, 60_000);
  });
}

const pg = engineTarget('postgresql');
describe.skipIf(!(await targetReachable(pg)))('a PostgreSQL rollback section that must run outside a transaction', () => {
  const fresh = projectPerTest(pg);

  it('DROP INDEX CONCURRENTLY runs outside one, with a warning; a failure after it lists it as run and keeps the record', async () => {
    const p = await fresh.create();
    await p.write('app__0001_a.sql', migration(['CREATE TABLE ta (id integer)', 'CREATE INDEX CONCURRENTLY ia ON ta (id)'], ['DROP INDEX CONCURRENTLY ia', 'DROP TABLE ta']));
    await p.write('app__0002_b.sql', migration(['CREATE TABLE tb (id integer)', 'CREATE INDEX ib ON tb (id)'], ['DROP INDEX CONCURRENTLY ib', 'DROP TABLE missing_table']));
    const migrated = await p.run(['migrate']);
    expect(migrated.code, explain(migrated)).toBe(0);

    const failed = await p.run(['rollback']);
    expect(failed.code, explain(failed)).toBe(1);
    expect(failed.stderr).toContain('app__0002_b.sql: rollback runs outside a transaction: DROP INDEX CONCURRENTLY cannot run inside a transaction (line 5)');
    expect(failed.stderr).toContain('statements of the rollback of app__0002_b.sql that already ran: line 5: DROP INDEX CONCURRENTLY ib.');
    expect(await queryOnce(pg, fresh.db.url, "SELECT count(*)::int AS n FROM pg_indexes WHERE indexname IN ('ia', 'ib')")).toEqual([{ n: 1 }]);
    expect(await applied(p)).toEqual(['app__0001_a.sql', 'app__0002_b.sql']);
    await lockInactive(p);
  }, 60_000);
});
