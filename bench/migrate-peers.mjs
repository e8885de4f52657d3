#!/usr/bin/env node
// Migration benchmark against peers (issue 3): applying N small migrations, a no-op `migrate` and a
// `status` over N applied ones, for mtool, dbmate, node-pg-migrate and knex, against the database's
// own CLI sending the same statements in one go, on PostgreSQL, MariaDB and SQLite, in one run.
//
//   node bench/migrate-peers.mjs [options]    (--help lists them: USAGE below)
//
// An apply slower than 30 s is not repeated; any command running longer than --timeout seconds is
// killed and its tool gets an error row, so one pathological tool cannot hold the bench for long.
//
// --runs N: the whole bench N times over, each run's tables and targets as usual, then how many
// runs met each target (this VM's speed moves by up to 2x within minutes, so one run can land a
// target that is met by 5-15 % on either side).
//
// --cpu: also the CPU time (user + system) of each apply's process tree, the `cpu s` column: the
// client's own work, which moves less with this VM's disk than the wall time does. Each apply
// then runs under bash (its `times`), which adds a few ms of bash start-up to its wall time; the
// no-op and status runs, whose CPU time is not shown, run as without --cpu.
//
// --keep-env: measure the commands in this shell's environment as it is. By default every
// measured command runs without NODE_EXTRA_CA_CERTS (bench/lib/env.mjs): this project's machines
// set it to the system's certificate bundle, which every Node process then parses before any of
// its code runs (~45 ms), a cost of the machine that pulls each Node tool's ratio to a Go binary
// or to another Node tool toward 1. The footer gives `node -e 0` both ways.
//
// --profile: after the measured runs, one more mtool apply on a fresh database and one no-op run,
// under `node --cpu-prof`, and the top costs of each (profiles kept in bench/.work/profiles).
//
// Every tool gets its own fresh database per apply run, its own project folder under
// bench/.work/<engine>/<tool>, and records its own tracking table. Before each timed apply the
// engine settles, untimed (bench/peers/engines.mjs `settle`: PostgreSQL CHECKPOINT, InnoDB's
// dirty pages flushed, the page cache synced), so no run shares the disk with the writeback of
// the run before it (a default mtool run leaves ~250 MB of snapshot files to write back). To
// flush InnoDB the bench sets `innodb_max_dirty_pages_pct` (and its low-water mark) to 0 for a
// moment and puts the server's values back; a bench killed in that moment leaves them at 0. After each apply the bench counts
// the t_* tables and the tracking rows, so a tool cannot pass by doing less. On PostgreSQL and
// MariaDB the `syncs/mig` column counts the server's flushes to disk during the apply, per
// migration (pg_stat_wal.wal_sync; Innodb_data_fsyncs): the durable work each tool asked for,
// which, unlike the times, does not move with this VM's disk. Exit code 1 when a
// target is missed or a tool failed.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, hostname, loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchOptions } from './lib/args.mjs';
import { envNote, measuredEnv } from './lib/env.mjs';
import { emptyTrash, trash, waitOutTrash } from './lib/trash.mjs';
import { postgresql, mariadb, sqlite } from './peers/engines.mjs';
import { median, runChecked } from './peers/run-timed.mjs';
import { summarize, printEngine } from './peers/report.mjs';
import { formatProfile } from './peers/cpu-profile-summary.mjs';
import floor from './peers/tools/floor.mjs';
import floorTracked from './peers/tools/floor-tracked.mjs';
import dbmate from './peers/tools/dbmate.mjs';
import nodePgMigrate from './peers/tools/node-pg-migrate.mjs';
import knex from './peers/tools/knex.mjs';
import mtool, { mtoolDefer } from './peers/tools/mtool.mjs';

const benchDir = fileURLToPath(new URL('.', import.meta.url));
const workDir = join(benchDir, '.work');

const USAGE = `usage: node bench/migrate-peers.mjs [--engines postgresql,mariadb,sqlite]
    [--tools floor,floor-tracked,dbmate,node-pg-migrate,knex,mtool,mtool-defer]
    [--count 1000] [--reps 9] [--apply-reps 3] [--runs 1] [--timeout 120] [--keep] [--profile] [--cpu] [--keep-env]
(what each option does: the comment at the top of bench/migrate-peers.mjs and bench/README.md)`;

