import { afterEach, describe, expect, it } from 'vitest';
import { TestProject, explain, migration, projectPerTest } from './support/project.js';
import { TARGETS, provision, targetReachable } from './support/targets.js';

/**
 * A run that fails partway says what it did before the failure: on stdout, in text (the
 * migrations it applied or rolled back, and the version it left) and in JSON (the same document
 * as under --all), while the error goes to stderr with its exit code.
 */
for (const target of TARGETS.filter((t) => t.id === 'sqlite' || t.id === 'postgresql' || t.id === 'mariadb')) {
  const reachable = await targetReachable(target);
  describe.skipIf(!reachable)(`a run that fails partway on ${target.id}`, () => {
    const fresh = projectPerTest(target);

    async function setUp(): Promise<TestProject> {
      const project = await fresh.create();
      await project.write('app__0001_a.sql', migration([target.createTable('a')], ['DROP TABLE a']));
      await project.write('app__0002_b.sql', migration([target.createTable('b')], ['DROP TABLE b']));
      await project.write('app__0003_c.sql', migration(['INSERT INTO missing_table VALUES (1)'], ['DROP TABLE c']));
      return project;
    }

    it('migrate: lists the migrations applied before the failure, in text and JSON', async () => {
      const p = await setUp();
      const text = await p.run(['migrate']);
      expect(text.code, explain(text)).toBe(1);
      expect(text.stdout).toMatch(new RegExp(`^app \\(${target.type}\\): applied 2 migrations before the failure, now at version 0002\\n  applied +0001 +app__0001_a\\.sql .*\\n  applied +0002 +app__0002_b\\.sql `));
      expect(text.stderr).toMatch(/error: app__0003_c\.sql:2: /);

      // Nothing more applies, nothing is listed; the document names the failure.
      const { result, data } = await p.json(['migrate']);
      expect(result.code, explain(result)).toBe(1);
      expect(data.databases.app).toMatchObject({ status: 'failed', migrations: [], code: 'MTOOL_MIGRATION_FAILED' });
      expect(data.databases.app.error).toMatch(/^app__0003_c\.sql:2: /);
      expect(data.summary).toEqual({ ok: 0, skipped: 0, failed: 1 });
    });

    it('migrate --json and --all --json: the document holds what applied before the failure', async () => {
      const p = await setUp();
      const { result, data } = await p.json(['migrate']);
      expect(result.code, explain(result)).toBe(1);
      expect(data.databases.app).toMatchObject({ status: 'failed', command: 'migrate', current_version: '0002', code: 'MTOOL_MIGRATION_FAILED' });
      expect(data.databases.app.migrations.map((m: { filename: string; action: string }) => `${m.action} ${m.filename}`)).toEqual(['applied app__0001_a.sql', 'applied app__0002_b.sql']);
      await p.run(['rollback', '--count', '2']);
      const all = await p.json(['migrate', '--all']);
      expect(all.result.code, explain(all.result)).toBe(1);
      expect(all.data.databases.app).toMatchObject({ status: 'failed', current_version: '0002', migrations: [{ filename: 'app__0001_a.sql' }, { filename: 'app__0002_b.sql' }] });
    });

    it('rollback: lists the migrations rolled back before the failing one', async () => {
      const p = await setUp();
      // 0001's rollback fails; 0003 and 0002 roll back before it.
      await p.write('app__0001_a.sql', migration([target.createTable('a')], ['DROP TABLE missing_table']));
      await p.write('app__0003_c.sql', migration([target.createTable('c')], ['DROP TABLE c']));
      expect((await p.run(['migrate'])).code).toBe(0);
      const text = await p.run(['rollback', '--count', '3']);
      expect(text.code, explain(text)).toBe(1);
      expect(text.stdout).toMatch(new RegExp(`^app \\(${target.type}\\): rolled back 2 migrations before the failure, now at version 0001\\n  rolled back 0003 +app__0003_c\\.sql .*\\n  rolled back 0002 +app__0002_b\\.sql `));
      expect(text.stderr).toMatch(/error: app__0001_a\.sql:\d+: /);
    });
  });
}

describe('status --json of a database that failed after connecting', () => {
  let project: TestProject | undefined;
  afterEach(async () => project?.dispose());

  it('says connected, with the error code (a checksum mismatch), under --all and alone', async () => {
    const sqlite = TARGETS.find((t) => t.id === 'sqlite')!;
    const db = await provision(sqlite);
    project = await TestProject.create([{ name: 'app', type: 'sqlite', url: db.url }]);
    await project.write('app__0001_a.sql', migration([sqlite.createTable('a')], ['DROP TABLE a']));
    expect((await project.run(['migrate'])).code).toBe(0);
    await project.write('app__0001_a.sql', migration([sqlite.createTable('a'), sqlite.createTable('z')], ['DROP TABLE a']));
    for (const args of [['status', '--all'], ['status']]) {
      const { result, data } = await project.json(args);
      expect(result.code, explain(result)).toBe(1);
      expect(data.databases.app).toMatchObject({ status: 'failed', connected: true, code: 'MTOOL_CHECKSUM_MISMATCH' });
    }
  });

  it('a baseline says it baselined, not applied', async () => {
    const sqlite = TARGETS.find((t) => t.id === 'sqlite')!;
    const db = await provision(sqlite);
    project = await TestProject.create([{ name: 'app', type: 'sqlite', url: db.url }]);
    await project.write('app__0001_a.sql', migration([sqlite.createTable('a')], ['DROP TABLE a']));
    const result = await project.run(['migrate', '--baseline', '--to-version', '0001']);
    expect(result.code, explain(result)).toBe(0);
    expect(result.stdout).toMatch(/^app \(sqlite\): baselined 1 migration in .*, now at version 0001\n  baselined +0001 +app__0001_a\.sql/);
  });
});
