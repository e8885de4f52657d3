import { afterAll, describe, expect, it } from 'vitest';
import { disposeDialects } from '../../src/dialects/index.js';
import type { Connection } from '../../src/dialects/types.js';
import { withSession } from '../../src/main/engine/database-session.js';
import * as engine from '../../src/main/engine/engine.js';
import { Executor } from '../../src/main/engine/executor.js';
import type { AppliedMigration } from '../../src/main/engine/hooks.js';
import { ensureParsed, loadMigrations } from '../../src/main/engine/load-migrations.js';
import { MigrationFailedError } from '../../src/main/engine/migration-error.js';
import type { MigrationOutcome } from '../../src/main/engine/types.js';
import { configureLogging, logger } from '../../src/main/log.js';
import { appDatabase } from './support/app-database.js';
import { migration } from './support/project.js';
import { TARGETS, queryOnce, rowCount, tableExistsAt, targetReachable } from './support/targets.js';

/**
 * Consecutive migrations that run as the database runs DDL (PostgreSQL: each in a transaction of
 * its own; MySQL and MariaDB: outside one, DDL committing itself) travel to the server several
 * to a message (Executor.applyAll, Connection.sendAll). What that must keep: each migration
 * recorded (and committed) right after its own last statement with its own execution time and
 * the server's time, nothing after a failing statement run or recorded, the failure named by
 * file and line (with the statements of that file that ran, or rolled back as a whole), and
 * migrations that must run otherwise still sent alone.
 */
/** A migration of one statement that takes 0.4 s, making table `name`. */
const SLOW: Record<string, (name: string) => string> = {
  postgresql: (name) => `CREATE TABLE ${name} AS SELECT 1 AS x FROM pg_sleep(0.4)`,
  mysql: (name) => `CREATE TABLE ${name} AS SELECT SLEEP(0.4) AS x`,
  mariadb: (name) => `CREATE TABLE ${name} AS SELECT SLEEP(0.4) AS x`,
};
/** A migration that must go alone: on PostgreSQL one refusing a transaction, on MySQL one needing one (it starts with data). */
const ALONE: Record<string, string[]> = {
  postgresql: ['CREATE INDEX CONCURRENTLY b_id2 ON b (id)'],
  mysql: ['INSERT INTO a VALUES (1)'],
  mariadb: ['INSERT INTO a VALUES (1)'],
};
/** applied_at as ISO 8601 UTC text. */
const APPLIED_AT: Record<string, string> = {
  postgresql: `to_char(applied_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`,
  mysql: "DATE_FORMAT(applied_at, '%Y-%m-%dT%H:%i:%s.%fZ')",
  mariadb: "DATE_FORMAT(applied_at, '%Y-%m-%dT%H:%i:%s.%fZ')",
};

