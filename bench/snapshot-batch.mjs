#!/usr/bin/env node
// What a schema snapshot per applied migration costs: `mtool migrate` of N small migrations
// (`CREATE TABLE t_i (id integer primary key, name text)`) as it runs by default (one snapshot
// after each migration) against `mtool migrate --defer-snapshots` (one snapshot at the end), on
// PostgreSQL, MariaDB and SQLite. Prints both wall times and their ratio per engine.
//
//   npm run build && node bench/snapshot-batch.mjs [--n 300] [--engines postgresql,mariadb,sqlite] [--reps 1] [--json]
//
// Each apply gets a fresh database (bench/peers/engines.mjs) and an empty `.mtool` folder;
// afterwards the bench checks that N t_* tables exist and that the snapshots written are N
// (default) or 1 (deferred), so neither run can pass by doing less. Times are the whole
// `node dist/cli/bin.js migrate` process, start-up included. The median of --reps runs; the two
// modes take turns within each repetition, and after each run its files are deleted and the file
// system flushed before the next one starts. With --log the last default run's batch line (count,
// bytes, write and wait times) is printed too.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { benchOptions } from './lib/args.mjs';
import { emptyTrash, trash, waitOutTrash } from './lib/trash.mjs';
import { mariadb, postgresql, sqlite } from './peers/engines.mjs';
import { mtoolUrl } from './peers/tools/mtool.mjs';

const repoRoot = resolve(fileURLToPath(new URL('..', import.meta.url)));
const bin = join(repoRoot, 'dist', 'cli', 'bin.js');
const workDir = join(repoRoot, 'bench', '.work', 'snapshot-batch');

const opts = benchOptions('snapshot-batch', 'usage: node bench/snapshot-batch.mjs [--n 300] [--engines postgresql,mariadb,sqlite] [--reps 1] [--json] [--log]', {
  n: { type: 'string', default: '300' },
  engines: { type: 'string', default: 'postgresql,mariadb,sqlite' },
  reps: { type: 'string', default: '1' },
  json: { type: 'boolean', default: false },
  log: { type: 'boolean', default: false },
});
const n = Number(opts.n);
const reps = Number(opts.reps);
if (!Number.isInteger(n) || n < 1) throw new Error(`--n must be a positive integer, got ${opts.n}`);
if (!Number.isInteger(reps) || reps < 1) throw new Error(`--reps must be a positive integer, got ${opts.reps}`);
if (!existsSync(bin)) throw new Error(`${bin} is missing: build first (npm run build)`);

const engines = { postgresql, mariadb, sqlite: sqlite(workDir) };
const GNU_TIME = existsSync('/usr/bin/time') && spawnSync('/usr/bin/time', ['-f', '%U', 'true'], { encoding: 'utf8' }).status === 0 ? '/usr/bin/time' : undefined;

function writeProject(dir, engine, url) {
  trash(dir);
  const migrations = join(dir, 'migrations', 'bench');
  mkdirSync(migrations, { recursive: true });
  for (let i = 1; i <= n; i++) {
    const version = String(i).padStart(4, '0');
    writeFileSync(join(migrations, `bench__${version}_t_${i}.sql`), `-- upgrade\nCREATE TABLE t_${i} (id integer primary key, name text);\n\n-- rollback\nDROP TABLE t_${i};\n`);
  }
  writeFileSync(
    join(dir, 'mtool.config.ts'),
    `import { databaseConfig } from 'mtool';\n\ndatabaseConfig({ databaseName: 'bench', default: true, databaseType: '${engine}', databaseUrl: '${url}' });\n`,
  );
}

