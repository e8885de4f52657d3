import { afterAll, describe, expect, it } from 'vitest';
import { explain, migration, projectOn } from './support/project.js';
import { TARGETS, queryOnce, targetReachable, type EngineTarget } from './support/targets.js';

/**
 * The first `migrate` of a database creates mtool's tables. A user that may not create tables
 * there (PostgreSQL 15 and later: schema public is its owner's) gets an error that says what was
 * being created and what to grant, not the driver's bare 'permission denied for schema public'.
 */
const pg = TARGETS.find((t) => t.id === 'postgresql')!;
const reachable = await targetReachable(pg);

/**
 * For the enclosing block: a fresh database of `target` and a project that reaches it as a new
 * user, made by the statements `create` gives (run as the administrator). Users and roles are the
 * server's, not the database's: the user is dropped while its database still takes connections
 * (after hooks run last registered first).
 */
function projectAsNewUser(target: EngineTarget, create: (user: string, database: string) => string[], drop: (user: string) => string) {
  const user = `mtool_plain_${Math.random().toString(36).slice(2, 10)}`;
  const app = projectOn(target, async (db) => {
    for (const sql of create(user, new URL(db.url).pathname.slice(1))) await queryOnce(target, db.url, sql);
    const url = new URL(db.url);
    url.username = user;
    url.password = '';
    return url.href;
  });
  afterAll(async () => {
    if (app.db) await queryOnce(target, app.db.url, drop(user));
  });
  return app;
}

describe.skipIf(!reachable)('the first migrate as a PostgreSQL user that may not create tables', () => {
  const app = projectAsNewUser(pg, (user) => [`CREATE ROLE ${user} LOGIN`], (user) => `DROP ROLE IF EXISTS ${user}`);

  it("names mtool's table and the grant that is missing", async () => {
    const { project } = app;
    await project.write('app__0001_a.sql', migration(['CREATE TABLE a (id integer)'], ['DROP TABLE a']));
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

describe.skipIf(!reachable)('the first migrate of a PostgreSQL database that takes no writes (a read replica, default_transaction_read_only)', () => {
  const app = projectOn(pg, async (db) => {
    await queryOnce(pg, db.url, `ALTER DATABASE "${new URL(db.url).pathname.slice(1)}" SET default_transaction_read_only = on`);
    return db.url;
  });

  it('says the session may not write and to point at the primary, not what to grant', async () => {
    const { project } = app;
    await project.write('app__0001_a.sql', migration(['CREATE TABLE a (id integer)'], ['DROP TABLE a']));
    const result = await project.run(['migrate']);
    expect(result.code, explain(result)).toBe(1);
    expect(result.stderr).toContain("cannot execute CREATE TABLE in a read-only transaction; this session may not write: the server is a standby (a read replica), or default_transaction_read_only is on for this database or user; point the URL at the primary (creating mtool's table _mtool_migrations");
    expect(result.stderr).not.toContain('GRANT');
  });
});

const mysql = TARGETS.find((t) => t.id === 'mariadb')!;
describe.skipIf(!(await targetReachable(mysql)))('the first migrate as a MariaDB user that may not create tables', () => {
  const app = projectAsNewUser(
    mysql,
    (user, database) => [`CREATE USER '${user}'@'%'`, `GRANT SELECT ON \`${database}\`.* TO '${user}'@'%'`],
    (user) => `DROP USER IF EXISTS '${user}'@'%'`,
  );

  it("names mtool's table and the privileges to grant", async () => {
    const { project } = app;
    await project.write('app__0001_a.sql', migration(['CREATE TABLE a (id integer)'], ['DROP TABLE a']));
    const result = await project.run(['migrate']);
    expect(result.code, explain(result)).toBe(1);
    expect(result.stderr).toMatch(/error: mariadb \(app\): CREATE command denied to user .* \(creating mtool's table _mtool_migrations, which the first migrate of a database makes\)/);
    expect(result.stderr).toMatch(/hint: the user mtool connects as needs CREATE, SELECT, INSERT, UPDATE and DELETE on the database \(GRANT \.\.\. ON db\.\* TO that user\)/);
  });
});
