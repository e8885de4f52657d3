import { describe, expect, it } from 'vitest';
import { explain, migration, projectPerTest } from './support/project.js';
import { TARGETS, queryOnce, targetReachable } from './support/targets.js';

/**
 * PostgreSQL parses a whole message before it runs any of it, so a syntax error in a statement
 * of a message that carries several fails the message with nothing run. The error must still
 * name that statement's file and line, and the migrations before it in the message are applied
 * as if sent one by one (none was, when the server refused the message).
 */
const pg = TARGETS.find((t) => t.id === 'postgresql')!;

describe.skipIf(!(await targetReachable(pg)))('a syntax error in a later statement of a PostgreSQL message', () => {
  const app = projectPerTest(pg);

  it('names the statement of the migration it is in, not the first statement of the message', async () => {
    const project = await app.create();
    await project.write('app__0001_lines.sql', migration(['CREATE TABLE t_ok1 (id int PRIMARY KEY)', 'CREATE TABLE t_ok2 (id int)', 'CREATE TABLE t_bad (id int REFERENCES t_ok1 (id) NOT VALID)'], ['SELECT 1']));
    const result = await project.run(['migrate']);
    expect(result.code, explain(result)).toBe(1);
    expect(result.stderr).toContain('error: app__0001_lines.sql:4: postgresql (app): syntax error at or near "VALID"');
    expect(await queryOnce(pg, app.db.url, "SELECT count(*)::int AS n FROM pg_tables WHERE tablename LIKE 't_ok%'")).toEqual([{ n: 0 }]);
  });

  it('applies the migrations before the one with the error and records them, then fails at its line', async () => {
    const project = await app.create();
    await project.write('app__0001_a.sql', migration(['CREATE TABLE a1 (id int PRIMARY KEY)'], ['DROP TABLE a1']));
    await project.write('app__0002_b.sql', migration(['CREATE TABLE a2 (id int)'], ['DROP TABLE a2']));
    await project.write('app__0003_c.sql', migration(['CREATE TABLE a3 (id int)', 'CREATE TABLE a4 (id int REFERENCES a1 (id) NOT VALID)'], ['DROP TABLE a3']));
    const result = await project.run(['migrate']);
    expect(result.code, explain(result)).toBe(1);
    expect(result.stdout).toContain('applied 2 migrations before the failure, now at version 0002');
    expect(result.stderr).toContain('error: app__0003_c.sql:3: postgresql (app): syntax error at or near "VALID"');
    expect(await queryOnce(pg, app.db.url, 'SELECT version FROM _mtool_migrations ORDER BY version')).toEqual([{ version: '0001' }, { version: '0002' }]);
    expect(await queryOnce(pg, app.db.url, "SELECT tablename FROM pg_tables WHERE tablename LIKE 'a_' ORDER BY 1")).toEqual([{ tablename: 'a1' }, { tablename: 'a2' }]);
    const status = await project.run(['status']);
    expect(status.stdout).toMatch(/pending\s+0003/);
  });
});
