import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestProject, explain, migration } from './support/project.js';

/**
 * libchdb binds one data folder per process: under `--all`, databases on different chdb folders
 * run one after another (each one's connections closed first) instead of failing for one another,
 * while a database on another engine still runs beside them.
 */
const table = (name: string) => migration([`CREATE TABLE ${name} (id Int32) ENGINE = MergeTree ORDER BY id`], [`DROP TABLE ${name}`]);

for (const skipIfMissing of [false, true]) {
  describe(`--all over two chdb folders${skipIfMissing ? ' (the second one skipIfMissing)' : ''}`, () => {
    let project: TestProject;
    beforeAll(async () => {
      project = await TestProject.create([
        { name: 'x', type: 'clickhouse', url: 'chdb:///dx' },
        { name: 'y', type: 'clickhouse', url: 'chdb:///dy', skipIfMissing },
        { name: 'z', type: 'sqlite', url: 'sqlite:///z.db' },
        { name: 'w', type: 'clickhouse', url: 'chdb:///dw' },
      ]);
      await project.write('x__0001_a.sql', table('a'), 'x');
      await project.write('y__0001_b.sql', table('b'), 'y');
      await project.write('z__0001_c.sql', migration(['CREATE TABLE c (id integer primary key)'], ['DROP TABLE c']), 'z');
      await project.write('w__0001_d.sql', table('d'), 'w');
    });
    afterAll(() => project?.dispose());

    it('migrate --all applies every database, none fails or is skipped for another folder being open', async () => {
      const result = await project.run(['migrate', '--all']);
      expect(result.code, explain(result)).toBe(0);
      expect(result.stdout).toContain('4 databases: 4 ok, 0 skipped, 0 failed');
      expect(result.stderr).not.toMatch(/in use|skipped/);
    }, 60_000);

    it('status --all and history --all read every chdb folder', async () => {
      const status = await project.json(['status', '--all']);
      expect(status.result.code, explain(status.result)).toBe(0);
      const history = await project.json(['history', '--all']);
      expect(history.result.code, explain(history.result)).toBe(0);
      for (const [db, file] of [['x', 'x__0001_a.sql'], ['y', 'y__0001_b.sql'], ['w', 'w__0001_d.sql']]) {
        expect(history.data.databases[db].migrations.map((m: { filename: string }) => m.filename), db).toEqual([file]);
      }
      expect(JSON.stringify(status.data)).not.toMatch(/in use/);
    }, 60_000);
  });
}
