import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { disposeDialects } from '../../src/dialects/index.js';
import * as engine from '../../src/main/engine/engine.js';
import { PostgresError } from '../../src/dialects/postgresql/postgres-error.js';
import { MigrationFailedError } from '../../src/main/engine/migration-error.js';
import { configureLogging, logger } from '../../src/main/log.js';
import { appDatabase } from './support/app-database.js';
import { DEFERRED_ORPHAN, migration } from './support/project.js';
import { TARGETS, queryOnce, rowCount, tableExistsAt, targetReachable } from './support/targets.js';

/**
 * On PostgreSQL, MySQL and MariaDB a migration's last statement travels with its tracking row
 * (and COMMIT) in one message (Connection.send). What that must keep: the recorded execution time
 * includes the last statement's own time, and a failure names the part that failed: the
 * statement (with its line), or the recording after it (the statement then counts as run, which
 * matters where DDL commits at once). On PostgreSQL the first statement also carries BEGIN: its
 * error position still counts from the statement, a COMMIT that fails still rolls back, and trace
 * mode still logs every statement on its own line.
 */
const lines: string[] = [];
const sink = { write: (line: string) => void lines.push(line) };
const sleep: Record<string, string> = { postgresql: 'SELECT pg_sleep(0.3)', mysql: 'DO SLEEP(0.3)', mariadb: 'DO SLEEP(0.3)' };

