import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { mysqlSessionGuard } from '../../src/dialects/mysql/session-guard.js';
import { postgresSessionGuard } from '../../src/dialects/postgresql/session-guard.js';
import { explain, migration, projectPerTest } from './support/project.js';
import { TARGETS, queryOnce, rowCount, targetReachable } from './support/targets.js';

/**
 * Session state a migration changes out of the guard's first sight must not reach the migrations
 * after it in the same run, nor mtool's tracking rows and lock release (README, "A file that
 * switches the session"): a MySQL/MariaDB `SET ROLE`, a PostgreSQL setting set inside a DO block
 * or a procedure.
 */
for (const target of TARGETS.filter((t) => t.type === 'mysql' || t.type === 'mariadb')) {
  const reachable = await targetReachable(target);
  describe.skipIf(!reachable)(`the role a migration sets on ${target.id}`, () => {
    const fresh = projectPerTest(target);
    const suffix = randomBytes(4).toString('hex');
    const user = `mtool_u_${suffix}`;
    const full = `mtool_full_${suffix}`;
    const limited = `mtool_read_${suffix}`;
    /**
     * A project that connects as a user with no rights of its own: all its rights on the database
     * come from its default role; it may also switch to a role that may only read.
     */
    const projectAsUser = async () => {
      const project = await fresh.create((db) => {
        const url = new URL(db.url);
        url.username = user;
        url.password = '';
        return url.href;
      });
      const database = new URL(fresh.db.url).pathname.slice(1);
      for (const sql of [
        `CREATE ROLE ${full}`,
        `GRANT ALL ON \`${database}\`.* TO ${full}`,
        `CREATE ROLE ${limited}`,
        `GRANT SELECT ON \`${database}\`.* TO ${limited}`,
        `CREATE USER '${user}'@'%'`,
        `GRANT ${full} TO '${user}'@'%'`,
        `GRANT ${limited} TO '${user}'@'%'`,
        `SET DEFAULT ROLE ${full} FOR '${user}'@'%'`,
      ]) {
        await queryOnce(target, fresh.db.url, sql);
      }
      return project;
    };
    afterEach(async () => {
      if (fresh.db) for (const sql of [`DROP USER IF EXISTS '${user}'@'%'`, `DROP ROLE IF EXISTS ${full}`, `DROP ROLE IF EXISTS ${limited}`]) await queryOnce(target, fresh.db.url, sql);
    });

    it("sets back the role active before the file: the user's rights come from its default role, the file switches to a read-only one, then to none", async () => {
      const project = await projectAsUser();
      await project.write('app__0001_t.sql', migration([target.createTable('t'), `SET ROLE ${limited}`, 'SELECT count(*) FROM t'], ['DROP TABLE t']));
      // Needs the default role's rights (the read-only role may not insert).
      await project.write('app__0002_row.sql', migration([target.insertNext('t', 'one')], ['DELETE FROM t']));
      await project.write('app__0003_none.sql', migration([target.insertNext('t', 'two'), 'SET ROLE NONE'], ['DELETE FROM t']));
      await project.write('app__0004_u.sql', migration([target.createTable('u')], ['DROP TABLE u']));
      const result = await project.run(['migrate']);
      expect(result.code, explain(result)).toBe(0);
      expect(await rowCount(target, fresh.db.url, 't')).toBe(2);
      expect(await queryOnce(target, fresh.db.url, 'SELECT version FROM _mtool_migrations ORDER BY version')).toEqual([
        { version: '0001' },
        { version: '0002' },
        { version: '0003' },
        { version: '0004' },
      ]);
      const lock = await project.run(['lock-status']);
      expect(lock.stdout.split('\n')[0], explain(lock)).toBe('Migration lock: INACTIVE');
    });

    it('sets back the role after a file that switched to a read-only one failed: the lock is released', async () => {
      const project = await projectAsUser();
      await project.write('app__0001_t.sql', migration([target.createTable('t')], ['DROP TABLE t']));
      await project.write('app__0002_bad.sql', migration([`SET ROLE ${limited}`, target.insertNext('t', 'denied')], []));
      const result = await project.run(['migrate']);
      expect(result.code, explain(result)).toBe(1);
      expect(result.stderr).toMatch(/app__0002_bad\.sql:3: .*INSERT command denied/);
      expect(result.stderr).not.toMatch(/could not release the migration lock/);
      expect(await queryOnce(target, fresh.db.url, 'SELECT version FROM _mtool_migrations')).toEqual([{ version: '0001' }]);
      const lock = await project.run(['lock-status']);
      expect(lock.stdout.split('\n')[0], explain(lock)).toBe('Migration lock: INACTIVE');
    });
  });
}

