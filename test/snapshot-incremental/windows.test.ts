import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { disposeDialects } from '../../src/dialects/index.js';
import { listSnapshots, readSnapshot } from '../../src/main/snapshot/index.js';
import { provision, TARGETS, targetReachable } from '../engine/support/targets.js';
import { BUILT_SNAPSHOT_WORKER, captureLogs, runBatch, type BatchRun } from './harness.js';
import { CASES } from './window-cases.js';

captureLogs();
afterAll(() => disposeDialects());

function expectEverySnapshotLive(run: BatchRun, count: number): void {
  expect(run.steps).toHaveLength(count);
  for (const step of run.steps) expect(step.snapshot, step.filename).toBe(step.live);
}

/** Snapshot files of the batch, in order. */
const snapshotIds = async (dir: string) => (await listSnapshots(dir, 'app')).map((e) => e.migrationId);

// MariaDB as itself too (its flavour of the dialect), with MySQL's cases.
for (const [id, cases] of [...Object.entries(CASES), ['mariadb', CASES.mysql!] as const]) {
  const target = TARGETS.find((t) => t.id === id)!;
  describe.skipIf(!(await targetReachable(target)))(`snapshot read windows (${id})`, () => {
    it('gives every migration the schema right after it, however migrations share read windows', async () => {
      const db = await provision(target);
      try {
        const run = await runBatch(target.type, db.url, cases);
        expect(run.error).toBeUndefined();
        expect(run.warnings).toEqual([]);
        expectEverySnapshotLive(run, cases.length);
        // Fewer reads than migrations: most share a window.
        expect(Number(run.summary?.reads)).toBeLessThan(cases.length);
        let previous: string | null = null;
        for (const entry of await listSnapshots(run.dir, 'app')) {
          const snap = await readSnapshot(entry.path);
          expect(snap?.previous_checksum, entry.path).toBe(previous);
          previous = snap!.checksum;
        }
      } finally {
        await disposeDialects();
        await db.drop();
      }
    }, 60_000);

    // SQLite groups migrations into transactions instead, and the hooks run between them.
    it.skipIf(id === 'sqlite')('writes the same snapshots when the hook lets migrations go to the server together', async () => {
      const [one, together] = [await provision(target), await provision(target)];
      try {
        const reference = await runBatch(target.type, one.url, cases);
        expectEverySnapshotLive(reference, cases.length);
        const run = await runBatch(target.type, together.url, cases, { runs: true });
        expect(run.error).toBeUndefined();
        expect(run.warnings).toEqual([]);
        expect(run.steps.map((s) => s.filename)).toEqual(reference.steps.map((s) => s.filename));
        run.steps.forEach((step, i) => expect(step.snapshot, step.filename).toBe(reference.steps[i]!.live));
        // Runs end where a migration touches what an earlier one of the window did (CASES do that
        // often), and go on where none does.
        expect(run.runs.reduce((a, b) => a + b, 0)).toBe(cases.length);
        expect(Math.max(...run.runs)).toBeGreaterThan(1);
        expect(run.runs.length).toBeGreaterThan(2);
      } finally {
        await disposeDialects();
        await Promise.all([one.drop(), together.drop()]);
      }
    }, 60_000);

    it('writes the snapshots of the migrations before a failing one, and none for it', async () => {
      const db = await provision(target);
      try {
        const migrations = [`CREATE TABLE a (id int PRIMARY KEY)`, `CREATE TABLE b (id int PRIMARY KEY)`, `ALTER TABLE a ADD COLUMN x int`, `CREATE TABLE c (id int PRIMARY KEY)`, `INSERT INTO nowhere VALUES (1)`, `CREATE TABLE d (id int)`];
        const run = await runBatch(target.type, db.url, migrations);
        expect(run.error).toMatchObject({ name: 'MigrationFailedError' });
        expect(run.warnings).toEqual([]);
        expectEverySnapshotLive(run, 4);
        expect(await snapshotIds(run.dir)).toEqual(['app__0001_m1', 'app__0002_m2', 'app__0003_m3', 'app__0004_m4']);
        if (id === 'sqlite') return;
        // Sent together: the failing migration ends the run [3, 4, 5] (3 touches a table of 1's
        // window); 3 and 4 still get theirs.
        const together = await provision(target);
        try {
          const inRuns = await runBatch(target.type, together.url, migrations, { runs: true });
          expect(inRuns.error).toMatchObject({ name: 'MigrationFailedError' });
          expect(inRuns.warnings).toEqual([]);
          expect(inRuns.runs[1]).toBeGreaterThanOrEqual(3);
          expect(await snapshotIds(inRuns.dir)).toEqual(['app__0001_m1', 'app__0002_m2', 'app__0003_m3', 'app__0004_m4']);
          inRuns.steps.forEach((step, i) => expect(step.snapshot, step.filename).toBe(run.steps[i]!.live));
        } finally {
          await together.drop();
        }
      } finally {
        await disposeDialects();
        await db.drop();
      }
    }, 60_000);
  });
}

