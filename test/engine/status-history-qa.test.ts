import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { explain, migration, projectPerTest } from './support/project.js';
import { TARGETS, targetReachable, type EngineTarget } from './support/targets.js';

/**
 * `status` and `history` on SQLite, PostgreSQL and MariaDB: every state a migration file or a
 * tracking row can be in, shown in text and JSON, the JSON the same on every dialect but for times.
 */

const target = (id: string): EngineTarget => TARGETS.find((t) => t.id === id)!;
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

for (const t of ['sqlite', 'postgresql', 'mariadb'].map(target)) {
  const reachable = await targetReachable(t);
  describe.skipIf(!reachable)(`status and history on ${t.id}`, () => {
    const fresh = projectPerTest(t);

    it('a pending versioned file below the applied version is shown blocked, saying migrate refuses it and why', async () => {
      const p = await fresh.create();
      await p.write('app__0001_a.sql', migration([t.createTable('a')], ['DROP TABLE a']));
      await p.write('app__0003_c.sql', migration([t.createTable('c')], ['DROP TABLE c']));
      expect((await p.run(['migrate'])).code).toBe(0);
      await p.write('app__0002_b.sql', migration([t.createTable('b')], ['DROP TABLE b']));

      const refused = await p.run(['migrate']);
      expect(refused.code, explain(refused)).toBe(2);

      const text = await p.run(['status']);
      expect(text.code, explain(text)).toBe(0);
      expect(text.stdout).toMatch(/^ {2}blocked +0002 +versioned +app__0002_b\.sql/m);
      expect(text.stdout).toMatch(/app__0002_b\.sql: version 0002 is below the applied version 0003: `mtool migrate` refuses to run .*renumbered above 0003/);

      const { result, data } = await p.json(['status']);
      expect(result.code, explain(result)).toBe(0);
      const entry = data.databases.app.migrations.find((m: { filename: string }) => m.filename === 'app__0002_b.sql');
      expect(entry).toMatchObject({ state: 'blocked', version: '0002', applied_at: null });
      expect(entry.note).toMatch(/below the applied version 0003/);
      expect(data.databases.app.pending_migrations).toBe(1);
    });

    it('shows applied, pending, changed ROC, RA and missing files in order, with the same JSON on every dialect', async () => {
      const p = await fresh.create();
      await p.write('app__0001_a.sql', migration([t.createTable('a')], ['DROP TABLE a']));
      await p.write('app__0002_a_rather_long_description_for_alignment.sql', migration([t.createTable('b')], ['DROP TABLE b']));
      await p.write('RA__always.sql', migration(['SELECT 1']));
      await p.write('ROC__views.sql', migration(['SELECT 2']));
      expect((await p.run(['migrate'])).code).toBe(0);
      await p.write('app__0003_c.sql', migration([t.createTable('c')], ['DROP TABLE c']));
      await p.write('ROC__views.sql', migration(['SELECT 3']));
      await p.remove('app__0002_a_rather_long_description_for_alignment.sql');

      const { result, data } = await p.json(['status']);
      expect(result.code, explain(result)).toBe(0);
      const db = data.databases.app;
      expect(db).toMatchObject({ status: 'ok', connected: true, database_type: t.type, current_version: '0002', pending_migrations: 2, applied_migrations: 4, lock_active: false, error: null });
      const stable = db.migrations.map((m: Record<string, unknown>) => ({ ...m, applied_at: m.applied_at === null ? null : 'time', checksum: typeof m.checksum }));
      expect(stable).toEqual([
        { filename: 'app__0001_a.sql', version: '0001', type: 'versioned', state: 'applied', applied_at: 'time', checksum: 'string', note: null },
        { filename: 'app__0003_c.sql', version: '0003', type: 'versioned', state: 'pending', applied_at: null, checksum: 'string', note: null },
        { filename: 'RA__always.sql', version: null, type: 'repeatable_always', state: 'applied', applied_at: 'time', checksum: 'string', note: null },
        { filename: 'ROC__views.sql', version: null, type: 'repeatable_on_change', state: 'changed', applied_at: 'time', checksum: 'string', note: null },
        { filename: 'app__0002_a_rather_long_description_for_alignment.sql', version: '0002', type: 'versioned', state: 'missing', applied_at: 'time', checksum: 'string', note: null },
      ]);
      for (const m of db.migrations) if (m.applied_at !== null) expect(m.applied_at).toMatch(ISO_UTC);

      const text = await p.run(['status']);
      expect(text.code, explain(text)).toBe(0);
      const rows = text.stdout.split('\n').filter((l) => /^ {2}(applied|pending|changed|missing) /.test(l));
      expect(rows.map((l) => l.trim().split(/ +/)[0])).toEqual(['applied', 'pending', 'applied', 'changed', 'missing']);
      // The FILE column starts at the same place on every row.
      expect(new Set(rows.map((l) => l.search(/(app__|RA__|ROC__)/))).size).toBe(1);

      const history = await p.json(['history']);
      expect(history.result.code, explain(history.result)).toBe(0);
      const records = history.data.databases.app.migrations;
      expect(records.map((r: { filename: string }) => r.filename).sort()).toEqual(
        ['app__0001_a.sql', 'app__0002_a_rather_long_description_for_alignment.sql', 'RA__always.sql', 'ROC__views.sql'].sort(),
      );
      for (const r of records) {
        expect(Object.keys(r)).toEqual(['filename', 'version', 'type', 'description', 'checksum', 'applied_at', 'execution_ms', 'applied_by']);
        expect(r.applied_at).toMatch(ISO_UTC);
        expect(typeof r.execution_ms).toBe('number');
        expect(r.checksum).toMatch(/^[0-9a-f]{64}$/);
        expect(r.applied_by).toMatch(/.@./);
      }
      // Oldest first.
      const times = records.map((r: { applied_at: string }) => r.applied_at);
      expect([...times].sort()).toEqual(times);

      // migrate goes on (0003 applies) and warns that the applied 0002's file is gone.
      const migrated = await p.run(['migrate']);
      expect(migrated.code, explain(migrated)).toBe(0);
      expect(migrated.stderr).toContain('an applied migration is no longer in migrations/app/: app__0002_a_rather_long_description_for_alignment.sql. It stays applied, but rollback and downgrade cannot go past it');
    });

    it('a changed applied versioned file fails status with the checksum mismatch, naming file, both prefixes, database and history', async () => {
      const p = await fresh.create();
      const applied = await p.write('app__0001_a.sql', migration([t.createTable('a')], ['DROP TABLE a']));
      expect((await p.run(['migrate'])).code).toBe(0);
      const now = await p.write('app__0001_a.sql', migration([t.createTable('a'), t.createTable('z')], ['DROP TABLE a']));

      const text = await p.run(['status']);
      expect(text.code, explain(text)).toBe(1);
      expect(text.stderr).toContain('app__0001_a.sql');
      expect(text.stderr).toContain(applied.slice(0, 12));
      expect(text.stderr).toContain(now.slice(0, 12));
      expect(text.stderr).toContain("database 'app'");
      expect(text.stderr).toContain('mtool history');

      for (const args of [['status'], ['status', '--all']]) {
        const { result, data } = await p.json(args);
        expect(result.code, explain(result)).toBe(1);
        expect(data.databases.app).toMatchObject({ status: 'failed', connected: true, code: 'MTOOL_CHECKSUM_MISMATCH' });
      }
      // history still answers: it is where the message points.
      expect((await p.run(['history'])).code).toBe(0);
    });

    it('an empty database and a project without a migrations folder: nothing applied, exit 0', async () => {
      const p = await fresh.create();
      const { result, data } = await p.json(['status']);
      expect(result.code, explain(result)).toBe(0);
      expect(data.databases.app).toMatchObject({ current_version: null, pending_migrations: 0, applied_migrations: 0, migrations: [] });
      await rm(join(p.dir, 'migrations'), { recursive: true, force: true });
      const text = await p.run(['status']);
      expect(text.code, explain(text)).toBe(0);
      const history = await p.run(['history']);
      expect(history.code, explain(history)).toBe(0);
      expect(history.stdout).toContain('no migration applied yet');
    });
  });
}
