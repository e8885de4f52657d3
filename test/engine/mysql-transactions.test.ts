import { afterEach, describe, expect, it } from 'vitest';
import { TestProject, explain, migration } from './support/project.js';
import { TARGETS, provision, rowCount, targetReachable, type ProvisionedDatabase } from './support/targets.js';

/**
 * MySQL and MariaDB commit implicitly at DDL, so a file that starts with DDL runs without a
 * transaction (it would end at once and only cost BEGIN/COMMIT round trips), while a file that
 * starts with data statements keeps its transaction and is rolled back as a whole on failure.
 */
for (const target of TARGETS.filter((t) => t.type === 'mysql' || t.type === 'mariadb')) {
  const reachable = await targetReachable(target);
  describe.skipIf(!reachable)(`transactions on ${target.id}`, () => {
    let db: ProvisionedDatabase | undefined;
    let project: TestProject | undefined;
    afterEach(async () => {
      await project?.dispose();
      await db?.drop();
    });

    it('sends no BEGIN for a file that starts with DDL, and keeps the transaction of a file that starts with data', async () => {
      db = await provision(target);
      project = await TestProject.create([{ name: 'app', type: target.type, url: db.url }]);
      await project.write('app__0001_t.sql', migration([target.createTable('t')], ['DROP TABLE t']));
      const ddl = await project.run(['migrate', '--debug-level', 'trace']);
      expect(ddl.code, explain(ddl)).toBe(0);
      const statements = ddl.stderr.split('\n').filter((l) => l.includes('SQL ('));
      expect(statements.some((l) => /CREATE TABLE t\b/.test(l))).toBe(true);
      expect(statements.filter((l) => /: (BEGIN|COMMIT)$/.test(l))).toEqual([]);

      await project.write('app__0002_rows.sql', migration([target.insertNext('t', 'one'), 'INSERT INTO missing_table VALUES (1)'], ['DELETE FROM t']));
      const dml = await project.run(['migrate', '--debug-level', 'trace']);
      expect(dml.code, explain(dml)).toBe(1);
      expect(dml.stderr).toMatch(/SQL \([^)]*\): BEGIN/);
      expect(await rowCount(target, db.url, 't')).toBe(0);
    });
  });
}
