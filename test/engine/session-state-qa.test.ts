import { describe, expect, it } from 'vitest';
import { explain, migration, projectPerTest } from './support/project.js';
import { TARGETS, queryOnce, rowCount, targetReachable } from './support/targets.js';

/**
 * Session state one migration sets must not reach the migrations after it in the same run, nor
 * mtool's tracking rows and lock release (README, "A file that switches the session").
 */
for (const target of TARGETS.filter((t) => t.type === 'mysql' || t.type === 'mariadb')) {
  const reachable = await targetReachable(target);
  describe.skipIf(!reachable)(`session state between migrations on ${target.id}`, () => {
    const fresh = projectPerTest(target);

    it('sets the transaction characteristics a file set back: SET SESSION TRANSACTION READ ONLY, SET TRANSACTION READ ONLY at its end', async () => {
      const project = await fresh.create();
      await project.write('app__0001_t.sql', migration([target.createTable('t'), 'SET SESSION TRANSACTION ISOLATION LEVEL SERIALIZABLE, READ ONLY'], ['DROP TABLE t']));
      await project.write('app__0002_row.sql', migration([target.insertNext('t', 'one')], ['DELETE FROM t']));
      // Without a scope: the next transaction only, which would be the tracking row's.
      await project.write('app__0003_v.sql', migration([target.createTable('v'), 'SET TRANSACTION READ ONLY'], ['DROP TABLE v']));
      await project.write('app__0004_u.sql', migration([target.createTable('u')], ['DROP TABLE u']));
      const result = await project.run(['migrate']);
      expect(result.code, explain(result)).toBe(0);
      expect(await rowCount(target, fresh.db.url, 't')).toBe(1);
      expect(await rowCount(target, fresh.db.url, '_mtool_migrations')).toBe(4);
      const lock = await project.run(['lock-status']);
      expect(lock.stdout.split('\n')[0], explain(lock)).toBe('Migration lock: INACTIVE');
    });

    it('releases the lock after a file that made the session read-only failed', async () => {
      const project = await fresh.create();
      await project.write('app__0001_t.sql', migration([target.createTable('t')], ['DROP TABLE t']));
      await project.write('app__0002_bad.sql', migration(['SET SESSION TRANSACTION READ ONLY', 'SELECT * FROM missing_table'], []));
      const result = await project.run(['migrate']);
      expect(result.code, explain(result)).toBe(1);
      expect(result.stderr).toContain('app__0002_bad.sql:3');
      expect(result.stderr).not.toMatch(/could not release the migration lock/);
      expect(await queryOnce(target, fresh.db.url, 'SELECT version FROM _mtool_migrations')).toEqual([{ version: '0001' }]);
      const lock = await project.run(['lock-status']);
      expect(lock.stdout.split('\n')[0], explain(lock)).toBe('Migration lock: INACTIVE');
    });
  });
}

const sqlite = TARGETS.find((t) => t.type === 'sqlite')!;
describe('session state between migrations on sqlite', () => {
  const fresh = projectPerTest(sqlite);

  it('detaches the databases a migration attached: the next one attaches the same name, and finds no table of it unqualified', async () => {
    const project = await fresh.create();
    const dir = project.dir.replaceAll("'", "''");
    await project.write('app__0001_aux.sql', migration([`ATTACH DATABASE '${dir}/aux1.db' AS aux`, 'CREATE TABLE aux.only_there (id integer)'], []));
    await project.write('app__0002_aux.sql', migration([`ATTACH '${dir}/aux2.db' AS "AUX"`, 'CREATE TABLE aux.y (id integer)', 'DETACH aux'], []));
    // Run alone, this one fails: only_there is in aux1.db, which its session never attached.
    await project.write('app__0003_t.sql', migration([sqlite.createTable('t'), 'INSERT INTO t SELECT id, NULL FROM only_there'], []));
    const result = await project.run(['migrate']);
    expect(result.code, explain(result)).toBe(1);
    expect(result.stderr).toMatch(/error: app__0003_t\.sql:3: .*no such table: only_there/);
    expect(await queryOnce(sqlite, fresh.db.url, 'SELECT version FROM _mtool_migrations ORDER BY version')).toEqual([{ version: '0001' }, { version: '0002' }]);
    const lock = await project.run(['lock-status']);
    expect(lock.stdout.split('\n')[0], explain(lock)).toBe('Migration lock: INACTIVE');
  });
});

const postgresql = TARGETS.find((t) => t.type === 'postgresql')!;
describe.skipIf(!(await targetReachable(postgresql)))('session state between migrations on postgresql', () => {
  const fresh = projectPerTest(postgresql);

  it("switches back the search_path a DO block set with EXECUTE: the file's tracking row and the next migration land in the schema the run began in", async () => {
    const project = await fresh.create();
    await project.write('app__0001_schema.sql', migration(['CREATE SCHEMA other'], ['DROP SCHEMA other']));
    await project.write(
      'app__0002_do.sql',
      migration([`DO $$ BEGIN EXECUTE format('SET search_path TO %I', 'other'); END $$`, postgresql.createTable('in_other')], ['DROP TABLE other.in_other']),
    );
    await project.write('app__0003_t.sql', migration([postgresql.createTable('t')], ['DROP TABLE t']));
    const result = await project.run(['migrate']);
    expect(result.code, explain(result)).toBe(0);
    expect(await queryOnce(postgresql, fresh.db.url, "SELECT table_schema, table_name FROM information_schema.tables WHERE table_name IN ('in_other', 't', '_mtool_migrations') ORDER BY 2")).toEqual([
      { table_schema: 'public', table_name: '_mtool_migrations' },
      { table_schema: 'other', table_name: 'in_other' },
      { table_schema: 'public', table_name: 't' },
    ]);
    expect(await rowCount(postgresql, fresh.db.url, '_mtool_migrations')).toBe(3);
  });

  it('sets back a short statement_timeout a file ends with before the rest of the settings, not cancelled by it', async () => {
    const project = await fresh.create();
    await project.write('app__0001_t.sql', migration([postgresql.createTable('t'), 'SET statement_timeout = 1'], ['DROP TABLE t']));
    await project.write('app__0002_u.sql', migration([postgresql.createTable('u'), 'SELECT pg_sleep(0.01)'], ['DROP TABLE u']));
    const result = await project.run(['migrate']);
    expect(result.code, explain(result)).toBe(0);
    expect(await rowCount(postgresql, fresh.db.url, '_mtool_migrations')).toBe(2);
  });
});
