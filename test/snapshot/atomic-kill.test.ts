import { spawn } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listSnapshots, readSnapshot, snapshotDir } from '../../src/main/snapshot/index.js';

// A child process writes many large snapshots in a loop and is killed with SIGKILL at random
// moments; every `.schema.json` left behind must be whole (parse + checksum), never truncated.
let work: string;
let script: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'mtool-kill-'));
  const entry = join(work, 'writer.ts');
  const store = fileURLToPath(new URL('../../src/main/snapshot/snapshot-store.ts', import.meta.url));
  await writeFile(
    entry,
    `import fsp from 'node:fs/promises';
import { syncBuiltinESMExports } from 'node:module';
import { writeSnapshot } from ${JSON.stringify(store)};
// Write temp files in 64 KiB chunks and report each one, so the parent can kill mid-write.
const realOpen = fsp.open;
fsp.open = async (...args) => {
  const handle = await realOpen(...args);
  if (String(args[0]).endsWith('.tmp')) {
    const write = handle.write.bind(handle);
    handle.write = async (buffer, offset, length, position) => {
      for (let i = 0; i < length; i += 65536) {
        await write(buffer, offset + i, Math.min(65536, length - i), position + i);
        process.stdout.write('c');
        await new Promise((r) => setTimeout(r, 1));
      }
      return { bytesWritten: length, buffer };
    };
  }
  return handle;
};
syncBuiltinESMExports();
const root = process.argv[2];
const tables = {};
for (let t = 0; t < 600; t++) {
  const columns = {};
  for (let c = 0; c < 8; c++) columns['c' + c] = { name: 'c' + c, position: c, type: 'varchar', length: 255, nullable: true, primary_key: false, default: null, comment: 'column comment '.repeat(4) };
  tables['table_' + t] = { name: 'table_' + t, object_type: 'table', columns, primary_key: [], comment: null, backend_table_spec: { backend: 'postgresql' } };
}
let i = 0;
for (;;) {
  const v = String((i % 6) + 1).padStart(4, '0');
  tables.table_0.comment = 'round ' + i;
  await writeSnapshot(root, { migrationId: 'app__' + v + '_step', databaseName: 'app', databaseType: 'postgresql', schema: { tables, enums: {}, indexes: {}, constraints: {} } }, { log: { warn() {} } });
  process.stdout.write('w');
  i++;
}
`,
  );
  script = join(work, 'writer.mjs');
  await build({ entryPoints: [entry], bundle: true, platform: 'node', format: 'esm', outfile: script, packages: 'external', logLevel: 'silent' });
});

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

/** Run the writer; after `afterWrites` whole writes, SIGKILL it on the `atChunk`-th chunk of the next one. */
function runAndKill(root: string, afterWrites: number, atChunk: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, root], { stdio: ['ignore', 'pipe', 'pipe'] });
    let writes = 0;
    let chunks = 0;
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += String(d)));
    child.stdout.on('data', (d) => {
      for (const ch of String(d)) {
        if (ch === 'w') {
          writes++;
          chunks = 0;
        } else if (ch === 'c' && writes >= afterWrites && ++chunks === atChunk) child.kill('SIGKILL');
      }
    });
    child.on('exit', (code, signal) => (signal === 'SIGKILL' ? resolve() : reject(new Error(`writer exited ${code}: ${stderr}`))));
  });
}

describe('snapshot writes are atomic', () => {
  it('a writer killed with SIGKILL mid-write never leaves a truncated .schema.json', async () => {
    const root = join(work, 'project');
    const rounds = 8;
    for (let round = 0; round < rounds; round++) {
      await runAndKill(root, 1 + (round % 3), 1 + Math.floor(Math.random() * 15));
      const entries = await listSnapshots(root, 'app');
      expect(entries.length).toBeGreaterThan(0);
      for (const entry of entries) {
        const snap = await readSnapshot(entry.path, { log: { warn: (m) => expect.fail(m) } });
        expect(snap?.tables.table_599?.columns.c7?.length).toBe(255);
      }
    }
    const files = await readdir(snapshotDir(root));
    // Every kill landed inside a write: each left its partial temp file, never a partial snapshot.
    expect(files.filter((f) => f.startsWith('.') && f.endsWith('.tmp')).length).toBe(rounds);
    expect(files.filter((f) => f.endsWith('.schema.json') && !f.startsWith('.')).length).toBeLessThanOrEqual(6);
  });
});
