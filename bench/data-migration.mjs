// A data migration: one file of N single-row INSERTs (reference data, a backfill), applied by
// `mtool migrate` and by the database's own client sending the same statements in one
// transaction (psql -1 -f, mariadb with START TRANSACTION ... COMMIT), on PostgreSQL and MariaDB.
// The table comes from a first migration applied before the clock starts. Prints each median
// and mtool's ratio to the client. Build first (`npm run build`).
//
//   node bench/data-migration.mjs [--rows 50000] [--reps 3] [--engines postgresql,mariadb] [--keep-env]
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { measuredEnv, envNote } from './lib/env.mjs';
import { postgresql, mariadb } from './peers/engines.mjs';
import { mtoolBin, repoRoot } from './peers/tools/mtool.mjs';

const { values: opts } = parseArgs({
  options: {
    rows: { type: 'string', default: '50000' },
    reps: { type: 'string', default: '3' },
    engines: { type: 'string', default: 'postgresql,mariadb' },
    'keep-env': { type: 'boolean', default: false },
  },
});
const rows = Number(opts.rows);
const reps = Number(opts.reps);
const engines = opts.engines.split(',').map((id) => ({ postgresql, mariadb })[id] ?? fail(`unknown engine ${id}`));
const env = measuredEnv(opts['keep-env']);
const work = join(repoRoot, 'bench', '.work', 'data-migration');

function fail(message) {
  console.error(message);
  process.exit(2);
}

const table = 'CREATE TABLE seed (id integer PRIMARY KEY, name varchar(100) NOT NULL)';
const inserts = Array.from({ length: rows }, (_, k) => `INSERT INTO seed (id, name) VALUES (${k + 1}, 'name ${k + 1}; it''s here');\n`).join('');

/** Run a command to its end; its wall time in ms. Throws with its output when it fails. */
function timed(cmd, args, options) {
  const started = performance.now();
  const result = spawnSync(cmd, args, { encoding: 'utf8', env, maxBuffer: 64 * 1024 * 1024, ...options });
  const ms = performance.now() - started;
  if (result.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${result.status}):\n${result.stdout}\n${result.stderr}`);
  return ms;
}

function project(engine, db) {
  const dir = join(work, engine.id);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, 'migrations', 'app'), { recursive: true });
  const url = new URL(db.url.href);
  if (engine.id === 'mariadb') url.protocol = 'mysql:';
  writeFileSync(join(dir, 'mtool.config.ts'), `import { databaseConfig } from 'mtool';\n\ndatabaseConfig({ databaseName: 'app', default: true, databaseType: '${engine.id}', databaseUrl: '${url.href}'${engine.id === 'postgresql' ? ", pgSchema: 'public'" : ''} });\n`);
  writeFileSync(join(dir, 'migrations', 'app', 'app__0001_seed_table.sql'), `-- upgrade\n${table};\n\n-- rollback\nDROP TABLE seed;\n`);
  writeFileSync(join(dir, 'migrations', 'app', 'app__0002_seed_rows.sql'), `-- upgrade\n${inserts}\n-- rollback\nDELETE FROM seed;\n`);
  writeFileSync(join(dir, 'rows.sql'), engine.id === 'mariadb' ? `START TRANSACTION;\n${inserts}COMMIT;\n` : inserts);
  return dir;
}

function client(engine, db, dir) {
  const file = join(dir, 'rows.sql');
  if (engine.id === 'postgresql') return timed('psql', ['-q', '-X', '-1', '-v', 'ON_ERROR_STOP=1', '-f', file, db.url.href], { cwd: dir });
  const args = ['-h', db.url.hostname, '-P', db.url.port || '3306', '-u', decodeURIComponent(db.url.username || 'root'), db.name];
  return timed('sh', ['-c', `mariadb ${args.map((a) => `'${a}'`).join(' ')} < rows.sql`], { cwd: dir });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(`data migration: ${rows} INSERTs in one file; median of ${reps} alternating runs, wall time`);
for (const engine of engines) {
  const times = { mtool: [], client: [] };
  for (let rep = 0; rep < reps; rep++) {
    for (const who of ['mtool', 'client']) {
      const db = await engine.create(`bench_data_${who}_${process.pid}`);
      try {
        const dir = project(engine, db);
        if (who === 'mtool') {
          timed(process.execPath, [mtoolBin, 'migrate', '--to-version', '0001'], { cwd: dir });
          await engine.settle();
          times.mtool.push(timed(process.execPath, [mtoolBin, 'migrate', '--defer-snapshots'], { cwd: dir }));
        } else {
          timed(process.execPath, [mtoolBin, 'migrate', '--to-version', '0001'], { cwd: dir });
          await engine.settle();
          times.client.push(client(engine, db, dir));
        }
      } finally {
        await engine.drop(db);
      }
    }
  }
  const m = median(times.mtool);
  const c = median(times.client);
  const label = engine.id === 'postgresql' ? 'psql -1 -f' : 'mariadb, one transaction';
  console.log(`${engine.label.padEnd(11)} mtool ${(m / 1000).toFixed(2)} s  ${label} ${(c / 1000).toFixed(2)} s  ratio ${(m / c).toFixed(2)}x   (mtool ${times.mtool.map((t) => (t / 1000).toFixed(2)).join(' ')}; client ${times.client.map((t) => (t / 1000).toFixed(2)).join(' ')})`);
}
console.log(envNote(opts['keep-env']));
process.exit(0);
