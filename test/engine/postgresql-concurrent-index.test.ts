import { describe, expect, it } from 'vitest';
import { explain, migration, projectOn } from './support/project.js';
import { TARGETS, queryOnce, targetReachable } from './support/targets.js';

/**
 * A CREATE INDEX CONCURRENTLY that fails while building leaves its index behind, INVALID, and the
 * same migration then fails with 'already exists'. The failure says so, with the server's DETAIL
 * (which row) and the statement that clears the way.
 */
const pg = TARGETS.find((t) => t.id === 'postgresql')!;

describe.skipIf(!(await targetReachable(pg)))('a failed CREATE INDEX CONCURRENTLY on PostgreSQL', () => {
  const app = projectOn(pg);

  it('names the duplicated key and the INVALID index left behind, and again when the migration is rerun', async () => {
    const { db, project } = app;
    await project.write('app__0001_t.sql', migration(['CREATE TABLE t (id integer)', 'INSERT INTO t VALUES (1), (1)'], ['DROP TABLE t']));
    await project.write('app__0002_index.sql', migration(['CREATE UNIQUE INDEX CONCURRENTLY t_id ON t (id)'], ['DROP INDEX CONCURRENTLY t_id']));
    const first = await project.run(['migrate']);
    expect(first.code, explain(first)).toBe(1);
    expect(first.stderr).toContain('error: app__0002_index.sql:2: postgresql (app): could not create unique index "t_id"; detail: Key (id)=(1) is duplicated.');
    expect(first.stderr).toContain('A CREATE INDEX CONCURRENTLY that fails leaves its index behind, marked INVALID: DROP INDEX CONCURRENTLY IF EXISTS t_id before running the command again.');
    expect(await queryOnce(pg, db.url, "SELECT indisvalid FROM pg_index WHERE indexrelid = 't_id'::regclass")).toEqual([{ indisvalid: false }]);

    await queryOnce(pg, db.url, 'DELETE FROM t WHERE ctid IN (SELECT max(ctid) FROM t)');
    const rerun = await project.run(['migrate']);
    expect(rerun.code, explain(rerun)).toBe(1);
    expect(rerun.stderr).toContain('relation "t_id" already exists');
    expect(rerun.stderr).toContain('An index of that name exists: if an earlier CREATE INDEX CONCURRENTLY failed, it is that one, left INVALID; DROP INDEX CONCURRENTLY IF EXISTS t_id and run the command again.');

    await queryOnce(pg, db.url, 'DROP INDEX CONCURRENTLY IF EXISTS t_id');
    const fixed = await project.run(['migrate']);
    expect(fixed.code, explain(fixed)).toBe(0);
  });

  it('adds nothing to an error of the statement itself (it failed before any index existed)', async () => {
    const { project } = app;
    await project.write('app__0003_typo.sql', migration(['CREATE INDEX CONCURRENTLY t_nope ON t (no_such_column)'], ['SELECT 1']));
    const result = await project.run(['migrate']);
    expect(result.code, explain(result)).toBe(1);
    expect(result.stderr).toContain('column "no_such_column" does not exist');
    expect(result.stderr).not.toContain('INVALID');
    await project.remove('app__0003_typo.sql');
  });
});
