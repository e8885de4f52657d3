#!/usr/bin/env node
/**
 * Throughput of mtool's SQL splitter against dbgate-query-splitter on a deterministic 20 MB
 * PostgreSQL script: plain statements, strings with `;`, E'' strings with \' escapes, $$ and
 * $tag$ bodies holding `;`, line / block / nested block comments holding `;`, quoted
 * identifiers, BEGIN ATOMIC bodies and non-ASCII text. The statements are known by
 * construction, so mtool's output is checked text for text, not only counted.
 *
 * PASS when mtool returns exactly the expected statements and is at least 10x faster by CPU
 * time: the median, over interleaved repetitions, of dbgate's CPU time divided by mtool's in the
 * same repetition. CPU time, because wall time on a shared machine mostly measures the other
 * processes; paired ratios, because load drifts between repetitions and hits both alike.
 * Wall time is printed too.
 *
 *   node bench/splitter.mjs [megabytes=20] [--json]
 * Exit code 0 on PASS, 1 on FAIL.
 *
 * Uses the built splitter (dist/parser/split-statements.js): run `npm run build` first
 * (`npm run bench` does).
 */
import { createRequire } from 'node:module';
import { importBuilt, random } from './lib/built.mjs';

const TARGET_RATIO = 10;
const megabytes = Number(process.argv.slice(2).find((a) => /^\d+(\.\d+)?$/.test(a)) ?? 20);
const json = process.argv.includes('--json');
const log = (line) => process.stderr.write(`${line}\n`);

/** Statement makers: each returns the statement's text exactly as the splitter must return it. */
const MAKERS = [
  (n) => `INSERT INTO events (id, kind, payload) VALUES (${n}, 'plain', '{"n": ${n}}')`,
  (n) => `UPDATE accounts SET note = 'paid; thanks; it''s done #${n}' WHERE id = ${n}`,
  (n) => `SELECT E'it\\'s; escaped \\\\ path; n=${n}', e'tab\\t;'`,
  (n) => `CREATE FUNCTION f_${n}(a int) RETURNS int AS $$\nBEGIN\n  RETURN a + ${n}; -- inner; comment\nEND;\n$$ LANGUAGE plpgsql`,
  (n) => `DO $body_${n % 97}$\nBEGIN\n  PERFORM 1; RAISE NOTICE 'done; %', ${n};\n  -- $$ is not the end here;\nEND\n$body_${n % 97}$`,
  (n) => `SELECT a /* block; comment */ + b /* outer /* nested; */ still; */ FROM "odd;name" WHERE "x""y;" = ${n}`,
  (n) => `CREATE TABLE "tbl;${n}" ("col;a" int, "it's" text, b text DEFAULT 'x;y')`,
  (n) => `INSERT INTO i18n VALUES (${n}, 'héllo; wörld; 日本語; 😀')`,
  (n) => `CREATE FUNCTION g_${n}(a int) RETURNS int LANGUAGE sql\nBEGIN ATOMIC\n  SELECT CASE WHEN a > ${n} THEN 1 ELSE 0 END;\n  SELECT a;\nEND`,
  (n) => `SELECT count(*)\n  FROM orders o -- line comment; with 'quote\n  JOIN users u ON u.id = o.user_id\n WHERE o.total > $1 AND o.id <> ${n}`,
];

/** Comments and whitespace between statements: never statements themselves. */
const GAPS = ['\n', '\n\n', '\n-- between statements; it\'s a comment\n', '\n/* gap; /* nested; */ */\n', ' ', '\n;\n'];

