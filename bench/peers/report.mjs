// Turns measured numbers into the per-database tables and the issue's PASS/FAIL target lines.
import { median } from './run-timed.mjs';

const PEERS = ['dbmate', 'node-pg-migrate', 'knex'];

/** @param {Record<string, {applyMs:number[], applyCpuMs?:number[], syncs:number[], noopMs:number[], statusMs:number[], error?:string, describe?:string}>} rows */
export function summarize(rows) {
  const out = {};
  for (const [tool, r] of Object.entries(rows)) {
    out[tool] = {
      apply: r.applyMs.length ? median(r.applyMs) : undefined,
      applyRuns: r.applyMs,
      applyCpu: r.applyCpuMs?.length ? median(r.applyCpuMs) : undefined,
      syncs: r.syncs?.length ? median(r.syncs) : undefined,
      noop: r.noopMs.length ? median(r.noopMs) : undefined,
      status: r.statusMs.length ? median(r.statusMs) : undefined,
      error: r.error,
      describe: r.describe,
    };
  }
  return out;
}

const pad = (s, n) => String(s).padEnd(n);
/** Width of the tool column (the longest row: `floor-tracked (mariadb, + a row each)`). */
const TOOL_WIDTH = 36;
const lpad = (s, n) => String(s).padStart(n);
const sec = (ms) => (ms === undefined ? '-' : (ms / 1000).toFixed(2));
const msf = (ms) => (ms === undefined ? '-' : ms < 100 ? ms.toFixed(1) : ms.toFixed(0));
const ratio = (a, b) => (a === undefined || b === undefined ? '-' : `${(a / b).toFixed(2)}x`);

/** Prints one database's table and returns its target lines as `{ ok, text }`. */
export function printEngine(label, summary, { count, reps, applyReps }, print) {
  const floor = summary.floor?.apply;
  print(`\n${label}: ${count} migrations; apply median of ${applyReps}, no-op and status median of ${reps} (wall time per command)`);
  const cpu = Object.values(summary).some((s) => s.applyCpu !== undefined);
  const cpuCell = (s) => (cpu ? lpad(sec(s.applyCpu), 8) : '');
  print(`${pad('tool', TOOL_WIDTH)}${lpad('apply s', 9)}${cpu ? lpad('cpu s', 8) : ''}${lpad('vs floor', 10)}${lpad('syncs/mig', 11)}${lpad('no-op ms', 10)}${lpad('status ms', 11)}`);
  for (const [tool, s] of Object.entries(summary)) {
    const name = s.describe ? `${tool} (${s.describe})` : tool;
    if (s.error) {
      print(`${pad(name, TOOL_WIDTH)}ERROR ${s.error.split('\n')[0].slice(0, 140)}`);
      continue;
    }
    print(
      `${pad(name, TOOL_WIDTH)}${lpad(sec(s.apply), 9)}${cpuCell(s)}${lpad(ratio(s.apply, floor), 10)}${lpad(s.syncs === undefined ? '-' : s.syncs.toFixed(2), 11)}${lpad(msf(s.noop), 10)}${lpad(msf(s.status), 11)}`,
    );
  }
  for (const line of byRound(summary)) print(line);
  const peers = PEERS.filter((p) => summary[p] && !summary[p].error);
  const mtools = Object.keys(summary).filter((t) => t.startsWith('mtool') && !summary[t].error);
  for (const line of recordingFloor(summary, mtools)) print(line);
  if (mtools.length && peers.length) {
    print(`mtool time / peer time (below 1.00x: mtool is faster)`);
    print(`${pad('', 32)}${lpad('apply', 9)}${lpad('no-op', 10)}${lpad('status', 11)}`);
    for (const m of mtools) {
      for (const p of peers) {
        const s = summary[p];
        const mt = summary[m];
        print(`${pad(`  ${m} vs ${p}`, 32)}${lpad(ratio(mt.apply, s.apply), 9)}${lpad(ratio(mt.noop, s.noop), 10)}${lpad(ratio(mt.status, s.status), 11)}`);
      }
    }
  }
  return Object.keys(summary)
    .filter((t) => t.startsWith('mtool'))
    .flatMap((t) => targets(t === 'mtool' ? label : `${label} (${t})`, summary, t));
}

