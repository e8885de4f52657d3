import { describe, expect, it } from 'vitest';
import { explain, migration, projectPerTest } from './support/project.js';
import { TARGETS, queryOnce, rowCount, targetReachable } from './support/targets.js';

/**
 * MySQL and MariaDB commit implicitly at DDL, so a file that starts with DDL runs without a
 * transaction (it would end at once and only cost BEGIN/COMMIT round trips), while a file that
 * starts with data statements keeps its transaction and is rolled back as a whole on failure.
 */
for (const target of TARGETS.filter((t) => t.type === 'mysql' || t.type === 'mariadb')) {
  const reachable = await targetReachable(target);
  describe.skipIf(!reachable)(`transactions on ${target.id}`, () => {
    const fresh = projectPerTest(target);

    it('sends no BEGIN for a file that starts with DDL, and keeps the transaction of a file that starts with data', async () => {
      const project = await fresh.create();
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
      expect(dml.stderr).toContain('migration app__0002_rows.sql was rolled back as a whole: none of its statements remain and it was not recorded');
      expect(await rowCount(target, fresh.db.url, 't')).toBe(0);
    });

    it('says what may remain of a file in a transaction when a statement in it committed that transaction', async () => {
      const project = await fresh.create();
      await project.write('app__0001_t.sql', migration([target.createTable('t')], ['DROP TABLE t']));
      // The INSERT opens the transaction, the CREATE TABLE commits it before failing.
      await project.write('app__0002_mixed.sql', migration([target.insertNext('t', 'one'), target.createTable('t')], ['DELETE FROM t']));
      const result = await project.run(['migrate']);
      expect(result.code, explain(result)).toBe(1);
      expect(result.stderr).toMatch(/statements of migration app__0002_mixed\.sql that already ran: line 2: INSERT INTO t .*DDL statements commit at once/);
      expect(await rowCount(target, fresh.db.url, 't')).toBe(1);
    });

    it('does not claim a file rolled back once a CALL ran in it (the procedure may have committed: here its DDL did)', async () => {
      const project = await fresh.create();
      await project.write('app__0001_t.sql', migration([target.createTable('t'), 'CREATE PROCEDURE make_u() BEGIN CREATE TABLE u (id int); END'], ['DROP PROCEDURE make_u', 'DROP TABLE t']));
      await project.write('app__0002_call.sql', migration([target.insertNext('t', 'one'), 'CALL make_u()', 'INSERT INTO missing_table VALUES (1)'], ['DELETE FROM t']));
      const result = await project.run(['migrate', '--debug-level', 'trace']);
      expect(result.code, explain(result)).toBe(1);
      // The file starts with data, so it runs in a transaction, which the procedure's DDL committed.
      expect(result.stderr).toMatch(/SQL \([^)]*\): BEGIN/);
      expect(result.stderr).not.toMatch(/rolled back as a whole/);
      expect(result.stderr).toMatch(/statements of migration app__0002_call\.sql that already ran: line 2: INSERT INTO t .*line 3: CALL make_u\(\)/);
      expect(await rowCount(target, fresh.db.url, 't')).toBe(1);
    });

    it("refuses, before anything runs, a statement larger than the server's max_allowed_packet, and runs a large one under it", async () => {
      const project = await fresh.create();
      const [{ bytes }] = (await queryOnce(target, fresh.db.url, 'SELECT @@max_allowed_packet AS bytes')) as [{ bytes: unknown }];
      /** An INSERT of about `size` bytes into t. */
      const insertOf = (size: number) => `INSERT INTO t (id, name) VALUES (1, '${'x'.repeat(size)}')`;
      await project.write('app__0001_t.sql', migration(['CREATE TABLE t (id integer primary key, name longtext)'], ['DROP TABLE t']));
      await project.write('app__0002_large.sql', migration([insertOf(2 * 1024 * 1024)], ['DELETE FROM t']));
      await project.write('app__0003_too_large.sql', migration(['CREATE TABLE before_it (id integer)', insertOf(Number(bytes) + 1024)], ['DROP TABLE before_it']));
      const result = await project.run(['migrate']);
      expect(result.code, explain(result)).toBe(1);
      expect(result.stderr).toMatch(/error: app__0003_too_large\.sql:3: the statement is [\d.]+ MiB, more than this \w+ server takes in one statement \(max_allowed_packet: [\d.]+ MiB\) — nothing was run/);
      // Refused before the run: not even the migrations before it, nor its own first statement.
      expect(await rowCount(target, fresh.db.url, '_mtool_migrations')).toBe(0);
      expect(await queryOnce(target, fresh.db.url, "SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name IN ('t', 'before_it')")).toEqual([]);
      const lock = await project.run(['lock-status']);
      expect(lock.stdout.split('\n')[0], explain(lock)).toBe('Migration lock: INACTIVE');

      await project.remove('app__0003_too_large.sql');
      const again = await project.run(['migrate']);
      expect(again.code, explain(again)).toBe(0);
      expect(await rowCount(target, fresh.db.url, 't')).toBe(1);
    });

    it('unlocks the tables a migration locked (LOCK TABLES without UNLOCK TABLES), and sees into executable comments', async () => {
      const project = await fresh.create();
      await project.write('app__0001_t.sql', migration([target.createTable('t')], ['DROP TABLE t']));
      await project.write('app__0002_locked.sql', migration(['LOCK TABLES t WRITE', "INSERT INTO t (id, name) VALUES (1, 'one')"], ['DELETE FROM t']));
      // As mysqldump writes them: the server runs what the comment holds.
      await project.write('app__0003_dump_style.sql', migration(["/*!40101 SET SQL_MODE='NO_AUTO_VALUE_ON_ZERO' */", '/*!40014 SET FOREIGN_KEY_CHECKS=0 */', "INSERT INTO t (id, name) VALUES (2, 'two')"], ['DELETE FROM t']));
      await project.write('app__0004_sees.sql', migration(['CREATE TABLE seen AS SELECT @@SESSION.sql_mode AS mode, @@foreign_key_checks AS fk'], ['DROP TABLE seen']));
      const result = await project.run(['migrate']);
      expect(result.code, explain(result)).toBe(0);
      expect(await rowCount(target, fresh.db.url, 't')).toBe(2);
      const [seen] = await queryOnce(target, fresh.db.url, 'SELECT mode, fk FROM seen');
      const [defaults] = await queryOnce(target, fresh.db.url, 'SELECT @@SESSION.sql_mode AS mode, @@foreign_key_checks AS fk');
      expect(seen).toEqual(defaults);
      const lock = await project.run(['lock-status']);
      expect(lock.stdout.split('\n')[0], explain(lock)).toBe('Migration lock: INACTIVE');
    });
  });
}
