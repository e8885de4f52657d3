import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestProject, explain, migration } from './support/project.js';
import { TARGETS, provision, rowCount, targetReachable, type ProvisionedDatabase } from './support/targets.js';

/**
 * A procedure that commits as it goes (PostgreSQL 11+, a batched backfill) cannot run in the
 * migration's transaction: the server's 'invalid transaction termination' gets what to do.
 */
const pg = TARGETS.find((t) => t.id === 'postgresql')!;
const reachable = await targetReachable(pg);

describe.skipIf(!reachable)('a PostgreSQL procedure that commits, called by a migration', () => {
  let db: ProvisionedDatabase;
  let project: TestProject;
  const body = [
    'CREATE TABLE filled (id integer)',
    'CREATE PROCEDURE fill() LANGUAGE plpgsql AS $$ BEGIN FOR i IN 1..3 LOOP INSERT INTO filled VALUES (i); COMMIT; END LOOP; END $$',
    'CALL fill()',
  ];
  beforeAll(async () => {
    db = await provision(pg);
    project = await TestProject.create([{ name: 'app', type: 'postgresql', url: db.url }]);
  });
  afterAll(async () => {
    await project?.dispose();
    await db?.drop();
  });

  it("fails in the migration's transaction with the directive to use, and applies with it", async () => {
    await project.write('app__0001_fill.sql', migration(body, ['DROP PROCEDURE fill()', 'DROP TABLE filled']));
    const failed = await project.run(['migrate']);
    expect(failed.code, explain(failed)).toBe(1);
    expect(failed.stderr).toMatch(/app__0001_fill\.sql:4: postgresql \(app\): invalid transaction termination; the procedure or DO block commits or rolls back, .*mark the file '-- mtool: no-transaction'/);
    await project.write('app__0001_fill.sql', migration(body, ['DROP PROCEDURE fill()', 'DROP TABLE filled'], ['no-transaction']));
    const applied = await project.run(['migrate']);
    expect(applied.code, explain(applied)).toBe(0);
    expect(await rowCount(pg, db.url, 'filled')).toBe(3);
  });
});
