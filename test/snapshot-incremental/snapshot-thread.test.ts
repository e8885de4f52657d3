/**
 * The snapshot thread (src/main/snapshot/snapshot-thread.ts), which large batches write their
 * snapshots with: what happens when it dies or cannot start, and that the CLI uses it. Its files
 * and failures are tested with the migration thread's: long-batch.test.ts, windows.test.ts.
 */
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { disposeDialects } from '../../src/dialects/index.js';
import { THREAD_MIN_TABLES } from '../../src/main/engine/snapshot-hook.js';
import { readSnapshot } from '../../src/main/snapshot/index.js';
import { ThreadedSnapshotQueue } from '../../src/main/snapshot/snapshot-thread.js';
import { runMtool } from '../support/cli.js';
import { tempProject } from '../support/temp-project.js';
import { provision, TARGETS } from '../engine/support/targets.js';
import { BUILT_SNAPSHOT_WORKER, captureLogs, runBatch } from './harness.js';

captureLogs();
afterAll(() => disposeDialects());

const sqlite = TARGETS.find((t) => t.id === 'sqlite')!;
const snapshotFiles = async (dir: string) => (await readdir(join(dir, '.mtool', 'schemas'))).sort();

describe('the snapshot thread (sqlite)', () => {
  it('when the thread dies, leave the migrations applied and name every snapshot it did not write', async () => {
    const db = await provision(sqlite);
    const scratch = await mkdtemp(join(tmpdir(), 'mtool-dying-worker-'));
    try {
      const dying = join(scratch, 'dying-worker.mjs');
      await writeFile(dying, `throw new Error('snapshot thread broke down');\n`);
      const migrations = Array.from({ length: 3 }, (_, i) => `CREATE TABLE t${i} (id integer PRIMARY KEY)`);
      const run = await runBatch(sqlite.type, db.url, migrations, { hook: { threadMinTables: 0, threadWorkerUrl: pathToFileURL(dying) } });
      expect(run.error).toBeUndefined();
      expect(run.steps).toHaveLength(3);
      expect(run.summary).toMatchObject({ count: 0, writer: 'thread' });
      expect(run.warnings).toHaveLength(1);
      expect(run.warnings[0]).toMatch(/not written to \S+: app__0001_m1\.sql, app__0002_m2\.sql, app__0003_m3\.sql \(snapshot thread broke down\)\. The migrations are applied and recorded/);
    } finally {
      await rm(scratch, { recursive: true, force: true });
      await disposeDialects();
      await db.drop();
    }
  }, 60_000);

  it('is not started when its entry file is missing (running from the sources): the caller writes on its own thread', () => {
    const missing = new URL('./no-such-worker.js', BUILT_SNAPSHOT_WORKER);
    expect(ThreadedSnapshotQueue.start({ root: tmpdir(), databaseName: 'app', databaseType: 'sqlite' }, { warn: () => undefined }, missing)).toBeUndefined();
  });
});

describe('mtool migrate (the CLI bundle)', () => {
  // A batch creating n tables writes n × n/2 tables' text over its snapshots.
  const large = Math.ceil(Math.sqrt(2 * THREAD_MIN_TABLES));
  const project = (count: number) => {
    const files: Record<string, string> = {
      'mtool.config.ts': `import { databaseConfig } from 'mtool';\ndatabaseConfig({ databaseName: 'app', default: true, databaseType: 'sqlite', databaseUrl: 'sqlite:///app.db' });\n`,
    };
    for (let i = 1; i <= count; i++) files[`migrations/app/app__${String(i).padStart(4, '0')}_t${i}.sql`] = `-- upgrade\nCREATE TABLE t${i} (id integer PRIMARY KEY, name text);\n`;
    return tempProject(files, 'mtool-snapshot-thread-cli-');
  };

  it(`writes the snapshots of a batch creating ${large} tables on the snapshot thread, and of a small batch on its own thread`, async () => {
    const dir = await project(large);
    try {
      const run = await runMtool(['migrate'], { cwd: dir });
      expect(run.stderr).toMatch(new RegExp(`${large} snapshots written .*writer=thread`));
      expect(run.code).toBe(0);
      const names = await snapshotFiles(dir);
      expect(names).toHaveLength(large);
      const last = await readSnapshot(join(dir, '.mtool', 'schemas', names[names.length - 1]!));
      expect(Object.keys(last!.tables)).toHaveLength(large);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    const small = await project(10);
    try {
      const run = await runMtool(['migrate'], { cwd: small });
      expect(run.stderr).toMatch(/10 snapshots written .*writer=main/);
      expect(run.code).toBe(0);
    } finally {
      await rm(small, { recursive: true, force: true });
    }
  }, 60_000);
});