async function applyOnce(engineName, deferred) {
  const dir = join(workDir, engineName, deferred ? 'defer' : 'each');
  mkdirSync(dir, { recursive: true });
  const engine = engines[engineName];
  const db = await engine.create(`mtool_bench_${randomBytes(5).toString('hex')}`);
  try {
    writeProject(dir, engineName, mtoolUrl(db));
    const args = [bin, 'migrate', ...(deferred ? ['--defer-snapshots'] : [])];
    // GNU time, where there is one, adds the process's CPU seconds (user + system): less at the
    // mercy of other load on the machine than the wall time.
    const [cmd, cmdArgs] = GNU_TIME ? [GNU_TIME, ['-f', 'cpu %U %S', process.execPath, ...args]] : [process.execPath, args];
    const started = performance.now();
    const run = spawnSync(cmd, cmdArgs, { cwd: dir, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    const ms = performance.now() - started;
    const cpuLine = /^cpu ([\d.]+) ([\d.]+)$/m.exec(run.stderr);
    const cpuMs = cpuLine ? (Number(cpuLine[1]) + Number(cpuLine[2])) * 1000 : undefined;
    if (run.status !== 0) throw new Error(`mtool migrate${deferred ? ' --defer-snapshots' : ''} on ${engineName} exited ${run.status}:\n${run.stderr.slice(-2000)}`);
    const { tables } = await engine.count(db);
    const snapshots = readdirSync(join(dir, '.mtool', 'schemas')).filter((f) => f.endsWith('.schema.json')).length;
    const wanted = deferred ? 1 : n;
    if (tables !== n || snapshots !== wanted) throw new Error(`${engineName}${deferred ? ' deferred' : ''}: ${tables} t_* tables (want ${n}), ${snapshots} snapshots (want ${wanted})`);
    const batchLine = run.stderr.split('\n').find((l) => / snapshots? written \(/.test(l));
    return { ms, cpuMs, batchLine };
  } finally {
    await engine.drop(db);
    settleDisk(dir);
  }
}

/**
 * Untimed, after each run: set its snapshots aside (bench/lib/trash.mjs: deleting them now would
 * slow the next run's file creation) and flush the file system, so the next run does not share
 * the disk with the writeback of this one's files, which a user's next command would not meet
 * either.
 */
function settleDisk(dir) {
  trash(join(dir, '.mtool'));
  spawnSync('sync');
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const results = [];
await waitOutTrash();
for (const engineName of opts.engines.split(',')) {
  if (!engines[engineName]) throw new Error(`unknown engine ${engineName} (${Object.keys(engines).join(', ')})`);
  const each = [];
  const defer = [];
  const eachCpu = [];
  const deferCpu = [];
  let batchLine;
  // Turns within each repetition, so a load spike on the machine spreads over both modes.
  for (let r = 0; r < reps; r++) {
    const run = await applyOnce(engineName, false);
    each.push(run.ms);
    eachCpu.push(run.cpuMs);
    batchLine = run.batchLine;
    const deferred = await applyOnce(engineName, true);
    defer.push(deferred.ms);
    deferCpu.push(deferred.cpuMs);
  }
  const row = { engine: engineName, n, eachMs: median(each), deferMs: median(defer), each, defer };
  row.ratio = row.eachMs / row.deferMs;
  if (GNU_TIME) Object.assign(row, { eachCpuMs: median(eachCpu), deferCpuMs: median(deferCpu), eachCpu, deferCpu });
  results.push(row);
  if (!opts.json) {
    const cpu = GNU_TIME ? `  (mtool CPU ${(row.eachCpuMs / 1000).toFixed(2)} s vs ${(row.deferCpuMs / 1000).toFixed(2)} s)` : '';
    console.log(`${engineName.padEnd(10)} n=${n}  migrate ${(row.eachMs / 1000).toFixed(2)} s  --defer-snapshots ${(row.deferMs / 1000).toFixed(2)} s  ratio ${row.ratio.toFixed(2)}x${cpu}`);
    if (opts.log && batchLine) console.log(`  ${batchLine.trim()}`);
  }
}
emptyTrash();
if (opts.json) console.log(JSON.stringify({ results, cpus: cpus().length, loadavg: loadavg() }, null, 2));
else console.log(`(${cpus().length} cpus, load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}, median of ${reps})`);
