#!/usr/bin/env node
/**
 * Start-up cost of the mtool binary against bare Node: runs `node dist/cli/bin.js --version` and
 * `node -e 0` alternately (so machine noise hits both alike), after a warm-up, and compares medians.
 * PASS when mtool's median is at most 1.5x bare Node's.
 *
 *   node bench/startup.mjs [runs=30] [--json] [--keep-env]
 * Both commands run in the environment of bench/lib/env.mjs (no NODE_OPTIONS, no
 * NODE_EXTRA_CA_CERTS unless --keep-env).
 * Exit code 0 on PASS, 1 on FAIL, 2 when dist/ is missing (run `npm run build`).
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { envNote, measuredEnv } from './lib/env.mjs';

const LIMIT = 1.5;
const runs = Number(process.argv.slice(2).find((a) => /^\d+$/.test(a)) ?? 30);
const json = process.argv.includes('--json');
const keepEnv = process.argv.includes('--keep-env');
const env = measuredEnv(keepEnv);
const bin = fileURLToPath(new URL('../dist/cli/bin.js', import.meta.url));
if (!existsSync(bin)) {
  process.stderr.write(`bench/startup: ${bin} not found; run npm run build first\n`);
  process.exit(2);
}

const cases = {
  mtool: [bin, '--version'],
  node: ['-e', '0'],
};

function timeOnce(args) {
  const start = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (result.status !== 0) throw new Error(`${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  return ms;
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

for (let i = 0; i < 5; i++) for (const args of Object.values(cases)) timeOnce(args); // warm the file cache
const samples = { mtool: [], node: [] };
for (let i = 0; i < runs; i++) for (const [name, args] of Object.entries(cases)) samples[name].push(timeOnce(args));

const mtool = median(samples.mtool);
const node = median(samples.node);
const ratio = mtool / node;
const verdict = ratio <= LIMIT ? 'PASS' : 'FAIL';
if (json) {
  process.stdout.write(`${JSON.stringify({ runs, mtool_median_ms: mtool, node_median_ms: node, ratio, limit: LIMIT, verdict, keep_env: keepEnv })}\n`);
} else {
  process.stdout.write(
    `startup over ${runs} runs each: mtool --version median ${mtool.toFixed(1)} ms, node -e 0 median ${node.toFixed(1)} ms, ` +
      `ratio ${ratio.toFixed(2)} (limit ${LIMIT}): ${verdict}\n${envNote(keepEnv)}\n`,
  );
}
process.exitCode = verdict === 'PASS' ? 0 : 1;
