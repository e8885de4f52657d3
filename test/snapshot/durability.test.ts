import { readlinkSync } from 'node:fs';
import { mkdir, mkdtemp, open, readdir, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { writeFileAtomic } from '../../src/main/fs/atomic-write.js';
import type { WindowEntry } from '../../src/main/snapshot/schema-window.js';
import { findLatestSnapshot, listSnapshots, readSnapshot, snapshotDir, SnapshotWriter } from '../../src/main/snapshot/index.js';
import { SnapshotQueue } from '../../src/main/snapshot/snapshot-queue.js';
import { parseMigrationFile } from '../../src/parser/migration-file.js';
import { emptySchema, type SchemaIR, type TableIR } from '../../src/schema/ir.js';

/**
 * The durability policy of a batch of snapshots (src/main/snapshot/snapshot-queue.ts): every file
 * atomic (temp, verify, rename) without its own fsync; the last file and the folder fsynced once
 * at the end. A power loss may leave an intermediate file truncated: readers must reject it and
 * fall back, and the next batch must chain past it.
 */

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'mtool-durability-'));
});
afterEach(async () => {
  vi.restoreAllMocks();
  await rm(root, { recursive: true, force: true });
});

/** Record what gets fsynced (by path, through /proc on Linux). */
async function spyOnSync(): Promise<string[]> {
  const probe = await open(join(root, 'probe'), 'w');
  const proto = Object.getPrototypeOf(probe) as { sync(): Promise<void> };
  await probe.close();
  const synced: string[] = [];
  const real = proto.sync;
  vi.spyOn(proto, 'sync').mockImplementation(function (this: { fd: number }) {
    synced.push(readlinkSync(`/proc/self/fd/${this.fd}`));
    return real.call(this);
  });
  return synced;
}

const table = (name: string): TableIR => ({
  name,
  object_type: 'table',
  columns: { id: { name: 'id', position: 0, type: 'integer', nullable: false, primary_key: true, default: null, comment: null } },
  primary_key: ['id'],
  comment: null,
  backend_table_spec: { backend: 'sqlite' },
});

const quiet = { log: { warn: () => undefined } };

/** Queue `count` snapshots, migration i adding table t_i, versions from `first`. */
async function batch(count: number, first = 1): Promise<Awaited<ReturnType<SnapshotQueue['finish']>>> {
  const queue = new SnapshotQueue(new SnapshotWriter(root, 'app', 'sqlite', quiet));
  for (let i = first; i < first + count; i++) {
    const version = String(i).padStart(4, '0');
    const file = parseMigrationFile({ filename: `app__${version}_t${i}.sql`, path: `app__${version}_t${i}.sql`, content: `-- upgrade\nCREATE TABLE t_${i} (id integer);\n`, database: 'app', dialect: 'sqlite' });
    const part: SchemaIR = { ...emptySchema(), tables: { [`t_${i}`]: table(`t_${i}`) } };
    const entry: WindowEntry = { file, kind: 'partial', step: { kind: 'partial', part, replaced: [`t_${i}`], enums: false }, ...(i === first ? { start: emptySchema() } : {}) };
    queue.push({ entry, migrationId: `app__${version}_t${i}`, appliedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, i)) });
  }
  return queue.finish();
}

describe('snapshot batch durability', () => {
  it.skipIf(process.platform !== 'linux')('fsyncs only the last file and the folder, once, for a whole batch; single writes still sync each file', async () => {
    const synced = await spyOnSync();
    const summary = await batch(5);
    expect(summary).toMatchObject({ written: 5, failures: [] });
    expect(synced).toEqual([join(snapshotDir(root), 'app__0005_t5.schema.json'), snapshotDir(root)]);
    // Every file whole, no temp file left behind.
    expect((await readdir(snapshotDir(root))).filter((f) => f.startsWith('.'))).toEqual([]);
    for (const entry of await listSnapshots(root, 'app')) expect(await readSnapshot(entry.path), entry.path).toBeDefined();

    synced.length = 0;
    await new SnapshotWriter(root, 'app', 'sqlite', quiet).write({ migrationId: 'app__0006_alone', schema: emptySchema() });
    expect(synced).toEqual([expect.stringMatching(/\.app__0006_alone\.schema\.json\.\d+\.[0-9a-f]+\.[0-9a-z]+\.tmp$/), snapshotDir(root)]);
    synced.length = 0;
    await writeFileAtomic(join(root, 'other.txt'), 'text');
    await writeFileAtomic(join(root, 'lazy.txt'), 'text', { sync: false });
    expect(synced).toEqual([expect.stringMatching(/\.other\.txt\..*\.tmp$/), root]);
  });

  it('after a power loss truncated intermediate snapshots, readers reject them, fall back, and the next batch chains past them', async () => {
    await batch(4);
    const path = (v: number) => join(snapshotDir(root), `app__000${v}_t${v}.schema.json`);
    // What delayed allocation may leave: an empty file, and one cut short.
    await truncate(path(3), 0);
    await truncate(path(4), 200);
    const warnings: string[] = [];
    const log = { log: { warn: (m: string) => void warnings.push(m) } };
    expect(await readSnapshot(path(4), log)).toBeUndefined();
    expect(await readSnapshot(path(3), log)).toBeUndefined();
    expect(warnings).toEqual([expect.stringContaining('app__0004_t4.schema.json is unusable'), expect.stringContaining('app__0003_t3.schema.json is unusable')]);
    const latest = await findLatestSnapshot(root, 'app', quiet);
    expect(latest?.migration_id).toBe('app__0002_t2');
    expect(Object.keys(latest!.tables).sort()).toEqual(['t_1', 't_2']);

    await batch(2, 5);
    const five = await readSnapshot(path(5));
    expect(five?.previous_checksum).toBe(latest!.checksum);
    expect((await readSnapshot(path(6)))?.previous_checksum).toBe(five!.checksum);
  });

  it('reports a file it cannot write and goes on with the others, chaining the next one to the last file written', async () => {
    const dir = snapshotDir(root);
    await batch(1);
    // A folder where the second snapshot should go: its rename fails.
    const blocked = join(dir, 'app__0002_t2.schema.json');
    await rm(blocked, { force: true });
    await mkdir(join(blocked, 'inside'), { recursive: true });
    await writeFile(join(blocked, 'inside', 'x'), 'x');
    const queue = new SnapshotQueue(new SnapshotWriter(root, 'app', 'sqlite', quiet));
    const one = await readSnapshot(join(dir, 'app__0001_t1.schema.json'));
    const start: SchemaIR = { tables: one!.tables, enums: one!.enums, indexes: one!.indexes, constraints: one!.constraints };
    for (const i of [2, 3]) {
      const version = String(i).padStart(4, '0');
      const file = parseMigrationFile({ filename: `app__${version}_t${i}.sql`, path: `app__${version}_t${i}.sql`, content: '-- upgrade\nSELECT 1;\n', database: 'app', dialect: 'sqlite' });
      const entry: WindowEntry = { file, kind: 'none', step: { kind: 'none' }, ...(i === 2 ? { start } : {}) };
      queue.push({ entry, migrationId: `app__${version}_t${i}`, appliedAt: new Date(0) });
    }
    const summary = await queue.finish();
    expect(summary.written).toBe(1);
    expect(summary.failures.map((f) => f.filename)).toEqual(['app__0002_t2.sql']);
    const three = await readSnapshot(join(dir, 'app__0003_t3.schema.json'));
    expect(three?.previous_checksum).toBe((await readSnapshot(join(dir, 'app__0001_t1.schema.json')))?.checksum);
  });
});