const sqlite = TARGETS.find((t) => t.id === 'sqlite')!;
// Snapshots written on the migration thread, and by the snapshot thread large batches use.
for (const writer of ['main', 'thread'] as const) {
  const hook = writer === 'thread' ? { threadMinTables: 0, threadWorkerUrl: BUILT_SNAPSHOT_WORKER } : {};
  describe(`snapshot write failures (sqlite, ${writer} thread)`, () => {
    it('leave the migrations applied and end the batch with one warning naming the snapshots not written', async () => {
      const db = await provision(sqlite);
      try {
        const migrations = Array.from({ length: 7 }, (_, i) => `CREATE TABLE t${i} (id integer PRIMARY KEY)`);
        // A file where the snapshot folder should be.
        const blockFolder = async (dir: string) => {
          await mkdir(join(dir, '.mtool'), { recursive: true });
          await writeFile(join(dir, '.mtool', 'schemas'), 'not a folder');
        };
        const run = await runBatch(sqlite.type, db.url, migrations, { prepare: blockFolder, hook });
        expect(run.error).toBeUndefined();
        expect(run.steps).toHaveLength(7);
        expect(run.summary).toMatchObject({ count: 0, writer });
        expect(run.warnings).toHaveLength(1);
        expect(run.warnings[0]).toMatch(/^schema snapshots of database 'app' not written to \S+: app__0001_m1\.sql, .*app__0005_m5\.sql and 2 more \(.*ENOTDIR.*\)\. The migrations are applied and recorded/);
      } finally {
        await disposeDialects();
        await db.drop();
      }
    }, 60_000);
  });

  describe(`snapshot read windows (sqlite, grouped commits, ${writer} thread)`, () => {
    it('writes no snapshot for migrations whose group fails to commit, and the right ones once they are applied again one by one', async () => {
      const db = await provision(sqlite);
      try {
        // The deferred foreign key fails only at COMMIT: the engine rolls the group back and applies
        // each migration again alone; the third fails then, the first two stay.
        const migrations = [
          `CREATE TABLE parent (id integer PRIMARY KEY)`,
          `CREATE TABLE child (id integer PRIMARY KEY, parent_id integer REFERENCES parent (id) DEFERRABLE INITIALLY DEFERRED)`,
          `INSERT INTO child (id, parent_id) VALUES (1, 99)`,
          `CREATE TABLE later (id integer PRIMARY KEY)`,
        ];
        const run = await runBatch(sqlite.type, db.url, migrations, { hook });
        expect(run.error).toBeDefined();
        expect(run.steps.map((s) => s.filename)).toEqual(['app__0001_m1.sql', 'app__0002_m2.sql', 'app__0003_m3.sql', 'app__0004_m4.sql']);
        expect(await snapshotIds(run.dir)).toEqual(['app__0001_m1', 'app__0002_m2']);
        for (const step of run.steps.slice(0, 2)) expect(step.snapshot, step.filename).toBe(step.live);
        // Nothing uncommitted reached the folder, not even as a temp file.
        expect((await readdir(join(run.dir, '.mtool', 'schemas'))).sort()).toEqual(['app__0001_m1.schema.json', 'app__0002_m2.schema.json']);
      } finally {
        await disposeDialects();
        await db.drop();
      }
    }, 60_000);
  });
}