for (const target of TARGETS.filter((t) => t.type === 'postgresql' || t.type === 'mysql' || t.type === 'mariadb')) {
  const reachable = await targetReachable(target);
  const transactionalDdl = target.type === 'postgresql';
  describe.skipIf(!reachable)(`several migrations in one message on ${target.id}`, () => {
    const app = appDatabase(target, 'mtool-together-');
    const { put, entry } = app;
    afterAll(() => disposeDialects());
    const recorded = async () => (await queryOnce(target, app.url, 'SELECT filename FROM _mtool_migrations ORDER BY filename')).map((r) => r.filename);

    /**
     * applyAll over the folder on a real session whose connection notes what it is asked:
     * `all N` for one sendAll of N migrations, `one` for a single step, `query <first word>`,
     * `BEGIN`, `COMMIT`, `ROLLBACK`.
     */
    async function applyAll(options: { perf?: boolean; verbose?: boolean; onCommit?: (committed: readonly AppliedMigration[], messageEnded: boolean) => void } = {}) {
      const files = await loadMigrations(entry().migrationsDir, { database: 'app', dialect: target.type === 'postgresql' ? 'postgresql' : 'mysql' });
      ensureParsed(files);
      const messages: string[] = [];
      const outcomes: MigrationOutcome[] = [];
      let setStatements = 0;
      let insertStatements = 0;
      const error = await withSession(entry(), app.root, logger, async (session) => {
        await session.store.ensureTables();
        const conn = session.conn;
        const note = <T>(what: string, run: () => Promise<T>): Promise<T> => (messages.push(what), run());
        let messageEnded = true;
        const noting: Connection = {
          type: conn.type,
          databaseName: conn.databaseName,
          query: (sql) => note(`query ${sql.split(' ')[0]}`, () => conn.query(sql)),
          begin: () => note('BEGIN', () => conn.begin()),
          commit: () => note('COMMIT', () => conn.commit()),
          rollback: () => note('ROLLBACK', () => conn.rollback()),
          send: (step) => note('one', () => conn.send!(step)),
          sendAll: (steps, onRecorded, recordMany) =>
            note(`all ${steps.filter((s) => s.record).length}`, async () => {
              messageEnded = false;
              await conn.sendAll!(steps, onRecorded, recordMany);
              messageEnded = true;
            }),
          serverVersion: () => conn.serverVersion(),
          close: () => conn.close(),
          ...(conn.sessionReset !== undefined ? { sessionReset: conn.sessionReset } : {}),
          ...(conn.answersAtMessageEnd !== undefined ? { answersAtMessageEnd: conn.answersAtMessageEnd } : {}),
        };
        const exec = new Executor(noting, session.dialect, session.store, session.log, 'app', {
          perf: options.perf ?? false,
          verbose: options.verbose ?? false,
          signal: undefined,
          appliedBy: 'test@host',
          ...(options.onCommit ? { onCommit: async (committed: readonly AppliedMigration[]) => options.onCommit!(committed, messageEnded) } : {}),
        });
        // SET and INSERT statements the session ran (MySQL and MariaDB count them per session).
        const count = async (what: string) => (transactionalDdl ? 0 : Number((await conn.query(`SHOW SESSION STATUS LIKE '${what}'`)).rows[0]!.Value));
        const setsBefore = await count('Com_set_option');
        const insertsBefore = await count('Com_insert');
        const result = await exec.applyAll(files, ({ outcome }) => void outcomes.push(outcome)).then(
          () => undefined,
          (e: unknown) => e,
        );
        // NaN once the session is gone.
        setStatements = await count('Com_set_option').then((n) => n - setsBefore, () => NaN);
        insertStatements = await count('Com_insert').then((n) => n - insertsBefore, () => NaN);
        return result;
      });
      return { messages, outcomes, error, setStatements, insertStatements };
    }

    it('sends consecutive DDL migrations together and a migration that must run otherwise alone', async () => {
      await put('app__0001_a.sql', migration(['CREATE TABLE a (id integer primary key)']));
      await put('app__0002_b.sql', migration(['CREATE TABLE b (id integer)', 'CREATE INDEX b_id ON b (id)']));
      await put('app__0003_alone.sql', migration(ALONE[target.type]!, ['SELECT 1']));
      await put('app__0004_c.sql', migration(['CREATE TABLE c (id integer)']));
      await put('app__0005_placeholder.sql', migration([]));
      await put('app__0006_d.sql', migration(['CREATE TABLE d (id integer)']));
      const { messages, outcomes, error } = await applyAll();
      expect(error).toBeUndefined();
      // The placeholder (no statements) records itself in a transaction of its own, as before.
      expect(messages).toEqual(['all 2', 'one', 'all 1', 'BEGIN', 'query INSERT', 'COMMIT', 'all 1']);
      expect(outcomes.map((o) => `${o.filename} ${o.action}`)).toEqual([
        'app__0001_a.sql applied',
        'app__0002_b.sql applied',
        'app__0003_alone.sql applied',
        'app__0004_c.sql applied',
        'app__0005_placeholder.sql applied',
        'app__0006_d.sql applied',
      ]);
      expect(await recorded()).toEqual(outcomes.map((o) => o.filename));
      for (const t of ['a', 'b', 'c', 'd']) expect(await tableExistsAt(target, app.url, t)).toBe(true);
    });

    it('gives each migration of a message its own execution time and the server time it was recorded', async () => {
      const before = Date.now();
      // Slow and quick in turn: on MySQL and MariaDB each migration's end is marked, and the
      // group's one record reads the marks (recordGroupedPlan).
      await put('app__0001_slow.sql', migration([SLOW[target.type]!('slow1')]));
      await put('app__0002_quick.sql', migration(['CREATE TABLE quick2 (id integer)']));
      await put('app__0003_slow.sql', migration([SLOW[target.type]!('slow3')]));
      await put('app__0004_quick.sql', migration(['CREATE TABLE quick4 (id integer)', 'CREATE TABLE quick4b (id integer)']));
      await put('app__0005_slow.sql', migration(['CREATE TABLE before5 (id integer)', SLOW[target.type]!('slow5')]));
      const { messages, outcomes, error, setStatements, insertStatements } = await applyAll();
      expect(error).toBeUndefined();
      expect(messages).toEqual(['all 5']);
      // The group's start mark, each migration's end mark, and one record for the five.
      if (!transactionalDdl) expect([setStatements, insertStatements]).toEqual([6, 1]);
      const rows = await queryOnce(target, app.url, `SELECT filename, execution_ms, ${APPLIED_AT[target.type]} AS at FROM _mtool_migrations ORDER BY filename`);
      const slow = [true, false, true, false, true];
      rows.forEach((row, i) => (slow[i] ? expect(Number(row.execution_ms)).toBeGreaterThanOrEqual(380) : expect(Number(row.execution_ms)).toBeLessThan(380)));
      outcomes.forEach((outcome, i) => (slow[i] ? expect(outcome.durationMs).toBeGreaterThanOrEqual(380) : expect(outcome.durationMs).toBeLessThan(380)));
      // applied_at is the server's UTC time as each record was written: in order, after the start.
      const at = rows.map((r) => Date.parse(String(r.at)));
      expect(at[0]! - before).toBeGreaterThanOrEqual(-2000); // clocks of one machine, DATETIME(3) truncation
      for (let i = 1; i < at.length; i++) expect(at[i]!).toBeGreaterThanOrEqual(at[i - 1]!);
      expect(at[4]! - Date.now()).toBeLessThan(2000);
    });

    it('stops at the failing statement: the files before it recorded, the rest of the message never run', async () => {
      await put('app__0001_a.sql', migration(['CREATE TABLE a (id integer)']));
      await put('app__0002_b.sql', migration(['CREATE TABLE b (id integer)', 'CREATE TABLE a (id integer)'], ['DROP TABLE b']));
      await put('app__0003_c.sql', migration(['CREATE TABLE c (id integer)']));
      const { messages, outcomes, error } = await applyAll();
      expect(messages[0]).toBe('all 3');
      expect(error).toBeInstanceOf(MigrationFailedError);
      const failed = error as MigrationFailedError;
      if (transactionalDdl) {
        expect(failed.message).toMatch(/^app__0002_b\.sql:3: .*already exists.*rolled back as a whole/);
        expect(failed.executed).toEqual([]);
        expect(messages).toEqual(['all 3', 'ROLLBACK']);
      } else {
        expect(failed.message).toMatch(/^app__0002_b\.sql:3: .*already exists.*that already ran: line 2: CREATE TABLE b/);
        expect(failed.executed.map((s) => s.line)).toEqual([2]);
      }
      expect(outcomes.map((o) => o.filename)).toEqual(['app__0001_a.sql']);
      expect(await recorded()).toEqual(['app__0001_a.sql']);
      expect(await tableExistsAt(target, app.url, 'b')).toBe(!transactionalDdl);
      expect(await tableExistsAt(target, app.url, 'c')).toBe(false);
    });

    it('a failing first statement of a later file: nothing of that file remains, and the next migrate starts there', async () => {
      await put('app__0001_a.sql', migration(['CREATE TABLE a (id integer)']));
      await put('app__0002_b.sql', migration(['CREATE TABLE b (id integer)']));
      await put('app__0003_again.sql', migration(['CREATE TABLE a (id integer)']));
      const error = await engine.migrate(entry(), { root: app.root, log: logger }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(MigrationFailedError);
      expect((error as Error).message).toMatch(transactionalDdl ? /^app__0003_again\.sql:2: .*rolled back as a whole/ : /^app__0003_again\.sql:2: .*no statement of migration app__0003_again\.sql had run/);
      expect(await recorded()).toEqual(['app__0001_a.sql', 'app__0002_b.sql']);
      // The next migrate starts after the recorded ones.
      await put('app__0003_again.sql', migration(['CREATE TABLE again (id integer)']));
      const result = await engine.migrate(entry(), { root: app.root, log: logger });
      expect(result.outcomes.map((o) => o.filename)).toEqual(['app__0003_again.sql']);
    });

    it('records a file that begins and commits a transaction of its own, sent alone between messages, as written', async () => {
      await put('app__0001_a.sql', migration(['CREATE TABLE a (id integer)']));
      await put('app__0002_own.sql', migration(['CREATE TABLE own_t (id integer)', 'BEGIN', 'INSERT INTO own_t VALUES (1)', 'COMMIT', 'CREATE TABLE after_own (id integer)']));
      await put('app__0003_c.sql', migration(['CREATE TABLE c (id integer)']));
      const { messages, outcomes, error } = await applyAll();
      expect(error).toBeUndefined();
      // Outside a transaction of mtool's, each statement on its own (its BEGIN and COMMIT as the file has them).
      expect(messages).toEqual(['all 1', 'one', 'one', 'one', 'one', 'one', 'all 1']);
      expect(outcomes.map((o) => [o.filename, o.outsideTransaction ?? false])).toEqual([
        ['app__0001_a.sql', false],
        ['app__0002_own.sql', true],
        ['app__0003_c.sql', false],
      ]);
      expect(await recorded()).toEqual(['app__0001_a.sql', 'app__0002_own.sql', 'app__0003_c.sql']);
      const rows = await queryOnce(target, app.url, "SELECT execution_ms FROM _mtool_migrations WHERE filename = 'app__0002_own.sql'");
      expect(Number(rows[0]!.execution_ms)).toBeGreaterThanOrEqual(0);
    });

    it('sends a file that switches the session\'s schema alone, and switches it back before its record and the files after it', async () => {
      await put('app__0001_a.sql', migration(['CREATE TABLE a (id integer)']));
      await put('app__0002_switch.sql', migration([transactionalDdl ? 'SET search_path TO pg_catalog' : 'USE information_schema', 'SELECT 1']));
      await put('app__0003_c.sql', migration(['CREATE TABLE c (id integer)']));
      const { messages, error } = await applyAll();
      expect(error).toBeUndefined();
      // Alone: its two statements in one message of its own transaction, then the switch back with its record.
      expect(messages).toEqual(['all 1', 'all 0', 'one', 'all 1']);
      expect(await recorded()).toEqual(['app__0001_a.sql', 'app__0002_switch.sql', 'app__0003_c.sql']);
      expect(await tableExistsAt(target, app.url, 'c')).toBe(true);
    });

    it('logs the warning of a file that runs outside a transaction right before it runs, after the message before it', async () => {
      await put('app__0001_a.sql', migration(['CREATE TABLE a (id integer)']));
      await put('app__0002_b.sql', migration(['CREATE TABLE b (id integer)']));
      // PostgreSQL: a statement that refuses a transaction; MySQL: data first, declared outside one.
      await put('app__0003_alone.sql', transactionalDdl ? migration(['CREATE INDEX CONCURRENTLY a_id ON a (id)'], ['DROP INDEX a_id']) : migration(['INSERT INTO a VALUES (1)'], ['DELETE FROM a'], ['no-transaction']));
      const lines: string[] = [];
      configureLogging({ level: 'debug', json: true, sink: { write: (line) => void lines.push(line) } });
      let result: Awaited<ReturnType<typeof engine.migrate>>;
      try {
        result = await engine.migrate(entry(), { root: app.root, log: logger });
      } finally {
        configureLogging({ level: 'info', json: false, sink: undefined });
      }
      // Its outcome says so too (the listing's "(outside a transaction)"), inside a message as alone.
      expect(result.outcomes.map((o) => [o.filename, o.outsideTransaction ?? false])).toEqual([
        ['app__0001_a.sql', false],
        ['app__0002_b.sql', false],
        ['app__0003_alone.sql', true],
      ]);
      const messages = lines.map((l) => String(JSON.parse(l).message));
      const warning = messages.findIndex((m) => m.startsWith('app__0003_alone.sql: runs outside a transaction'));
      expect(warning).toBeGreaterThan(messages.findIndex((m) => m.startsWith('applied app__0002_b.sql')));
      expect(warning).toBeLessThan(messages.findIndex((m) => m.startsWith('applying app__0003_alone.sql')));
      expect(messages.filter((m) => m.includes('runs outside a transaction'))).toHaveLength(1);
    });

    it('splits a long run into messages of at most 100 files', async () => {
      for (let i = 1; i <= 150; i++) await put(`app__${String(i).padStart(4, '0')}_t${i}.sql`, migration([`CREATE TABLE t${i} (id integer)`]));
      const { messages, error } = await applyAll();
      expect(error).toBeUndefined();
      expect(messages).toEqual(['all 100', 'all 50']);
      expect(await recorded()).toHaveLength(150);
    });

    it.skipIf(transactionalDdl)('records the migrations of a message ten to a statement, each with its own row', async () => {
      for (let i = 1; i <= 25; i++) await put(`app__${String(i).padStart(4, '0')}_t${i}.sql`, migration([`CREATE TABLE t${i} (id integer)`]));
      const { messages, outcomes, error, insertStatements } = await applyAll();
      expect(error).toBeUndefined();
      expect(messages).toEqual(['all 25']);
      expect(insertStatements).toBe(3);
      expect(outcomes).toHaveLength(25);
      expect(await recorded()).toEqual(outcomes.map((o) => o.filename));
    });

    it.skipIf(transactionalDdl)('hands the migrations of a message on as their group is recorded, before the message ends (a deferred snapshot reads their tables meanwhile)', async () => {
      for (let i = 1; i <= 25; i++) await put(`app__${String(i).padStart(4, '0')}_t${i}.sql`, migration([`CREATE TABLE t${i} (id integer)`]));
      const commits: { versions: string; messageEnded: boolean }[] = [];
      const { messages, outcomes, error } = await applyAll({ onCommit: (committed, messageEnded) => void commits.push({ versions: committed.map((c) => c.file.version).join(','), messageEnded }) });
      expect(error).toBeUndefined();
      expect(messages).toEqual(['all 25']);
      const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => String(from + i).padStart(4, '0')).join(',');
      expect(commits.map((c) => c.versions)).toEqual([range(1, 10), range(11, 20), range(21, 25)]);
      expect(commits[0]!.messageEnded).toBe(false);
      expect(outcomes.map((o) => o.version)).toEqual(range(1, 25).split(','));
    });

    it.skipIf(transactionalDdl)('a statement failing in the middle of a group: the migrations of the group before it are recorded after the failure', async () => {
      for (let i = 1; i <= 13; i++) await put(`app__${String(i).padStart(4, '0')}_t${i}.sql`, migration([`CREATE TABLE t${i} (id integer)`]));
      await put('app__0014_fails.sql', migration(['CREATE TABLE t1 (id integer)']));
      const { outcomes, error, insertStatements } = await applyAll();
      expect((error as Error).message).toMatch(/^app__0014_fails\.sql:2: .*no statement of migration app__0014_fails\.sql had run/);
      expect((error as Error).message).not.toMatch(/Before it/);
      // The first group's record, then the three of the second group in one after the failure.
      expect(insertStatements).toBe(2);
      expect(outcomes).toHaveLength(13);
      expect(await recorded()).toHaveLength(13);
    });

    it.skipIf(transactionalDdl)('a session ended in the middle of a group: the error names the migrations that ran without a row, and --baseline records them', async () => {
      for (let i = 1; i <= 3; i++) await put(`app__000${i}_t${i}.sql`, migration([`CREATE TABLE t${i} (id integer)`]));
      await put('app__0004_slow.sql', migration(['CREATE TABLE slow4 AS SELECT SLEEP(3) AS x']));
      const killer = (async () => {
        for (let tries = 0; tries < 100; tries++) {
          const rows = await queryOnce(target, app.url, "SELECT ID AS id FROM information_schema.PROCESSLIST WHERE INFO LIKE 'CREATE TABLE slow4%'");
          if (rows.length > 0) return queryOnce(target, app.url, `KILL CONNECTION ${Number(rows[0]!.id)}`);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        throw new Error('the slow migration never showed in the process list');
      })();
      const { error } = await applyAll();
      await killer;
      expect(error).toBeInstanceOf(MigrationFailedError);
      const message = (error as Error).message;
      expect(message).toMatch(/^app__0004_slow\.sql:2: /);
      expect(message).toContain('Before it, migrations app__0001_t1.sql, app__0002_t2.sql, app__0003_t3.sql ran whole, but their tracking rows were not written');
      expect(message).toContain('`mtool migrate --database app --baseline --to-version 0003`');
      for (const t of ['t1', 't2', 't3']) expect(await tableExistsAt(target, app.url, t)).toBe(true);
      expect(await recorded()).toEqual([]);
      // What the message says to do records them without running them (their tables exist).
      await engine.migrate(entry(), { root: app.root, log: logger }, { baseline: true, toVersion: '0003' });
      expect(await recorded()).toEqual(['app__0001_t1.sql', 'app__0002_t2.sql', 'app__0003_t3.sql']);
    });

    it('sends each statement alone with --perf, which logs every statement with its own time', async () => {
      await put('app__0001_a.sql', migration(['CREATE TABLE a (id integer)']));
      await put('app__0002_b.sql', migration(['CREATE TABLE b (id integer)']));
      const { messages, error } = await applyAll({ perf: true });
      expect(error).toBeUndefined();
      expect(messages).toEqual(['one', 'one']);
    });

    // --verbose logs each migration as it starts and ends: PostgreSQL answers a message at its
    // end, and MySQL and MariaDB record a message's migrations in groups, so the lines are true
    // only with one migration to a message.
    it('with --verbose sends each migration alone', async () => {
      await put('app__0001_a.sql', migration(['CREATE TABLE a (id integer)']));
      await put('app__0002_b.sql', migration(['CREATE TABLE b (id integer)']));
      const { messages, outcomes, error } = await applyAll({ verbose: true });
      expect(error).toBeUndefined();
      expect(messages).toEqual(['one', 'one']);
      expect(outcomes.map((o) => o.action)).toEqual(['applied', 'applied']);
      expect(await recorded()).toEqual(['app__0001_a.sql', 'app__0002_b.sql']);
    });

    /**
     * A data file in a transaction of its own, 250 INSERTs into a: where migrations are not sent
     * together with it (MySQL: it starts with data; PostgreSQL: its SET makes it change the
     * session), its statements go 100 to a message, the last alone with the record and COMMIT.
     * `failAt`: the INSERT (1-based) made to fail on a duplicate key.
     */
    async function putRows(failAt?: number): Promise<number> {
      const first = transactionalDdl ? ["SET statement_timeout = '10s'"] : [];
      const rows = Array.from({ length: 250 }, (_, k) => `INSERT INTO a VALUES (${failAt === k + 1 ? 1 : k + 1})`);
      await put('app__0001_a.sql', migration(['CREATE TABLE a (id integer primary key)']));
      await put('app__0002_rows.sql', migration([...first, ...rows], ['DELETE FROM a']));
      // The failing INSERT's line: after '-- upgrade' and the SET.
      return failAt === undefined ? 0 : 1 + first.length + failAt;
    }

    it("sends a data file's statements in a transaction of its own 100 to a message, the last with its record", async () => {
      await putRows();
      const { messages, outcomes, error } = await applyAll();
      expect(error).toBeUndefined();
      expect(outcomes.map((o) => o.filename)).toEqual(['app__0001_a.sql', 'app__0002_rows.sql']);
      // 250 INSERTs (and PostgreSQL's SET, and the settings put back after it): three messages before the last statement.
      expect(messages.filter((m) => m === 'all 0')).toHaveLength(3);
      expect(messages[messages.length - 1]).toBe('one');
      expect(await rowCount(target, app.url, 'a')).toBe(250);
      expect(await recorded()).toEqual(['app__0001_a.sql', 'app__0002_rows.sql']);
    });

    it('names a statement that fails in a later message of a data file by its line, and rolls the file back whole', async () => {
      const line = await putRows(182);
      const { messages, error } = await applyAll();
      expect(error).toBeInstanceOf(MigrationFailedError);
      expect((error as Error).message).toMatch(new RegExp(`^app__0002_rows\\.sql:${line}: .*(duplicate|Duplicate).* — migration app__0002_rows\\.sql was rolled back as a whole`));
      // Stopped in its second message: nothing after it was sent.
      expect(messages.filter((m) => m === 'all 0')).toHaveLength(2);
      expect(messages).not.toContain('one');
      expect(await rowCount(target, app.url, 'a')).toBe(0);
      expect(await recorded()).toEqual(['app__0001_a.sql']);
    });
  });
}
