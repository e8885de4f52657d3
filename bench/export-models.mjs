#!/usr/bin/env node
/**
 * `mtool export-models` end to end with the built binary, on two projects of 1000 tables each
 * (SQLite database, so the timing is mtool's work, not a network):
 *   - "files":  1000 model files (models/t0001.ts ... t1000.ts), six columns, an index and a
 *               foreign key each;
 *   - "single": one models.ts holding the same 1000 tables.
 * Each project is timed cold (first run: esbuild bundles the model files into .mtool/cache) and
 * warm (median of the next runs: the cached bundle is used). Target: warm under 1 s. The cold
 * run is reported too; it pays esbuild's start and one build of every file. On Linux the CPU time
 * of each run (user + system of the mtool process and its children, from this process's
 * /proc/self/stat, 10 ms steps) is reported as well: on a loaded machine it moves less than wall time.
 *
 *   node bench/export-models.mjs [warmRuns=5] [--json] [--keep-env]
 * mtool runs in the environment of bench/lib/env.mjs (no NODE_OPTIONS, no NODE_EXTRA_CA_CERTS
 * unless --keep-env).
 * Exit 0 on PASS, 1 on FAIL, 2 when dist/ is missing (run `npm run build`).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { measuredEnv } from './lib/env.mjs';

const TARGET_MS = 1000;
const TABLES = 1000;
const warmRuns = Number(process.argv.slice(2).find((a) => /^\d+$/.test(a)) ?? 5);
const json = process.argv.includes('--json');
const env = measuredEnv(process.argv.includes('--keep-env'));
const bin = fileURLToPath(new URL('../dist/cli/bin.js', import.meta.url));
if (!existsSync(bin)) {
  process.stderr.write(`bench/export-models: ${bin} not found; run npm run build first\n`);
  process.exit(2);
}

const pad = (i) => String(i).padStart(4, '0');
function tableCode(i) {
  const ref = i > 1 ? `\n  parent_id: col.bigint().references(() => t${pad(i - 1)}.id, { onDelete: 'cascade' }),` : '';
  return `export const t${pad(i)} = table('t${pad(i)}', {
  id: col.bigint().primaryKey(),
  name: col.varchar(200).notNull(),
  body: col.text(),
  active: col.boolean().notNull().default(true),
  created_at: col.timestamp().notNull().default(sql\`CURRENT_TIMESTAMP\`),${ref}
}, { indexes: [index('name')] });`;
}

async function makeProject(kind) {
  const dir = await mkdtemp(join(tmpdir(), `mtool-bench-export-${kind}-`));
  await writeFile(join(dir, 'mtool.config.ts'), `import { databaseConfig } from 'mtool';\ndatabaseConfig({ databaseName: 'bench', default: true, databaseType: 'sqlite', databaseUrl: 'sqlite:///bench.db', modelPaths: ['models'] });\n`);
  await mkdir(join(dir, 'models'));
  const head = `import { table, col, index, sql } from 'mtool/schema';\n`;
  if (kind === 'single') {
    await writeFile(join(dir, 'models', 'models.ts'), `${head}\n${Array.from({ length: TABLES }, (_, i) => tableCode(i + 1)).join('\n\n')}\n`);
  } else {
    for (let i = 1; i <= TABLES; i++) {
      const imp = i > 1 ? `import { t${pad(i - 1)} } from './t${pad(i - 1)}.js';\n` : '';
      await writeFile(join(dir, 'models', `t${pad(i)}.ts`), `${head}${imp}\n${tableCode(i)}\n`);
    }
  }
  return dir;
}

/** CPU milliseconds of the waited-for children so far (cutime + cstime), or null off Linux. */
function childrenCpuMs() {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
    // Fields 16 and 17 of stat(5), counted after the ") " that ends the command name (field 3 is index 0).
    return ((Number(fields[13]) + Number(fields[14])) * 1000) / 100;
  } catch {
    return null;
  }
}

function timeOnce(dir) {
  const cpuBefore = childrenCpuMs();
  const start = process.hrtime.bigint();
  const r = spawnSync(process.execPath, [bin, 'export-models'], { cwd: dir, encoding: 'utf8', env });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  const cpuAfter = childrenCpuMs();
  if (r.status !== 0) throw new Error(`export-models exited ${r.status}: ${r.stderr}`);
  if (!r.stdout.includes(`(${TABLES} tables`)) throw new Error(`export-models did not export ${TABLES} tables: ${r.stdout}`);
  return { ms, cpu: cpuBefore === null || cpuAfter === null ? null : cpuAfter - cpuBefore };
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

const results = [];
for (const kind of ['files', 'single']) {
  const dir = await makeProject(kind);
  try {
    const cold = timeOnce(dir);
    const warm = Array.from({ length: warmRuns }, () => timeOnce(dir));
    const warmCpu = warm.every((w) => w.cpu !== null) ? warm.map((w) => w.cpu) : null;
    results.push({
      kind,
      cold: cold.ms,
      coldCpu: cold.cpu,
      warmMedian: median(warm.map((w) => w.ms)),
      warmCpuMedian: warmCpu && median(warmCpu),
      warm: warm.map((w) => w.ms),
      warmCpu,
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const pass = results.every((r) => r.warmMedian < TARGET_MS);
if (json) process.stdout.write(`${JSON.stringify({ target_ms: TARGET_MS, tables: TABLES, results, pass }, null, 2)}\n`);
else {
  for (const r of results) {
    const label = r.kind === 'files' ? `${TABLES} model files` : `one file, ${TABLES} tables`;
    const cpu = r.warmCpuMedian === null ? '' : ` (CPU: cold ${r.coldCpu.toFixed(0)} ms, warm median ${r.warmCpuMedian.toFixed(0)} ms)`;
    process.stdout.write(`export-models, ${label}: cold ${r.cold.toFixed(0)} ms, warm median ${r.warmMedian.toFixed(0)} ms (${warmRuns} runs)${cpu}  ${r.warmMedian < TARGET_MS ? 'PASS' : 'FAIL'} (target < ${TARGET_MS} ms warm)\n`);
  }
}
process.exitCode = pass ? 0 : 1;