/**
 * Each tool's applies against the floor's of the same repetition: the tools take turns within a
 * repetition, so these ratios are measured minutes apart, while the medians above can pair a
 * tool's apply with a floor measured when the disk was in another state. Nothing with one
 * repetition.
 */
function byRound(summary) {
  const floors = summary.floor?.applyRuns;
  if (!floors || floors.length < 2 || summary.floor.error) return [];
  const lines = [];
  for (const [tool, s] of Object.entries(summary)) {
    if (tool === 'floor' || s.error || s.applyRuns?.length !== floors.length) continue;
    lines.push(`  ${pad(tool, 30)}${s.applyRuns.map((ms, i) => lpad(ratio(ms, floors[i]), 7)).join('')}`);
  }
  return lines.length ? [`apply / the floor's apply of the same repetition (repetitions in order):`, ...lines] : [];
}

/**
 * What recording each migration costs in this run: floor-tracked is the database's own client
 * sending a tracking row after each migration (each statement committed on its own), nothing
 * else. Where that is above 1.2x of the floor, a tool can meet that target only by recording more
 * cheaply than a commit of its own per row (PostgreSQL: the row in the migration's transaction,
 * committed asynchronously until the last). Each mtool row says where it ran against it.
 * Nothing when either floor did not run.
 */
function recordingFloor(summary, mtools) {
  const floor = summary.floor?.apply;
  const tracked = summary['floor-tracked']?.apply;
  if (floor === undefined || tracked === undefined || summary.floor.error || summary['floor-tracked'].error) return [];
  const around = (ms) => `${Math.abs(ms).toFixed(0)} ms ${ms >= 0 ? 'above' : 'below'}`;
  const lines = [`recording: floor-tracked is ${ratio(tracked, floor)} of the floor; 1.2x of the floor is ${around(1.2 * floor - tracked)} it`];
  for (const m of mtools) {
    const apply = summary[m].apply;
    if (apply !== undefined) lines.push(`  ${m}: ${around(apply - tracked)} floor-tracked (${ratio(apply, tracked)})`);
  }
  return lines;
}

/** The issue's targets: apply within 1.2x of the floor and no slower than any peer; no-op at least 1.5x faster than knex and node-pg-migrate. */
export function targets(label, summary, toolName = 'mtool') {
  const lines = [];
  const mtool = summary[toolName];
  // `target`: the target without this run's numbers, the same in every run (for --runs tallies).
  const check = (ok, text, target = text) => lines.push({ ok, target: `${label}: ${target}`, text: `${ok ? 'PASS' : 'FAIL'} ${label}: ${text}` });
  if (!mtool || mtool.error || mtool.apply === undefined) {
    check(false, `${toolName} did not run${mtool?.error ? `: ${mtool.error.split('\n')[0].slice(0, 160)}` : ''}`);
    return lines;
  }
  const floor = summary.floor;
  if (floor && !floor.error) {
    check(mtool.apply <= 1.2 * floor.apply, `apply ${sec(mtool.apply)} s within 1.2x of the floor ${sec(floor.apply)} s (${ratio(mtool.apply, floor.apply)})`, 'apply within 1.2x of the floor');
  } else {
    check(false, 'apply vs floor: the floor did not run');
  }
  for (const p of PEERS) {
    const s = summary[p];
    if (!s) continue;
    if (s.error) {
      check(false, `apply vs ${p}: ${p} did not run`);
      continue;
    }
    check(mtool.apply <= s.apply, `apply ${sec(mtool.apply)} s no slower than ${p} ${sec(s.apply)} s`, `apply no slower than ${p}`);
  }
  for (const p of ['knex', 'node-pg-migrate']) {
    const s = summary[p];
    if (!s || s.error) continue;
    check(
      mtool.noop !== undefined && mtool.noop * 1.5 <= s.noop,
      `no-op ${msf(mtool.noop)} ms at least 1.5x faster than ${p} ${msf(s.noop)} ms (${s.noop && mtool.noop ? (s.noop / mtool.noop).toFixed(2) : '-'}x)`,
      `no-op at least 1.5x faster than ${p}`,
    );
  }
  return lines;
}