const opts = benchOptions('migrate-peers', USAGE, {
    engines: { type: 'string', default: 'postgresql,mariadb,sqlite' },
    tools: { type: 'string', default: 'floor,floor-tracked,dbmate,node-pg-migrate,knex,mtool,mtool-defer' },
    timeout: { type: 'string', default: '120' },
    count: { type: 'string', default: '1000' },
    reps: { type: 'string', default: '9' },
    'apply-reps': { type: 'string', default: '3' },
    runs: { type: 'string', default: '1' },
    keep: { type: 'boolean', default: false },
    profile: { type: 'boolean', default: false },
    cpu: { type: 'boolean', default: false },
    'keep-env': { type: 'boolean', default: false },
});
/** Every measured command's environment (bench/lib/env.mjs: without NODE_EXTRA_CA_CERTS unless --keep-env). */
const env = measuredEnv(opts['keep-env']);
const count = Number(opts.count);
const reps = Number(opts.reps);
const applyReps = Number(opts['apply-reps']);
const runs = Number(opts.runs);
if (!Number.isInteger(runs) || runs < 1) fail(`--runs must be a positive integer, got ${opts.runs}`);
const allEngines = { postgresql, mariadb, sqlite: sqlite(workDir) };
const allTools = { floor, 'floor-tracked': floorTracked, dbmate, 'node-pg-migrate': nodePgMigrate, knex, mtool, 'mtool-defer': mtoolDefer };
const timeoutMs = Number(opts.timeout) * 1000;
/** An apply slower than this is not repeated: noise no longer matters and the bench stays short. */
const REPEAT_BELOW_MS = 30_000;
const engines = opts.engines.split(',').map((e) => allEngines[e] ?? fail(`unknown engine ${e}`));
const tools = opts.tools.split(',').map((t) => allTools[t] ?? fail(`unknown tool ${t}`));

function fail(message) {
  process.stderr.write(`migrate-peers: ${message}\n`);
  process.exit(2);
}

const log = (line) => process.stderr.write(`${line}\n`);
const print = (line) => process.stdout.write(`${line}\n`);
const runId = Math.random().toString(36).slice(2, 8);

/**
 * Measures every tool on one engine. Tools take turns (apply rep 1 of each tool, then rep 2 ...,
 * the order turned by one tool each repetition; no-op run 1 of each tool, then run 2 ...) so a
 * noisy neighbour on the machine spreads over all tools instead of landing on one. A failing
 * tool gets an error row; the others go on.
 */
async function measureEngine(engine, engineTools, run = 1) {
  const states = engineTools.map((tool) => ({
    tool,
    row: { applyMs: [], applyCpuMs: [], syncs: [], noopMs: [], statusMs: [], describe: tool.describe?.[engine.id] },
    dir: join(workDir, engine.id, tool.name),
    dbName: `mb_${tool.name.replace(/\W/g, '_')}_${runId}${run > 1 ? `_${run}` : ''}`,
    db: undefined,
    commands: undefined,
  }));
  const live = () => states.filter((s) => !s.row.error);
  const attempt = async (state, what, fn) => {
    try {
      await fn();
    } catch (error) {
      state.row.error = error.message;
      log(`  ${state.tool.name}: ${what} ERROR ${error.message}`);
    }
  };
  const verify = async (state, when) => {
    const { tool, db } = state;
    const found = await engine.count(db, tool.trackingTable);
    if (found.tables !== count || (tool.trackingTable && found.tracked !== count)) {
      throw new Error(`${when}: found ${found.tables} t_* tables and ${found.tracked ?? '-'} tracking rows, expected ${count}`);
    }
  };

  for (let rep = 0; rep < applyReps; rep++) {
    // The order turns by one each repetition: no tool always runs right after the same other one.
    const order = live();
    for (const state of [...order.slice(rep % order.length), ...order.slice(0, rep % order.length)]) {
      if (rep > 0 && state.row.applyMs[0] > REPEAT_BELOW_MS) continue;
      await attempt(state, 'apply', async () => {
        if (state.db) await engine.drop(state.db);
        state.db = await engine.create(state.dbName);
        if (!state.commands) {
          trash(state.dir);
          mkdirSync(state.dir, { recursive: true });
          state.commands = state.tool.prepare({ dir: state.dir, db: state.db, count });
        }
        state.tool.reset?.({ dir: state.dir });
        await engine.settle();
        const syncsBefore = await engine.syncs?.();
        const applied = await runChecked(state.commands.apply, `${state.tool.name} apply`, timeoutMs, { cpu: opts.cpu, env });
        const syncsAfter = await engine.syncs?.();
        await verify(state, 'after apply');
        state.row.applyMs.push(applied.ms);
        if (applied.cpuMs !== undefined) state.row.applyCpuMs.push(applied.cpuMs);
        if (syncsBefore !== undefined && syncsAfter !== undefined) state.row.syncs.push((syncsAfter - syncsBefore) / count);
        log(`  ${state.tool.name}: apply ${(applied.ms / 1000).toFixed(2)} s`);
      });
    }
  }
  for (const kind of ['noop', 'status']) {
    for (let i = 0; i < reps; i++) {
      for (const state of live()) {
        const command = state.commands?.[kind];
        if (!command) continue;
        await attempt(state, kind, async () => {
          state.row[`${kind}Ms`].push((await runChecked(command, `${state.tool.name} ${kind}`, timeoutMs, { env })).ms);
        });
      }
    }
    for (const state of live()) {
      const times = state.row[`${kind}Ms`];
      if (times.length) log(`  ${state.tool.name}: ${kind} ${times.map((ms) => ms.toFixed(0)).join(' ')} ms`);
    }
  }
  for (const state of live()) await attempt(state, 'check after no-op/status', () => verify(state, 'after no-op and status'));
  if (opts.profile) {
    for (const state of live().filter((s) => s.tool.name.startsWith('mtool'))) {
      await attempt(state, 'profile', () => profileMtool(engine, state));
    }
  }
  for (const state of states) {
    if (state.db && !opts.keep) await engine.drop(state.db).catch((error) => log(`  could not drop ${state.db.name}: ${error.message}`));
  }
  return Object.fromEntries(states.map((s) => [s.tool.name, s.row]));
}