for (const target of TARGETS.filter((t) => t.type === 'postgresql' || t.type === 'mysql' || t.type === 'mariadb')) {
  const reachable = await targetReachable(target);
  const transactionalDdl = target.type === 'postgresql';
  describe.skipIf(!reachable)(`statement and tracking row in one message on ${target.id}`, () => {
    const app = appDatabase(target, 'mtool-combined-');
    const { put, entry } = app;
    afterEach(() => {
      configureLogging({ level: 'info', json: false, sink: undefined });
      lines.length = 0;
    });
    afterAll(() => disposeDialects());
    const rows = () => queryOnce(target, app.url, 'SELECT filename, execution_ms FROM _mtool_migrations ORDER BY filename');

    it("records an execution time that includes the last statement's own time", async () => {
      await put('app__0001_one.sql', migration([sleep[target.type]!]));
      await put('app__0002_two.sql', migration([sleep[target.type]!, 'CREATE TABLE after_sleep (id integer)'], ['DROP TABLE after_sleep']));
      const result = await engine.migrate(entry(), { root: app.root, log: logger });
      expect(result.outcomes.map((o) => o.action)).toEqual(['applied', 'applied']);
      const recorded = await rows();
      expect(recorded.map((r) => r.filename)).toEqual(['app__0001_one.sql', 'app__0002_two.sql']);
      for (const row of recorded) {
        expect(Number(row.execution_ms)).toBeGreaterThanOrEqual(280);
        expect(Number(row.execution_ms)).toBeLessThan(10_000);
      }
    });

    it('names the failing statement by its line when the statement fails, and nothing of it ran', async () => {
      await put('app__0001_a.sql', migration(['CREATE TABLE a (id integer)']));
      await put('app__0002_again.sql', migration(['CREATE TABLE a (id integer)']));
      const error = await engine.migrate(entry(), { root: app.root, log: logger }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(MigrationFailedError);
      expect((error as Error).message).toMatch(/^app__0002_again\.sql:2: /);
      expect((error as MigrationFailedError).executed).toEqual([]);
      expect((await rows()).map((r) => r.filename)).toEqual(['app__0001_a.sql']);
    });

    it('says the statements ran when recording the migration fails after them', async () => {
      await put('app__0001_a.sql', migration(['CREATE TABLE a (id integer)']));
      await engine.migrate(entry(), { root: app.root, log: logger });
      // The migration's own last statement makes its tracking row impossible to insert.
      const refuse = `ALTER TABLE _mtool_migrations ADD CONSTRAINT refuse_b CHECK (filename <> 'app__0002_b.sql')${transactionalDdl ? ' NOT VALID' : ''}`;
      await put('app__0002_b.sql', migration(['CREATE TABLE b (id integer)', refuse]));
      const error = await engine.migrate(entry(), { root: app.root, log: logger }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(MigrationFailedError);
      const message = (error as Error).message;
      expect(message).toMatch(/^app__0002_b\.sql: .*refuse_b/);
      expect((await rows()).map((r) => r.filename)).toEqual(['app__0001_a.sql']);
      if (transactionalDdl) {
        expect(message).toMatch(/rolled back as a whole/);
        expect(await tableExistsAt(target, app.url, 'b')).toBe(false);
        await put('app__0002_b.sql', migration(['CREATE TABLE b (id integer)']));
        await engine.migrate(entry(), { root: app.root, log: logger });
        expect((await rows()).map((r) => r.filename)).toEqual(['app__0001_a.sql', 'app__0002_b.sql']);
      } else {
        expect(message).toMatch(/that already ran: line 2: CREATE TABLE b .*; line 3: ALTER TABLE _mtool_migrations/);
        expect((error as MigrationFailedError).executed.map((s) => s.line)).toEqual([2, 3]);
        expect(await tableExistsAt(target, app.url, 'b')).toBe(true);
      }
    });

    it('runs a file that starts with data in its own transaction: BEGIN with the first statement, COMMIT after the record', async () => {
      await put('app__0001_t.sql', migration([target.createTable('t')]));
      await put('app__0002_rows.sql', migration([target.insertNext('t', 'one'), target.insertNext('t', 'two')], ['DELETE FROM t']));
      await engine.migrate(entry(), { root: app.root, log: logger });
      expect(await rowCount(target, app.url, 't')).toBe(2);
      await put('app__0003_bad.sql', migration([target.insertNext('t', 'three'), 'INSERT INTO missing_table VALUES (1)'], ['DELETE FROM t']));
      const error = await engine.migrate(entry(), { root: app.root, log: logger }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(MigrationFailedError);
      expect((error as Error).message).toMatch(/^app__0003_bad\.sql:3: /);
      // The first statement's row went with the transaction.
      expect(await rowCount(target, app.url, 't')).toBe(2);
      expect((await rows()).map((r) => r.filename)).toEqual(['app__0001_t.sql', 'app__0002_rows.sql']);
    });

    if (transactionalDdl) {
      it('a failing first statement is named with its line and position, rolled back, and the next migrate works', async () => {
        await put('app__0001_a.sql', migration(['CREATE TABLE a (id integer)']));
        await put('app__0002_b.sql', migration(['SELECT * FROM missing_b', 'CREATE TABLE b (id integer)']));
        const error = await engine.migrate(entry(), { root: app.root, log: logger }).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(MigrationFailedError);
        expect((error as Error).message).toMatch(/^app__0002_b\.sql:2: .*missing_b.* rolled back as a whole/);
        const cause = (error as Error).cause;
        expect(cause).toBeInstanceOf(PostgresError);
        expect((cause as PostgresError).position).toBe('SELECT * FROM missing_b'.indexOf('missing_b') + 1);
        expect((await rows()).map((r) => r.filename)).toEqual(['app__0001_a.sql']);
        expect(await tableExistsAt(target, app.url, 'b')).toBe(false);

        await put('app__0002_b.sql', migration(['CREATE TABLE missing_b (id integer)', 'CREATE TABLE b (id integer)']));
        const result = await engine.migrate(entry(), { root: app.root, log: logger });
        expect(result.outcomes.map((o) => o.action)).toEqual(['applied']);
        expect((await rows()).map((r) => r.filename)).toEqual(['app__0001_a.sql', 'app__0002_b.sql']);
      });

      it('a COMMIT that fails (deferred foreign key) rolls the migration back and records nothing for it', async () => {
        for (const [name, content] of Object.entries(DEFERRED_ORPHAN)) await put(name, content);
        configureLogging({ level: 'info', json: true, sink });
        const error = await engine.migrate(entry(), { root: app.root, log: logger }).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(MigrationFailedError);
        expect((error as Error).message).toMatch(/^app__0002_orphan\.sql: .*foreign key.* rolled back as a whole/);
        expect((await rows()).map((r) => r.filename)).toEqual(['app__0001_schema.sql']);
        expect(Number((await queryOnce(target, app.url, 'SELECT count(*) AS n FROM child'))[0]!.n)).toBe(0);
        expect(lines.map((l) => JSON.parse(l)).filter((r) => r.level === 'ERROR')).toEqual([]);
      });

      it("a migration's own transaction commits asynchronously (SET LOCAL synchronous_commit off)", async () => {
        await put('app__0001_a.sql', migration(["CREATE TABLE seen AS SELECT current_setting('synchronous_commit') AS v"]));
        await put('app__0002_b.sql', migration(["INSERT INTO seen SELECT current_setting('synchronous_commit')"]));
        await engine.migrate(entry(), { root: app.root, log: logger });
        expect((await queryOnce(target, app.url, 'SELECT v FROM seen')).map((r) => r.v)).toEqual(['off', 'off']);
      });

      it('trace logs BEGIN, each statement and COMMIT on their own lines', async () => {
        await put('app__0001_a.sql', migration(['CREATE TABLE a (id integer)']));
        configureLogging({ level: 'trace', json: true, sink });
        await engine.migrate(entry(), { root: app.root, log: logger });
        const sql = lines.map((l) => JSON.parse(l).message as string).filter((m) => m.startsWith('SQL ('));
        const at = sql.findIndex((m) => /\): BEGIN$/.test(m));
        expect(sql.slice(at, at + 4).map((m) => m.replace(/^SQL \([^)]*\): /, '').split(' ')[0])).toEqual(['BEGIN', 'CREATE', 'INSERT', 'COMMIT']);
      });

      it('runs a statement that refuses a transaction in messages of its own, and records it', async () => {
        await put('app__0001_t.sql', migration(['CREATE TABLE t (id integer)']));
        await put('app__0002_i.sql', migration(['CREATE INDEX CONCURRENTLY t_id ON t (id)'], ['DROP INDEX t_id']));
        await engine.migrate(entry(), { root: app.root, log: logger });
        expect((await rows()).map((r) => r.filename)).toEqual(['app__0001_t.sql', 'app__0002_i.sql']);
        expect(await queryOnce(target, app.url, "SELECT indexname FROM pg_indexes WHERE indexname = 't_id'")).toHaveLength(1);
      });
    }
  });
}
