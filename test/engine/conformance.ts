import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDialect } from '../../src/dialects/index.js';
import type { Connection } from '../../src/dialects/types.js';
import { MigrationLock } from '../../src/main/engine/migration-lock.js';
import { TrackingStore } from '../../src/main/engine/tracking-store.js';
import { connectTo } from '../support/databases.js';
import type { CliResult } from '../support/cli.js';
import { TestProject, explain, migration, projectOn } from './support/project.js';
import { provision, queryOnce, rowCount, tableExistsAt, targetReachable, type EngineTarget, type ProvisionedDatabase } from './support/targets.js';

/**
 * The engine's conformance suite: the same scenarios, end to end through the built `mtool`
 * binary in a temporary project, against one target. Each `conformance-<target>.test.ts` file
 * calls it once, so targets run in parallel.
 */
export async function conformanceSuite(target: EngineTarget): Promise<void> {
  const reachable = await targetReachable(target);
  const transactional = getDialect(target.type).capabilities.transactionalDdl;

  describe.skipIf(!reachable)(`migration engine on ${target.id}`, () => {
    let db: ProvisionedDatabase;
    let project: TestProject;
    const files: Record<string, string> = {};

    beforeAll(async () => {
      db = await provision(target);
      project = await TestProject.create([{ name: 'app', type: target.type, url: db.url }]);
      files['app__0001_init.sql'] = migration(
        [target.createTable('t1'), target.createTable('ra_log'), target.createTable('roc_log'), "INSERT INTO t1 (id, name) VALUES (1, 'a;b')"],
        ['DROP TABLE roc_log', 'DROP TABLE ra_log', 'DROP TABLE t1'],
      );
      files['app__0002_second.sql'] = migration([target.createTable('t2')], ['DROP TABLE t2']);
      files['app__0003_third.sql'] = migration([target.createTable('t3')], ['DROP TABLE t3']);
      files['RA__always.sql'] = migration([target.insertNext('ra_log', 'ra')]);
      files['ROC__on_change.sql'] = `-- v1\n${migration([target.insertNext('roc_log', 'roc')])}`;
      for (const [name, content] of Object.entries(files)) await project.write(name, content);
    });
    afterAll(async () => {
      await project?.dispose();
      await db?.drop();
    });

    it('applies versioned migrations in order, then repeatables, and records each', async () => {
      const result = await project.run(['migrate']);
      expect(result.code, explain(result)).toBe(0);
      expect(result.stdout).toMatch(/applied 5 migrations/);
      const order = ['app__0001_init.sql', 'app__0002_second.sql', 'app__0003_third.sql', 'RA__always.sql', 'ROC__on_change.sql'];
      const positions = order.map((f) => result.stdout.indexOf(f));
      expect(positions.every((p, i) => p >= 0 && (i === 0 || p > positions[i - 1])), result.stdout).toBe(true);
      expect(result.stderr).toMatch(/lock acquired in [\d.]+ (ms|s)/);
      expect(await rowCount(target, db.url, 't1')).toBe(1);
      expect(await rowCount(target, db.url, 'ra_log')).toBe(1);
      expect(await tableExistsAt(target, db.url, 't3')).toBe(true);
    });

    it('status and history report what is applied, with checksums and who applied it', async () => {
      const { result, data } = await project.json(['status']);
      expect(result.code, explain(result)).toBe(0);
      const app = data.databases.app;
      expect(app).toMatchObject({ status: 'ok', connected: true, current_version: '0003', applied_migrations: 5, pending_migrations: 0, lock_active: false, error: null });
      expect(app.migrations.map((m: { state: string }) => m.state)).toEqual(['applied', 'applied', 'applied', 'applied', 'applied']);

      const history = await project.json(['history']);
      expect(history.result.code, explain(history.result)).toBe(0);
      const records = history.data.databases.app.migrations;
      expect(records.map((r: { filename: string }) => r.filename).slice(0, 3)).toEqual(['app__0001_init.sql', 'app__0002_second.sql', 'app__0003_third.sql']);
      const first = records[0];
      expect(first.version).toBe('0001');
      expect(first.type).toBe('versioned');
      expect(first.checksum).toBe(await sha(files['app__0001_init.sql']));
      expect(first.applied_by).toMatch(/.+@.+/);
      expect(Date.parse(first.applied_at)).toBeGreaterThan(Date.now() - 10 * 60_000);
      expect(records.find((r: { filename: string }) => r.filename === 'RA__always.sql')).toMatchObject({ version: null, type: 'repeatable_always' });
    });

    it('reruns RA__ files on every migrate and ROC__ files only when their checksum changed', async () => {
      let result = await project.run(['migrate']);
      expect(result.code, explain(result)).toBe(0);
      expect(await rowCount(target, db.url, 'ra_log')).toBe(2);
      expect(await rowCount(target, db.url, 'roc_log')).toBe(1);

      const changed = files['ROC__on_change.sql'].replace('-- v1', '-- v2');
      await project.write('ROC__on_change.sql', changed);
      const status = await project.json(['status']);
      expect(status.data.databases.app.migrations.find((m: { filename: string }) => m.filename === 'ROC__on_change.sql').state).toBe('changed');
      result = await project.run(['migrate']);
      expect(result.code, explain(result)).toBe(0);
      expect(await rowCount(target, db.url, 'roc_log')).toBe(2);
      expect(await rowCount(target, db.url, 'ra_log')).toBe(3);
      const history = await project.json(['history']);
      const roc = history.data.databases.app.migrations.filter((r: { filename: string }) => r.filename === 'ROC__on_change.sql');
      expect(roc).toHaveLength(1);
      expect(roc[0].checksum).toBe(await sha(changed));
      files['ROC__on_change.sql'] = changed;
    });

    it('blocks migrate and status with a checksum mismatch when an applied file changed', async () => {
      const original = files['app__0001_init.sql'];
      const edited = `${original}-- an innocent-looking edit\n`;
      await project.write('app__0001_init.sql', edited);
      try {
        for (const command of ['migrate', 'status']) {
          const result = await project.run([command]);
          expect(result.code, explain(result)).toBe(1);
          expect(result.stderr).toContain('checksum mismatch');
          expect(result.stderr).toContain('app__0001_init.sql');
          expect(result.stderr).toContain((await sha(original)).slice(0, 12));
          expect(result.stderr).toContain((await sha(edited)).slice(0, 12));
          expect(result.stderr).toContain("'app'");
          expect(result.stderr).toContain('mtool history');
          expect(result.stderr).not.toContain('differs from the one applied only in');
        }
        expect(await rowCount(target, db.url, 'ra_log')).toBe(3);
        // Checked out again by git with core.autocrlf: still blocked, and the message says that the SQL is the same.
        await project.write('app__0001_init.sql', original.replace(/\n/g, '\r\n'));
        const converted = await project.run(['migrate']);
        expect(converted.code, explain(converted)).toBe(1);
        expect(converted.stderr).toContain('checksum mismatch');
        expect(converted.stderr).toContain('only in its line endings (CRLF now, LF when it was applied), not in its SQL');
      } finally {
        await project.write('app__0001_init.sql', original);
      }
    });

    it('rolls back the newest migration, then reapplies it', async () => {
      let result = await project.run(['rollback']);
      expect(result.code, explain(result)).toBe(0);
      expect(result.stdout).toMatch(/rolled back 1 migration/);
      expect(result.stdout).toContain('app__0003_third.sql');
      expect(await tableExistsAt(target, db.url, 't3')).toBe(false);
      const status = await project.json(['status']);
      expect(status.data.databases.app).toMatchObject({ current_version: '0002', pending_migrations: 1 });
      result = await project.run(['migrate']);
      expect(result.code, explain(result)).toBe(0);
      expect(await tableExistsAt(target, db.url, 't3')).toBe(true);
    });

    it('downgrades to an applied version and refuses a version that is not applied', async () => {
      let result = await project.run(['downgrade', '--to', '0009']);
      expect(result.code, explain(result)).toBe(1);
      expect(result.stderr).toMatch(/cannot downgrade to version 0009: it is not applied/);

      result = await project.run(['downgrade', '--to', '0001']);
      expect(result.code, explain(result)).toBe(0);
      expect(result.stdout.indexOf('app__0003_third.sql')).toBeLessThan(result.stdout.indexOf('app__0002_second.sql'));
      expect(await tableExistsAt(target, db.url, 't2')).toBe(false);
      expect(await tableExistsAt(target, db.url, 't1')).toBe(true);
      const status = await project.json(['status']);
      expect(status.data.databases.app).toMatchObject({ current_version: '0001', pending_migrations: 2 });
      result = await project.run(['migrate']);
      expect(result.code, explain(result)).toBe(0);
    });

    it('downgrades past a placeholder migration of no statements, removing only its record', async () => {
      await project.write('app__0004_placeholder.sql', '-- upgrade\n-- keeps the numbering; changes nothing\n');
      try {
        let result = await project.run(['migrate']);
        expect(result.code, explain(result)).toBe(0);
        result = await project.run(['downgrade', '--to', '0002']);
        expect(result.code, explain(result)).toBe(0);
        expect(result.stdout.indexOf('app__0004_placeholder.sql')).toBeLessThan(result.stdout.indexOf('app__0003_third.sql'));
        expect(await tableExistsAt(target, db.url, 't3')).toBe(false);
        const status = await project.json(['status']);
        expect(status.data.databases.app).toMatchObject({ current_version: '0002', pending_migrations: 2 });
      } finally {
        await project.remove('app__0004_placeholder.sql');
      }
      const result = await project.run(['migrate']);
      expect(result.code, explain(result)).toBe(0);
      expect(await tableExistsAt(target, db.url, 't3')).toBe(true);
    });

    it('fails at once with a lock error while the lock is held; lock-status and unlock report and release it', async () => {
      const holder = await holdLock(target, db.url);
      try {
        const started = Date.now();
        const result = await project.run(['migrate']);
        expect(result.code, explain(result)).toBe(1);
        expect(Date.now() - started).toBeLessThan(15_000);
        expect(result.stderr).toContain('Another migration may be running');
        expect(result.stderr).toContain('mtool unlock');
        expect(result.stderr).toContain(`pid ${process.pid}`);
        expect(result.stderr).toContain("command 'conformance holder'");

        const status = await project.run(['lock-status']);
        expect(status.code, explain(status)).toBe(0);
        expect(status.stdout.split('\n')[0]).toBe('Migration lock: ACTIVE');
        expect(status.stdout).toContain(`pid ${process.pid}`);
        expect(status.stdout).toMatch(/held for \d+ s/);
        // The holder is this test's process, on this host and running.
        expect(status.stdout).toContain(`Process ${process.pid} still runs on this host: a migration is most likely in progress on 'app'; wait for it to finish.`);

        const unlock = await project.run(['unlock']);
        expect(unlock.code, explain(unlock)).toBe(0);
        expect(unlock.stdout).toContain('released');
        const after = await project.run(['lock-status']);
        expect(after.stdout.trim()).toBe('Migration lock: INACTIVE');
        const again = await project.run(['migrate']);
        expect(again.code, explain(again)).toBe(0);
      } finally {
        await holder.close();
      }
    });

    it('names the failing statement by file and line and never records a failed migration', async () => {
      const lines = migration([target.createTable('f1'), 'SELECT * FROM no_such_table_xyz', target.createTable('f2')], ['DROP TABLE f1']);
      await project.write('app__0004_fails.sql', lines);
      try {
        const result = await project.run(['migrate']);
        expect(result.code, explain(result)).toBe(1);
        expect(result.stderr).toContain('app__0004_fails.sql:3:');
        expect(result.stderr).toContain('no_such_table_xyz');
        if (transactional) {
          expect(result.stderr).toMatch(/rolled back as a whole/);
          expect(await tableExistsAt(target, db.url, 'f1')).toBe(false);
        } else {
          expect(result.stderr).toMatch(/already ran: line 2: CREATE TABLE f1/);
          expect(result.stderr).toMatch(/inspect the database manually/);
          expect(await tableExistsAt(target, db.url, 'f1')).toBe(true);
        }
        expect(await tableExistsAt(target, db.url, 'f2')).toBe(false);
        const status = await project.json(['status']);
        expect(status.data.databases.app.migrations.find((m: { filename: string }) => m.filename === 'app__0004_fails.sql').state).toBe('pending');
        expect(status.data.databases.app.lock_active).toBe(false);
      } finally {
        await project.remove('app__0004_fails.sql');
      }
    });

    describe('on a fresh database', () => {
      let fresh: ProvisionedDatabase;
      let other: TestProject;
      beforeAll(async () => {
        fresh = await provision(target);
        other = await TestProject.create([{ name: 'app', type: target.type, url: fresh.url }]);
        for (const name of ['app__0001_init.sql', 'app__0002_second.sql', 'app__0003_third.sql']) await other.write(name, files[name]);
      });
      afterAll(async () => {
        await other?.dispose();
        await fresh?.drop();
      });

      it('--dry-run prints the SQL and writes nothing: no tracking table, no lock, no table', async () => {
        const result = await other.run(['migrate', '--dry-run']);
        expect(result.code, explain(result)).toBe(0);
        expect(result.stdout).toContain('-- app__0001_init.sql');
        expect(result.stdout).toContain("INSERT INTO t1 (id, name) VALUES (1, 'a;b');");
        expect(result.stdout).toContain('nothing was written');
        expect(result.stderr).not.toContain('lock acquired');
        expect(await tableExistsAt(target, fresh.url, '_mtool_migrations')).toBe(false);
        expect(await tableExistsAt(target, fresh.url, 'mtool_lock')).toBe(false);
        expect(await tableExistsAt(target, fresh.url, 't1')).toBe(false);
      });

      it('--baseline --to-version records migrations as applied without running them', async () => {
        const refused = await other.run(['migrate', '--baseline']);
        expect(refused.code, explain(refused)).toBe(2);
        const result = await other.run(['migrate', '--baseline', '--to-version', '0002']);
        expect(result.code, explain(result)).toBe(0);
        expect(result.stdout).toMatch(/baselined\s+0001/);
        expect(await tableExistsAt(target, fresh.url, 't1')).toBe(false);
        const status = await other.json(['status']);
        expect(status.data.databases.app).toMatchObject({ current_version: '0002', applied_migrations: 2, pending_migrations: 1 });
        const dry = await other.run(['migrate', '--dry-run']);
        expect(dry.stdout).toContain('-- app__0003_third.sql');
        expect(dry.stdout).not.toContain('-- app__0001_init.sql');
        const rest = await other.run(['migrate']);
        expect(rest.code, explain(rest)).toBe(0);
        expect(await tableExistsAt(target, fresh.url, 't3')).toBe(true);
        expect(await tableExistsAt(target, fresh.url, 't1')).toBe(false);
      });
    });

    // Servers with schemas or databases to switch to (SQLite's PRAGMA foreign_keys: group-commit.test.ts).
    describe.skipIf(target.type !== 'postgresql' && target.type !== 'mysql' && target.type !== 'mariadb')('a migration that switches the session: its schema, role, autocommit or foreign-key checks', () => {
      let home: ProvisionedDatabase;
      let elsewhere: ProvisionedDatabase | undefined;
      let project: TestProject;
      /** What switches the session, and the schema or database it switches to. */
      let switchTo: string;
      beforeAll(async () => {
        home = await provision(target);
        project = await TestProject.create([{ name: 'app', type: target.type, url: home.url }]);
        if (target.type === 'postgresql') {
          switchTo = 'SET search_path TO elsewhere';
          await queryOnce(target, home.url, 'CREATE SCHEMA elsewhere');
        } else {
          elsewhere = await provision(target);
          switchTo = `USE ${new URL(elsewhere.url).pathname.slice(1)}`;
        }
      });
      afterAll(async () => {
        await project?.dispose();
        await home?.drop();
        await elsewhere?.drop();
      });
      const inElsewhere = (table: string) => (elsewhere ? tableExistsAt(target, elsewhere.url, table) : queryOnce(target, home.url, `SELECT 1 FROM information_schema.tables WHERE table_schema = 'elsewhere' AND table_name = '${table}'`).then((r) => r.length === 1));

      it('is recorded, and the migrations after it run where the session started', async () => {
        await project.write('app__0001_switch.sql', migration([switchTo, target.createTable('w1')], [switchTo, 'DROP TABLE w1']));
        await project.write('app__0002_after.sql', migration([target.createTable('w2')], ['DROP TABLE w2']));
        const result = await project.run(['migrate']);
        expect(result.code, explain(result)).toBe(0);
        expect(await inElsewhere('w1')).toBe(true);
        expect(await tableExistsAt(target, home.url, 'w1')).toBe(false);
        expect(await tableExistsAt(target, home.url, 'w2')).toBe(true);
        expect(await inElsewhere('w2')).toBe(false);
        const status = await project.json(['status']);
        expect(status.data.databases.app).toMatchObject({ current_version: '0002', applied_migrations: 2, lock_active: false });
      });

      it('a failure after the switch still releases the lock', async () => {
        await project.write('app__0003_fails.sql', migration([switchTo, 'SELECT * FROM no_such_table_xyz'], ['SELECT 1']));
        try {
          const result = await project.run(['migrate']);
          expect(result.code, explain(result)).toBe(1);
          expect(result.stderr).toContain('app__0003_fails.sql:3:');
          expect(result.stderr).not.toMatch(/could not release the migration lock/);
          const status = await project.json(['status']);
          expect(status.data.databases.app).toMatchObject({ current_version: '0002', applied_migrations: 2, lock_active: false });
        } finally {
          await project.remove('app__0003_fails.sql');
        }
      });

      it('rolls back where each rollback section says', async () => {
        const result = await project.run(['rollback', '--count', '2']);
        expect(result.code, explain(result)).toBe(0);
        expect(await inElsewhere('w1')).toBe(false);
        expect(await tableExistsAt(target, home.url, 'w2')).toBe(false);
      });

      it('turning foreign-key checks off lasts for that migration only', async () => {
        const off = target.type === 'postgresql' ? 'SET session_replication_role = replica' : 'SET foreign_key_checks = 0';
        const parent = target.type === 'postgresql' ? 'CREATE TABLE fk_parent (id integer PRIMARY KEY)' : 'CREATE TABLE fk_parent (id integer PRIMARY KEY) ENGINE=InnoDB';
        const child = 'CREATE TABLE fk_child (id integer PRIMARY KEY, parent_id integer REFERENCES fk_parent (id))';
        const childMysql = 'CREATE TABLE fk_child (id integer PRIMARY KEY, parent_id integer, FOREIGN KEY (parent_id) REFERENCES fk_parent (id)) ENGINE=InnoDB';
        await project.write('app__0003_fk.sql', migration([parent, target.type === 'postgresql' ? child : childMysql, off, 'INSERT INTO fk_child (id, parent_id) VALUES (1, 99)'], ['DROP TABLE fk_child', 'DROP TABLE fk_parent']));
        await project.write('app__0004_orphan.sql', migration(['INSERT INTO fk_child (id, parent_id) VALUES (2, 98)'], ['DELETE FROM fk_child WHERE id = 2']));
        try {
          const result = await project.run(['migrate']);
          expect(result.code, explain(result)).toBe(1);
          expect(result.stderr).toContain('app__0004_orphan.sql:2:');
          expect(result.stderr).toMatch(/foreign key/i);
          expect(await rowCount(target, home.url, 'fk_child')).toBe(1);
          const status = await project.json(['status']);
          expect(status.data.databases.app).toMatchObject({ current_version: '0003', lock_active: false });
          await project.remove('app__0004_orphan.sql');
          const back = await project.run(['rollback', '--count', '3']);
          expect(back.code, explain(back)).toBe(0);
        } finally {
          await project.remove('app__0003_fk.sql');
          await project.remove('app__0004_orphan.sql').catch(() => undefined);
        }
      });

      it.skipIf(target.type === 'postgresql')('SET autocommit = 0: what the migration did is committed with its record, and the lock is released', async () => {
        await project.write('app__0003_no_autocommit.sql', migration([target.createTable('ac'), 'SET autocommit = 0', "INSERT INTO ac (id, name) VALUES (1, 'a')"], ['DROP TABLE ac']));
        await project.write('app__0004_after.sql', migration(["INSERT INTO ac (id, name) VALUES (2, 'b')"], ['DELETE FROM ac WHERE id = 2']));
        try {
          const result = await project.run(['migrate']);
          expect(result.code, explain(result)).toBe(0);
          expect(await rowCount(target, home.url, 'ac')).toBe(2);
          const status = await project.json(['status']);
          // 0001 and 0002 again (the test before rolled them back), then these two.
          expect(status.data.databases.app).toMatchObject({ current_version: '0004', applied_migrations: 4, lock_active: false });
          const back = await project.run(['rollback', '--count', '4']);
          expect(back.code, explain(back)).toBe(0);
        } finally {
          await project.remove('app__0003_no_autocommit.sql');
          await project.remove('app__0004_after.sql');
        }
      });

      it.skipIf(target.type !== 'postgresql')('SET ROLE: the migration acts as that role, its record and the migrations after it as the session began', async () => {
        const role = `mtool_owner_${Math.random().toString(36).slice(2, 10)}`;
        await queryOnce(target, home.url, `CREATE ROLE ${role} NOLOGIN`);
        try {
          await queryOnce(target, home.url, `GRANT CREATE, USAGE ON SCHEMA public TO ${role}`);
          await project.write('app__0003_owned.sql', migration([`SET ROLE ${role}`, target.createTable('owned')], [`SET ROLE ${role}`, 'DROP TABLE owned']));
          await project.write('app__0004_plain.sql', migration([target.createTable('plain')], ['DROP TABLE plain']));
          const result = await project.run(['migrate']);
          expect(result.code, explain(result)).toBe(0);
          const owners = await queryOnce(target, home.url, "SELECT tablename, tableowner FROM pg_tables WHERE tablename IN ('owned', 'plain') ORDER BY tablename");
          expect(owners.map((r) => [r.tablename, r.tableowner === role])).toEqual([
            ['owned', true],
            ['plain', false],
          ]);
          const back = await project.run(['rollback', '--count', '2']);
          expect(back.code, explain(back)).toBe(0);
          expect(await tableExistsAt(target, home.url, 'owned')).toBe(false);
        } finally {
          await project.remove('app__0003_owned.sql').catch(() => undefined);
          await project.remove('app__0004_plain.sql').catch(() => undefined);
          await queryOnce(target, home.url, `DROP OWNED BY ${role}; DROP ROLE ${role}`);
        }
      });

      it('a lock a migration takes for the session is released after it', async () => {
        const [take, held] =
          target.type === 'postgresql'
            ? ['SELECT pg_advisory_lock(4242)', "SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()"]
            : ["DO GET_LOCK('mtool_test_backfill', 5)", "SELECT count(*) AS n FROM (SELECT IS_USED_LOCK('mtool_test_backfill') AS holder) h WHERE holder = CONNECTION_ID()"];
        await migratePair(project, { name: 'app__0005_takes_lock.sql', up: [take], down: ['SELECT 1'] }, { name: 'app__0006_sees.sql', up: [`CREATE TABLE held AS ${held}`], down: ['DROP TABLE held'] }, async () => {
          const [row] = await queryOnce(target, home.url, 'SELECT n FROM held');
          expect(Number(row!.n)).toBe(0);
        });
      });

      it.skipIf(target.type !== 'postgresql')("DISCARD ALL in a migration: it runs outside a transaction, and mtool's own session settings are back after it", async () => {
        const seen = "SELECT current_setting('client_connection_check_interval') || ' ' || current_setting('work_mem') AS v";
        const discard = { name: 'app__0005_discard.sql', up: ["SET work_mem = '77MB'", 'DISCARD ALL', target.createTable('d')], down: ['DROP TABLE d'] };
        await migratePair(project, discard, { name: 'app__0006_sees.sql', up: [`CREATE TABLE seen AS ${seen}`], down: ['DROP TABLE seen'] }, async (result) => {
          expect(result.stderr).toContain('app__0005_discard.sql: runs outside a transaction: DISCARD ALL cannot run inside a transaction (line 3)');
          const [row] = await queryOnce(target, home.url, 'SELECT v FROM seen');
          // 250ms: what mtool sets for itself when it opens the session (PostgreSQL 14+).
          expect(row!.v).toBe('250ms 4MB');
        });
      });

      it("the session's other settings a migration changes last for that migration only", async () => {
        const settings =
          target.type === 'postgresql'
            ? {
                set: ["SET statement_timeout = '7s'", "SET TIME ZONE 'Asia/Tokyo'", "SELECT set_config('work_mem', '64MB', false)"],
                seen: "SELECT current_setting('statement_timeout') || ' ' || current_setting('TimeZone') || ' ' || current_setting('work_mem') AS v",
              }
            : {
                set: ["SET SESSION sql_mode = 'NO_ENGINE_SUBSTITUTION', @@time_zone = '+05:00'", 'SET NAMES latin1'],
                seen: "SELECT CONCAT_WS(' ', @@SESSION.sql_mode, @@SESSION.time_zone, @@character_set_client, @@collation_connection) AS v",
              };
        const set = { name: 'app__0005_settings.sql', up: [...settings.set, target.createTable('st')], down: ['DROP TABLE st'] };
        await migratePair(project, set, { name: 'app__0006_sees.sql', up: [`CREATE TABLE seen AS ${settings.seen}`], down: ['DROP TABLE seen'] }, async () => {
          const [fresh] = await queryOnce(target, home.url, settings.seen);
          const [seen] = await queryOnce(target, home.url, 'SELECT v FROM seen');
          expect(seen!.v).toBe(fresh!.v);
          expect(String(seen!.v)).not.toMatch(/7s|Tokyo|64MB|\+05:00|latin1/);
        });
      });
    });

    describe.skipIf(target.type !== 'sqlite')('a migration that sets connection PRAGMAs', () => {
      const app = projectOn(target);

      it('has them for that migration only, and runs outside a transaction where one is refused there (synchronous)', async () => {
        const { db: home, project } = app;
        const seen =
          'SELECT (SELECT legacy_alter_table FROM pragma_legacy_alter_table()) || (SELECT recursive_triggers FROM pragma_recursive_triggers()) || (SELECT synchronous FROM pragma_synchronous()) AS v';
        await project.write('app__0001_pragmas.sql', migration(['PRAGMA legacy_alter_table = ON', 'PRAGMA recursive_triggers(1)', 'PRAGMA main.synchronous = OFF', target.createTable('p')], ['DROP TABLE p']));
        await project.write('app__0002_sees.sql', migration([`CREATE TABLE seen AS ${seen}`], ['DROP TABLE seen']));
        const result = await project.run(['migrate']);
        expect(result.code, explain(result)).toBe(0);
        expect(result.stderr).toContain('app__0001_pragmas.sql: runs outside a transaction: setting PRAGMA synchronous cannot run inside a transaction (line 4)');
        const [row] = await queryOnce(target, home.url, 'SELECT v FROM seen');
        // As a connection opens: synchronous FULL (2), the other two off.
        expect(row!.v).toBe('002');
      });
    });

    it('a temporary table a migration makes is gone for the migrations after it', async () => {
      const temporary =
        target.type === 'clickhouse' ? 'CREATE TEMPORARY TABLE scratch (id UInt32)' : target.type === 'mysql' || target.type === 'mariadb' ? 'CREATE TEMPORARY TABLE scratch (id integer)' : 'CREATE TEMP TABLE scratch (id integer)';
      const scratch = { name: 'app__0004_scratch.sql', up: [temporary, 'INSERT INTO scratch (id) VALUES (1)'], down: ['SELECT 1'] };
      // Made again: it would exist already if the migration before had left it in the session.
      const again = { name: 'app__0005_scratch_again.sql', up: [temporary, 'INSERT INTO scratch (id) VALUES (2)'], down: ['SELECT 1'] };
      await migratePair(project, scratch, again, async (result) => {
        expect(result.stdout).toContain('app__0005_scratch_again.sql');
      });
    });

    it.skipIf(target.type !== 'clickhouse')("a setting a migration changes with SET lasts for that migration only (ClickHouse: the HTTP session goes on anew)", async () => {
      // max_block_size, not max_threads: the default of max_threads follows the host's physical cores (1 on some machines).
      const seen = "SELECT value AS v FROM system.settings WHERE name = 'max_block_size'";
      const set = { name: 'app__0004_set.sql', up: ['SET max_block_size = 4321', 'SELECT 1'], down: ['SELECT 1'] };
      await migratePair(project, set, { name: 'app__0005_sees.sql', up: [`CREATE TABLE seen ENGINE = Memory AS ${seen}`], down: ['DROP TABLE seen'] }, async () => {
        const [fresh] = await queryOnce(target, db.url, seen);
        const [row] = await queryOnce(target, db.url, 'SELECT v FROM seen');
        expect(row!.v).toBe(fresh!.v);
        expect(row!.v).not.toBe('4321');
      });
    });

    describe.skipIf(!getDialect(target.type).capabilities.transactions)('a file that begins and ends transactions itself', () => {
      let own: ProvisionedDatabase;
      let scripts: TestProject;
      const begin = target.type === 'postgresql' || target.type === 'sqlite' ? 'BEGIN' : 'START TRANSACTION';
      beforeAll(async () => {
        own = await provision(target);
        scripts = await TestProject.create([{ name: 'app', type: target.type, url: own.url }]);
      });
      afterAll(async () => {
        await scripts?.dispose();
        await own?.drop();
      });

      it('runs as written, outside a transaction of mtool\'s, and is recorded (SQLite refused its BEGIN before)', async () => {
        await scripts.write('app__0001_own.sql', migration([target.createTable('o1'), begin, "INSERT INTO o1 (id, name) VALUES (1, 'a')", 'COMMIT'], [begin, 'DELETE FROM o1', 'COMMIT', 'DROP TABLE o1']));
        const result = await scripts.run(['migrate']);
        expect(result.code, explain(result)).toBe(0);
        expect(result.stderr).toMatch(/app__0001_own\.sql: runs outside a transaction of mtool's: the file begins and ends transactions itself \('(BEGIN|START TRANSACTION)', line 3\)/);
        expect(result.stdout).toMatch(/applied\s+0001\s+app__0001_own\.sql.*\(outside a transaction\)/);
        expect(await rowCount(target, own.url, 'o1')).toBe(1);
        const status = await scripts.json(['status']);
        expect(status.data.databases.app).toMatchObject({ current_version: '0001', applied_migrations: 1, lock_active: false });
      });

      it('a failure inside its transaction rolls that transaction back, releases the lock and records nothing', async () => {
        await scripts.write('app__0002_fails.sql', migration([target.createTable('o2'), begin, "INSERT INTO o1 (id, name) VALUES (2, 'b')", 'SELECT * FROM no_such_table_xyz', 'COMMIT'], ['DROP TABLE o2']));
        try {
          const result = await scripts.run(['migrate']);
          expect(result.code, explain(result)).toBe(1);
          expect(result.stderr).toContain('app__0002_fails.sql:5:');
          // The statement before its BEGIN ran on its own and stays; the INSERT went with the transaction.
          expect(result.stderr).toMatch(/already ran: line 2: CREATE TABLE o2/);
          if (transactional) expect(result.stderr).toMatch(/the statements from line 3 on ran in the transaction the file had begun there and were rolled back with it/);
          expect(result.stderr).not.toMatch(/rolled back as a whole/);
          expect(await tableExistsAt(target, own.url, 'o2')).toBe(true);
          expect(await rowCount(target, own.url, 'o1')).toBe(1);
          const status = await scripts.json(['status']);
          expect(status.data.databases.app).toMatchObject({ current_version: '0001', applied_migrations: 1, lock_active: false });
        } finally {
          await scripts.remove('app__0002_fails.sql');
        }
      });

      it('a section that begins a transaction it never ends is refused before anything runs (exit 2)', async () => {
        await scripts.write('app__0002_open.sql', migration([target.createTable('o3'), begin, "INSERT INTO o1 (id, name) VALUES (3, 'c')"], ['DROP TABLE o3']));
        try {
          const result = await scripts.run(['migrate']);
          expect(result.code, explain(result)).toBe(2);
          expect(result.stderr).toMatch(/app__0002_open\.sql:3: '(BEGIN|START TRANSACTION)' begins a transaction that the '-- upgrade' section never ends; end it with COMMIT/);
          expect(await tableExistsAt(target, own.url, 'o3')).toBe(false);
          expect(await rowCount(target, own.url, 'o1')).toBe(1);
        } finally {
          await scripts.remove('app__0002_open.sql');
        }
      });

      it('its rollback section may do the same', async () => {
        const result = await scripts.run(['rollback']);
        expect(result.code, explain(result)).toBe(0);
        expect(result.stderr).toMatch(/app__0001_own\.sql: rollback runs outside a transaction of mtool's: the file begins and ends transactions itself/);
        expect(await tableExistsAt(target, own.url, 'o1')).toBe(false);
        const status = await scripts.json(['status']);
        expect(status.data.databases.app).toMatchObject({ applied_migrations: 0, lock_active: false });
      });
    });
  });
}

async function sha(text: string): Promise<string> {
  const { createHash } = await import('node:crypto');
  return createHash('sha256').update(text).digest('hex');
}

/** Take the migration lock from this test process, the way a running `migrate` holds it. */
async function holdLock(target: EngineTarget, url: string): Promise<{ close(): Promise<void> }> {
  const conn: Connection = await connectTo(target.type, url);
  const dialect = getDialect(target.type);
  const store = new TrackingStore(conn, dialect, await dialect.tracking(), '_mtool_migrations');
  await store.ensureTables();
  const lock = new MigrationLock(conn, dialect, store);
  await lock.acquire('conformance holder');
  return { close: () => conn.close() };
}

/** A migration for {@link migratePair}: its file name, upgrade and rollback statements. */
interface PairFile {
  name: string;
  up: string[];
  down: string[];
}

/**
 * Apply two migrations in one `migrate` (the second sees the session the first left), hand the
 * result to `check`, then roll both back and remove their files, whatever `check` found.
 */
async function migratePair(project: TestProject, first: PairFile, second: PairFile, check: (result: CliResult) => Promise<void>): Promise<void> {
  for (const file of [first, second]) await project.write(file.name, migration(file.up, file.down));
  try {
    const result = await project.run(['migrate']);
    expect(result.code, explain(result)).toBe(0);
    await check(result);
    const back = await project.run(['rollback', '--count', '2']);
    expect(back.code, explain(back)).toBe(0);
  } finally {
    for (const file of [first, second]) await project.remove(file.name);
  }
}