describe('which files the guard reads the role or the settings for', () => {
  it('MySQL/MariaDB: SET ROLE (any case, in an executable comment), not SET DEFAULT ROLE', () => {
    for (const text of ['SET ROLE r', 'set role NONE', 'SET ROLE DEFAULT', '/*!80000 SET ROLE ALL */']) {
      expect(mysqlSessionGuard([{ text }]), text).toHaveProperty('capture');
    }
    for (const text of ['SET DEFAULT ROLE r FOR u', 'GRANT r TO u', "SELECT 'SET ROLE r'"]) {
      expect(mysqlSessionGuard([{ text }]), text).toBeUndefined();
    }
  });

  it('PostgreSQL: a DO block that SETs, a CALL; not a DO block without SET, nor a plain statement', () => {
    for (const text of ["DO $$ BEGIN EXECUTE 'SET statement_timeout = 1'; END $$", "do $$ begin set work_mem = '1GB'; end $$", 'CALL tune()']) {
      expect(postgresSessionGuard([{ text }]), text).toHaveProperty('capture');
    }
    for (const text of ["DO $$ BEGIN RAISE NOTICE 'x'; END $$", 'CREATE TABLE settings (id int)', "CREATE PROCEDURE p() LANGUAGE sql AS $$ SELECT 1 $$"]) {
      expect(postgresSessionGuard([{ text }]), text).toBeUndefined();
    }
  });
});

const postgresql = TARGETS.find((t) => t.type === 'postgresql')!;
describe.skipIf(!(await targetReachable(postgresql)))('settings a PostgreSQL migration sets out of sight', () => {
  const fresh = projectPerTest(postgresql);

  /** A migration that fails unless work_mem is what the run began with. */
  const checkWorkMem = (expected: string) =>
    `DO $$ BEGIN IF current_setting('work_mem') <> '${expected}' THEN RAISE EXCEPTION 'work_mem leaked: %', current_setting('work_mem'); END IF; END $$`;

  it('sets back what a DO block SET with EXECUTE (a 1 ms statement_timeout, work_mem) before the next migration', async () => {
    const project = await fresh.create();
    const [{ work_mem: workMem }] = (await queryOnce(postgresql, fresh.db.url, 'SHOW work_mem')) as [{ work_mem: string }];
    await project.write('app__0001_t.sql', migration([postgresql.createTable('t')], ['DROP TABLE t']));
    await project.write(
      'app__0002_do.sql',
      migration([`DO $$ BEGIN EXECUTE format('SET work_mem = %L', '77MB'); EXECUTE 'SET statement_timeout = 1'; END $$`], []),
    );
    await project.write('app__0003_u.sql', migration([postgresql.createTable('u'), 'SELECT pg_sleep(0.01)', checkWorkMem(workMem)], ['DROP TABLE u']));
    const result = await project.run(['migrate']);
    expect(result.code, explain(result)).toBe(0);
    expect(await rowCount(postgresql, fresh.db.url, '_mtool_migrations')).toBe(3);
  });

  it('sets back what a procedure a migration CALLs SET', async () => {
    const project = await fresh.create();
    const [{ work_mem: workMem }] = (await queryOnce(postgresql, fresh.db.url, 'SHOW work_mem')) as [{ work_mem: string }];
    await project.write(
      'app__0001_p.sql',
      migration([`CREATE PROCEDURE tune() LANGUAGE plpgsql AS $$ BEGIN SET work_mem = '78MB'; SET statement_timeout = 1; END $$`], ['DROP PROCEDURE tune']),
    );
    await project.write('app__0002_call.sql', migration(['CALL tune()'], []));
    await project.write('app__0003_u.sql', migration([postgresql.createTable('u'), 'SELECT pg_sleep(0.01)', checkWorkMem(workMem)], ['DROP TABLE u']));
    const result = await project.run(['migrate']);
    expect(result.code, explain(result)).toBe(0);
    expect(await rowCount(postgresql, fresh.db.url, '_mtool_migrations')).toBe(3);
  });
});
