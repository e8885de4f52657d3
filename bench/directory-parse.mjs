#!/usr/bin/env node
/**
 * Where reading, hashing and splitting a migration folder should move from the main thread to
 * the piscina pool. Generates folders of 100, 1,000 and 20,000 small migration files (plus a few
 * folders of large files), loads each with mtool's loader forced onto the main thread and forced
 * into the pool (pool start and teardown included, as a command pays them), and prints the
 * medians and the crossover. Uses the BUILT code: run `npx tsc -p tsconfig.json` first.
 *
 *   node bench/directory-parse.mjs [--reps 5]
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const { loadMigrations, POOL_THRESHOLD } = await import('../dist/main/engine/load-migrations.js');

const reps = Number(process.argv[process.argv.indexOf('--reps') + 1]) || 5;
const work = fileURLToPath(new URL('./.work/directory-parse/', import.meta.url));

function smallMigration(i) {
  return `-- upgrade
CREATE TABLE t_${i} (
  id bigint PRIMARY KEY,
  name text NOT NULL DEFAULT 'x;y', -- a semicolon in a string
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX idx_t_${i}_name ON t_${i} (name);
COMMENT ON TABLE t_${i} IS 'table number ${i}';
-- rollback
DROP TABLE t_${i};
`;
}

function largeMigration(i, bytes) {
  const rows = [];
  let size = 0;
  for (let r = 0; size < bytes; r++) {
    const row = `INSERT INTO big_${i} (id, note) VALUES (${r}, 'row ${r}; with ''quotes'' and $$ not a dollar quote');\n`;
    rows.push(row);
    size += row.length;
  }
  return `-- upgrade\nCREATE TABLE big_${i} (id bigint, note text);\n${rows.join('')}-- rollback\nDROP TABLE big_${i};\n`;
}

async function makeFolder(name, count, body) {
  const dir = join(work, name, 'migrations', 'app');
  await rm(join(work, name), { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  let bytes = 0;
  for (let start = 0; start < count; start += 500) {
    await Promise.all(
      Array.from({ length: Math.min(500, count - start) }, (_, k) => {
        const i = start + k + 1;
        const text = body(i);
        bytes += Buffer.byteLength(text);
        return writeFile(join(dir, `app__${String(i).padStart(4, '0')}_t_${i}.sql`), text);
      }),
    );
  }
  return { dir, bytes };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const NEVER = { files: Number.POSITIVE_INFINITY, bytes: Number.POSITIVE_INFINITY };
const ALWAYS = { files: 0, bytes: 0 };

async function time(dir, threshold) {
  const started = performance.now();
  const files = await loadMigrations(dir, { database: 'app', dialect: 'postgresql', threshold });
  return { ms: performance.now() - started, count: files.length };
}

// Versions have four digits, so one folder holds at most 9,999 versioned files: 20,000 files are
// measured as two folders of 9,999 loaded one after the other (a two-database project).
const CASES = [
  { name: 'small-100', count: 100, body: smallMigration, folders: 1 },
  { name: 'small-1000', count: 1000, body: smallMigration, folders: 1 },
  { name: 'small-3000', count: 3000, body: smallMigration, folders: 1 },
  { name: 'small-20000', count: 9999, body: smallMigration, folders: 2, label: 'small-20000 (2 x 9,999)' },
  { name: 'large-8x1MB', count: 8, body: (i) => largeMigration(i, 1 << 20), folders: 1 },
  { name: 'large-32x1MB', count: 32, body: (i) => largeMigration(i, 1 << 20), folders: 1 },
];

console.log(`directory parse: main thread vs piscina pool (${availableParallelism()} CPUs, median of ${reps}; pool start/teardown included)`);
console.log(`current thresholds: ${POOL_THRESHOLD.files} files or ${(POOL_THRESHOLD.bytes / 2 ** 20).toFixed(0)} MB, with at least ${POOL_THRESHOLD.minCpus} CPUs\n`);
console.log(['case'.padEnd(26), 'files'.padStart(7), 'MB'.padStart(7), 'main ms'.padStart(9), 'pool ms'.padStart(9), 'pool/main'.padStart(10)].join(' '));
const rows = [];
for (const c of CASES) {
  const folders = [];
  for (let f = 0; f < c.folders; f++) folders.push(await makeFolder(`${c.name}-${f}`, c.count, c.body));
  const bytes = folders.reduce((s, f) => s + f.bytes, 0);
  const main = [];
  const pool = [];
  for (let r = 0; r < reps; r++) {
    let m = 0;
    let p = 0;
    for (const f of folders) m += (await time(f.dir, NEVER)).ms;
    for (const f of folders) p += (await time(f.dir, ALWAYS)).ms;
    main.push(m);
    pool.push(p);
  }
  const row = { label: c.label ?? c.name, files: c.count * c.folders, mb: bytes / 2 ** 20, main: median(main), pool: median(pool) };
  rows.push(row);
  console.log(
    [row.label.padEnd(26), String(row.files).padStart(7), row.mb.toFixed(1).padStart(7), row.main.toFixed(1).padStart(9), row.pool.toFixed(1).padStart(9), (row.pool / row.main).toFixed(2).padStart(10)].join(' '),
  );
}
// Linear model from the measurements: time = fixed + perUnit * size, for each path.
function fit(points) {
  const [a, b] = [points[0], points[points.length - 1]];
  const slope = (b.y - a.y) / (b.x - a.x);
  return { fixed: a.y - slope * a.x, slope };
}
function crossover(kind, unit, points) {
  const main = fit(points.map((r) => ({ x: r.x, y: r.main })));
  const pool = fit(points.map((r) => ({ x: r.x, y: r.pool })));
  const gain = main.slope - pool.slope;
  const wins = points.find((r) => r.pool < r.main);
  console.log(
    `${kind}: main ${(main.slope * 1000).toFixed(1)} µs/${unit}, pool ${(pool.slope * 1000).toFixed(1)} µs/${unit} + ${Math.max(0, pool.fixed - main.fixed).toFixed(0)} ms to start` +
      (wins ? `; the pool first won at ${wins.x} ${unit}s` : '') +
      (gain > 0 ? `; predicted crossover at about ${Math.round((pool.fixed - main.fixed) / gain)} ${unit}s` : '; the pool never pays back on this machine (it is not faster per ' + unit + ')'),
  );
}
console.log('');
crossover('small files', 'file', rows.filter((r) => r.label.startsWith('small')).map((r) => ({ x: r.files, main: r.main, pool: r.pool })));
crossover('large files', 'MB', rows.filter((r) => r.label.startsWith('large')).map((r) => ({ x: Math.round(r.mb), main: r.main, pool: r.pool })));
await rm(work, { recursive: true, force: true });
