import { afterEach, describe, expect, it } from 'vitest';
import { TestProject, explain, migration } from './support/project.js';
import { TARGETS, provision, queryOnce, targetReachable, type ProvisionedDatabase } from './support/targets.js';

/**
 * Repeatables run after the versioned files in the order of their descriptions, whatever their
 * kind, as Flyway orders its repeatables: a `ROC__01_` file that creates what an `RA__02_` file
 * uses runs first. Ordered by file name, every `RA__` file ran before every `ROC__` one, so the
 * `RA__` file failed on the first migrate.
 */
const targets = TARGETS.filter((t) => t.id === 'sqlite' || t.id === 'postgresql');

describe.each(targets)('repeatables on $id', (target) => {
  let db: ProvisionedDatabase | undefined;
  let project: TestProject | undefined;
  afterEach(async () => {
    await project?.dispose();
    await db?.drop();
    project = db = undefined;
  });

  it('run in the order of their descriptions, RA__ and ROC__ alike, and status lists them so', async (ctx) => {
    if (!(await targetReachable(target))) return ctx.skip();
    db = await provision(target);
    project = await TestProject.create([{ name: 'app', type: target.type, url: db.url }]);
    await project.write('app__0001_t.sql', migration(['CREATE TABLE t (id integer)'], ['DROP TABLE t']));
    await project.write('RA__02_fill.sql', migration(['INSERT INTO r (n) SELECT COUNT(*) FROM r']));
    await project.write('ROC__01_make.sql', migration(['CREATE TABLE IF NOT EXISTS r (n integer)']));
    await project.write('RA__03_check.sql', migration(['INSERT INTO r (n) VALUES (100)']));
    const first = await project.run(['migrate']);
    expect(first.code, explain(first)).toBe(0);
    const ran = [...first.stdout.matchAll(/(ROC__|RA__)\S+\.sql/g)].map((m) => m[0]);
    expect(ran).toEqual(['ROC__01_make.sql', 'RA__02_fill.sql', 'RA__03_check.sql']);
    const rows = await queryOnce(target, db.url, 'SELECT n FROM r ORDER BY n');
    expect(rows.map((r) => Number(r.n))).toEqual([0, 100]);

    const status = await project.json(['status']);
    const files = (status.data.databases.app.migrations as { filename: string }[]).map((m) => m.filename);
    expect(files).toEqual(['app__0001_t.sql', 'ROC__01_make.sql', 'RA__02_fill.sql', 'RA__03_check.sql']);
  });
});