/** Runs mtool's apply (on a fresh database) and a no-op under `--cpu-prof` and prints the top costs. */
async function profileMtool(engine, state) {
  const dir = join(workDir, 'profiles', engine.id, state.tool.name);
  rmSync(dir, { recursive: true, force: true });
  const profiled = (command, name) => ({
    ...command,
    args: ['--cpu-prof', '--cpu-prof-dir', dir, '--cpu-prof-name', `${name}.cpuprofile`, ...command.args],
  });
  await engine.drop(state.db);
  state.db = await engine.create(state.dbName);
  state.tool.reset?.({ dir: state.dir });
  for (const [name, command] of [['apply', state.commands.apply], ['noop', state.commands.noop]]) {
    const run = await runChecked(profiled(command, name), `${state.tool.name} ${name} (profiled)`, timeoutMs, { env });
    profileLines.push(`\n${engine.label}: ${state.tool.name} ${name} under --cpu-prof took ${run.ms.toFixed(0)} ms wall`);
    profileLines.push(...formatProfile(join(dir, `${name}.cpuprofile`), 12));
  }
}

const profileLines = [];
await waitOutTrash(log);
const started = Date.now();
const startLoad = loadavg().map((l) => l.toFixed(1)).join(' ');
// What every Node tool's wall time starts with on this machine, in the measured commands'
// environment and in the bench's own (bench/lib/env.mjs): the part of a no-op neither mtool nor
// knex can change, which pulls their ratio toward 1.
const nodeStart = async (environment) => {
  const ms = [];
  for (let i = 0; i < 9; i++) ms.push((await runChecked({ cmd: process.execPath, args: ['-e', '0'], cwd: benchDir }, 'node -e 0', timeoutMs, { env: environment })).ms);
  return median(ms);
};
const nodeStartMs = await nodeStart(env);
const nodeStartShellMs = await nodeStart(process.env);
const runResults = [];
const targetLines = [];
for (let run = 1; run <= runs; run++) {
  if (runs > 1) print(`\n=== run ${run} of ${runs} (${new Date().toISOString()})`);
  const results = {};
  const lines = [];
  for (const engine of engines) {
    log(`${engine.label}:`);
    const rows = await measureEngine(engine, tools.filter((tool) => tool.engines.includes(engine.id)), run);
    results[engine.id] = summarize(rows);
    lines.push(...printEngine(engine.label, results[engine.id], { count, reps, applyReps }, print));
  }
  runResults.push(results);
  targetLines.push(...lines);
  if (runs > 1) for (const line of lines) print(line.text);
}

for (const line of profileLines) print(line);
print('');
if (runs === 1) {
  for (const line of targetLines) print(line.text);
} else {
  print(`Targets met, out of ${runs} runs:`);
  const tally = new Map();
  for (const line of targetLines) tally.set(line.target, (tally.get(line.target) ?? 0) + (line.ok ? 1 : 0));
  for (const [target, met] of tally) print(`${`${met}/${runs}`.padStart(6)}  ${target}`);
}
const seconds = ((Date.now() - started) / 1000).toFixed(0);
const load = loadavg().map((l) => l.toFixed(1)).join(' ');
print(`\n${new Date().toISOString()} on ${hostname()}, ${cpus().length} cores, Node ${process.version}; bench took ${seconds} s; load average at start ${startLoad}, at end ${load}`);
print(`node -e 0 (every Node tool's start-up, in each no-op above): median ${nodeStartMs.toFixed(1)} ms; in this shell's environment ${nodeStartShellMs.toFixed(1)} ms`);
print(envNote(opts['keep-env']));

mkdirSync(join(benchDir, 'results'), { recursive: true });
const resultFile = join(benchDir, 'results', `migrate-peers-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
const results = runResults.length === 1 ? runResults[0] : runResults;
writeFileSync(resultFile, JSON.stringify({ count, reps, applyReps, runs, cores: cpus().length, node: process.version, keepEnv: opts['keep-env'], nodeStartMs, nodeStartShellMs, results }, null, 2));
log(`results written to ${resultFile}`);
emptyTrash();
const anyError = runResults.some((r) => Object.values(r).some((engine) => Object.values(engine).some((row) => row.error)));
process.exitCode = anyError || targetLines.some((line) => !line.ok) ? 1 : 0;
