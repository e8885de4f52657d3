#!/usr/bin/env node
// Where the snapshot thread pays (src/main/engine/snapshot-hook.ts, THREAD_MIN_TABLES): one
// `migrate` batch of N migrations (`CREATE TABLE t_i (id integer primary key, name text)`) over a
// database that already holds B tables, with its snapshots written on the migration thread and by
// the snapshot thread, in turns. On PostgreSQL and MariaDB the thread writes while the next
// migrations run; on SQLite, whose migrations commit together, the writes wait for the commit
// either way.
//
//   npm run build && node bench/snapshot-thread.mjs [--engine postgresql|mariadb|sqlite] [--reps 5] [--grid 20:0,100:0,300:0,20:500]
//
// Runs in-process through the built engine (dist/), like the CLI's migrate minus start-up; each
// run gets a fresh database (bench/peers/engines.mjs) and an empty `.mtool`, the B tables made
// by an untimed `migrate --defer-snapshots` first. Prints per grid point the tables written
// in all (N x (B + N/2)), both times (median) and thread / main.
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { benchOptions } from './lib/args.mjs';
import { importBuilt } from './lib/built.mjs';
import { emptyTrash, trash, waitOutTrash } from './lib/trash.mjs';
import { mariadb, postgresql, sqlite } from './peers/engines.mjs';
import { mtoolUrl } from './peers/tools/mtool.mjs';

const opts = benchOptions('snapshot-thread', 'usage: node bench/snapshot-thread.mjs [--engine postgresql|mariadb|sqlite] [--reps 5] [--grid N:B,...] (N migrations over B tables)', {
  reps: { type: 'string', default: '5' },
  engine: { type: 'string', default: 'postgresql' },
  grid: { type: 'string', default: '20:0,50:0,100:0,200:0,20:500,50:500,100:500' },
});
const reps = Number(opts.reps);
const grid = opts.grid.split(',').map((point) => {
  const [n, base] = point.split(':').map(Number);
  if (!Number.isInteger(n) || n < 1 || !Number.isInteger(base) || base < 0) throw new Error(`--grid: '${point}' is not N:B (migrations:tables before)`);
  return { n, base };
});

const { loadConfig, selectDatabases, migrate, snapshotHooks, configureLogging, logger } = await importBuilt(
  'dist/main/config/load-config.js',
  'dist/main/engine/engine.js',
  'dist/main/engine/snapshot-hook.js',
  'dist/main/log.js',
);
configureLogging({ level: 'error' });

const work = join(resolve(fileURLToPath(new URL('..', import.meta.url))), 'bench', '.work', 'snapshot-thread');
const engines = { postgresql, mariadb, sqlite: sqlite(work) };
const engine = engines[opts.engine];
if (!engine) throw new Error(`--engine must be one of ${Object.keys(engines).join(', ')}`);

async function once({ n, base }, thread) {
  const dir = join(work, `${n}-${base}-${thread ? 'thread' : 'main'}`);
  trash(dir);
  mkdirSync(join(dir, 'migrations', 'bench'), { recursive: true });
  for (let i = 1; i <= base + n; i++) {
    writeFileSync(join(dir, 'migrations', 'bench', `bench__${String(i).padStart(4, '0')}_t_${i}.sql`), `-- upgrade\nCREATE TABLE t_${i} (id integer primary key, name text);\n`);
  }
  const db = await engine.create(`mtool_bench_${randomBytes(5).toString('hex')}`);
  try {
    writeFileSync(join(dir, 'mtool.config.ts'), `import { databaseConfig } from 'mtool';\ndatabaseConfig({ databaseName: 'bench', default: true, databaseType: '${opts.engine}', databaseUrl: '${mtoolUrl(db)}' });\n`);
    const config = await loadConfig({ cwd: dir, env: {} });
    const [entry] = selectDatabases(config, {});
    const ctx = { root: dir, log: logger };
    // The tables already there (untimed): one deferred snapshot, which the batch's first one chains to.
    if (base > 0) await migrate(entry, ctx, { toVersion: String(base).padStart(4, '0'), deferSnapshots: true, hooks: snapshotHooks({ root: dir, databases: config.databases, log: logger }) });
    const hooks = snapshotHooks({ root: dir, databases: config.databases, log: logger, threadMinTables: thread ? 0 : Number.POSITIVE_INFINITY });
    const started = performance.now();
    const result = await migrate(entry, ctx, { hooks });
    const ms = performance.now() - started;
    // Both writers must have done the whole job: every migration applied, every snapshot written.
    const snapshots = readdirSync(join(dir, '.mtool', 'schemas')).filter((f) => f.endsWith('.schema.json')).length - (base > 0 ? 1 : 0);
    if (result.outcomes.length !== n || snapshots !== n) throw new Error(`${thread ? 'thread' : 'main'} N=${n} B=${base}: ${result.outcomes.length} migrations applied and ${snapshots} snapshots written, expected ${n} of each`);
    return ms;
  } finally {
    await engine.drop(db);
    trash(dir);
  }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
await waitOutTrash();
console.log('migrations  tables before  tables written  main ms  thread ms  thread/main');
for (const point of grid) {
  const main = [];
  const thread = [];
  for (let r = 0; r < reps; r++) {
    main.push(await once(point, false));
    thread.push(await once(point, true));
  }
  const written = point.n * (point.base + point.n / 2);
  const [m, t] = [median(main), median(thread)];
  console.log(`${String(point.n).padStart(10)}  ${String(point.base).padStart(13)}  ${String(written).padStart(14)}  ${m.toFixed(1).padStart(7)}  ${t.toFixed(1).padStart(9)}  ${(t / m).toFixed(2).padStart(11)}x`);
}
emptyTrash();
console.log(`(${cpus().length} cpus, load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}, median of ${reps})`);