function generate(targetBytes) {
  const next = random(20240611);
  const parts = [];
  const expected = [];
  let bytes = 0;
  for (let n = 0; bytes < targetBytes; n++) {
    const text = MAKERS[Math.floor(next() * MAKERS.length)](n);
    const gap = GAPS[Math.floor(next() * GAPS.length)];
    const piece = `${text};${gap}`;
    parts.push(piece);
    expected.push(text);
    bytes += Buffer.byteLength(piece, 'utf8');
  }
  return { sql: parts.join(''), expected, bytes };
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/**
 * Times the splitters in turns (one run of each per repetition), so load on a shared machine
 * hits both alike. Reports median wall time and median process CPU time per splitter, and the
 * per-repetition samples for paired ratios.
 */
function timeInTurns(fns, runs) {
  // Warm-up, in turns as the timed runs: JIT, string flattening and heap growth should not count
  // against either. Each result is dropped before the next call.
  for (let r = 0; r < 2; r++) for (const fn of fns) fn();
  const wall = fns.map(() => []);
  const cpu = fns.map(() => []);
  const results = [];
  for (let r = 0; r < runs; r++) {
    fns.forEach((fn, k) => {
      results[k] = undefined;
      const c0 = process.cpuUsage();
      const t0 = process.hrtime.bigint();
      results[k] = fn();
      wall[k].push(Number(process.hrtime.bigint() - t0) / 1e6);
      const c = process.cpuUsage(c0);
      cpu[k].push((c.user + c.system) / 1000);
    });
  }
  return fns.map((_, k) => ({ ms: median(wall[k]), cpuMs: median(cpu[k]), wallRuns: wall[k], cpuRuns: cpu[k], result: results[k] }));
}

/** Median over repetitions of `slow / fast`, each pair timed back to back. */
const pairedRatio = (slow, fast) => median(slow.map((t, r) => t / fast[r]));

const source = 'dist/parser/split-statements.js';
const { splitStatements } = await importBuilt(source);
const require = createRequire(import.meta.url);
const { splitQuery, postgreSplitterOptions } = require('dbgate-query-splitter');

const { sql, expected, bytes } = generate(megabytes * 1e6);
const mb = bytes / 1e6;
log(`bench/splitter: ${mb.toFixed(1)} MB, ${expected.length} statements; mtool splitter from ${source}`);

const RUNS = 9;
const [mtool, dbgate] = timeInTurns([() => splitStatements(sql, { dialect: 'postgresql' }), () => splitQuery(sql, postgreSplitterOptions)], RUNS);

let firstMismatch = -1;
for (let k = 0; k < expected.length; k++) {
  if (mtool.result[k]?.text !== expected[k]) {
    firstMismatch = k;
    break;
  }
}
const exact = mtool.result.length === expected.length && firstMismatch < 0;

// Typical migration file size: what one split costs, to place the worker-pool threshold.
const small = generate(10_000);
const [perFile] = timeInTurns([() => splitStatements(small.sql, { dialect: 'postgresql' })], 201);

const mtoolMBs = mb / (mtool.ms / 1000);
const dbgateMBs = mb / (dbgate.ms / 1000);
const ratio = pairedRatio(dbgate.wallRuns, mtool.wallRuns);
const cpuRatio = pairedRatio(dbgate.cpuRuns, mtool.cpuRuns);
const pass = exact && cpuRatio >= TARGET_RATIO;

const report = {
  megabytes: Number(mb.toFixed(2)),
  expectedStatements: expected.length,
  mtool: { ms: Number(mtool.ms.toFixed(1)), cpuMs: Number(mtool.cpuMs.toFixed(1)), mbPerSecond: Number(mtoolMBs.toFixed(1)), statements: mtool.result.length, exact },
  dbgate: { ms: Number(dbgate.ms.toFixed(1)), cpuMs: Number(dbgate.cpuMs.toFixed(1)), mbPerSecond: Number(dbgateMBs.toFixed(1)), statements: dbgate.result.length },
  ratio: Number(ratio.toFixed(1)),
  cpuRatio: Number(cpuRatio.toFixed(1)),
  cpuRatios: mtool.cpuRuns.map((t, r) => Number((dbgate.cpuRuns[r] / t).toFixed(1))),
  targetRatio: TARGET_RATIO,
  tenKilobyteFileMicroseconds: Number((perFile.ms * 1000).toFixed(1)),
  splitterSource: source,
  pass,
};

if (json) {
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
} else {
  const row = (name, t, rate, count) => `${name.padEnd(24)} ${t.ms.toFixed(1).padStart(9)} ms wall ${t.cpuMs.toFixed(1).padStart(9)} ms cpu ${rate.toFixed(1).padStart(9)} MB/s ${String(count).padStart(9)} statements`;
  console.log(`SQL splitter, PostgreSQL script of ${mb.toFixed(1)} MB, ${expected.length} statements by construction (median of ${RUNS} runs, splitters in turns)`);
  console.log(row('mtool', mtool, mtoolMBs, mtool.result.length) + (exact ? '  (exact, text for text)' : `  (WRONG: first mismatch at #${firstMismatch})`));
  console.log(row('dbgate-query-splitter', dbgate, dbgateMBs, dbgate.result.length) + (dbgate.result.length === expected.length ? '' : `  (expected ${expected.length})`));
  console.log(`ratio: ${cpuRatio.toFixed(1)}x by CPU time (target >= ${TARGET_RATIO}x), ${ratio.toFixed(1)}x by wall time (medians of per-run pairs)`);
  console.log(`CPU-time ratio per run: ${mtool.cpuRuns.map((t, r) => (dbgate.cpuRuns[r] / t).toFixed(1)).join(' ')}`);
  console.log(`one 10 KB migration file: ${(perFile.ms * 1000).toFixed(0)} µs per split`);
  console.log('splitting is pure and synchronous (string in, array out, no I/O, no shared state): it can run in a worker thread as is.');
  if (firstMismatch >= 0) console.log(`first mismatch: expected ${JSON.stringify(expected[firstMismatch])}, got ${JSON.stringify(mtool.result[firstMismatch]?.text)}`);
  console.log(`${pass ? 'PASS' : 'FAIL'}: exact statement count and text ${exact ? 'yes' : 'NO'}, speed ${cpuRatio.toFixed(1)}x by CPU time ${cpuRatio >= TARGET_RATIO ? '>=' : '<'} ${TARGET_RATIO}x dbgate-query-splitter`);
}
process.exitCode = pass ? 0 : 1;
