import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestProject, explain, migration } from './support/project.js';
import { TARGETS, provision, queryOnce, targetReachable, type ProvisionedDatabase } from './support/targets.js';

/**
 * The first `migrate` of a database creates mtool's tables. A user that may not create tables
 * there (PostgreSQL 15 and later: schema public is its owner's) gets an error that says what was
 * being created and what to grant, not the driver's bare 'permission denied for schema public'.
 */
const pg = TARGETS.find((t) => t.id === 'postgresql')!;
const reachable = await targetReachable(pg);

describe.skipIf(!reachable)('the first migrate as a PostgreSQL user that may not create tables', () => {
  let db: ProvisionedDatabase;
  let project: TestProject;
  const user = `mtool_plain_${Math.random().toString(36).slice(2, 10)}`;
  beforeAll(async () => {
    db = await provision(pg);
    await queryOnce(pg, db.url, `CREATE ROLE ${user} LOGIN`);
    const url = new URL(db.url);
    url.username = user;
    url.password = '';
    project = await TestProject.create([{ name: 'app', type: 'postgresql', url: url.href }]);
    await project.write('app__0001_a.sql', migration(['CREATE TABLE a (id integer)'], ['DROP TABLE a']));
  });
  afterAll(async () => {
    await project?.dispose();
    // Roles are the server's, not the database's: drop it while the database still takes connections.
    if (db) await queryOnce(pg, db.url, `DROP ROLE IF EXISTS ${user}`);
    await db?.drop();
  });

  it("names mtool's table and the grant that is missing", async () => {
    const result = await project.run(['migrate']);
    expect(result.code, explain(result)).toBe(1);
    expect(result.stderr).toMatch(/error: postgresql \(app\): permission denied for schema public \(creating mtool's table _mtool_migrations, which the first migrate of a database makes\)/);
    expect(result.stderr).toMatch(/hint: .*GRANT CREATE ON SCHEMA public TO that user, or set pgSchema/);
    // status stays read-only and shows the migration as pending.
    const status = await project.run(['status']);
    expect(status.code, explain(status)).toBe(0);
    expect(status.stdout).toMatch(/pending\s+0001/);
  });
});
