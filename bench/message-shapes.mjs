// What the shape of a MariaDB/MySQL migration message costs the server: the same 1000
// `CREATE TABLE`s sent by the database's own client one statement at a time (`floor`), and in
// multi-statement messages of 100 through mysql2 with
//   bare      nothing else;
//   rows10    a tracking-row statement per ten migrations, the server's UTC time as applied_at;
//   mtool     mtool's own message (dist/dialects/mysql/message-plan.js, recordGroupedPlan): each
//             migration's end marked with a SET, per ten a SELECT of their times and their rows;
//   after<N>  messages of N migrations, then one statement of their rows with times taken by
//             the client (what dropping the marks would take; a SIGKILL then can leave a whole
//             message's migrations applied without a row, where with the marks the server
//             finishes the message, rows included).
// Alternating, each on a fresh database after the server settled as in migrate-peers (InnoDB's
// dirty pages flushed, the page cache synced); only the messages are timed. Point it at a server
// with its data on tmpfs (bench/README.md, "Measuring without the disk") to see the CPU cost of a
// shape apart from the disk.
// Usage: node bench/message-shapes.mjs [--rounds 10] [--shapes floor,bare,rows10,mtool,after100,after25]
// Build first (`npm run build`); the server from MTOOL_TEST_MYSQL_URL (default mysql://root@127.0.0.1:3306/).
import { execFileSync } from 'node:child_process';
import { benchOptions } from './lib/args.mjs';
import { importBuilt } from './lib/built.mjs';
import { mariadb, mysqlConnectionOptions } from './peers/engines.mjs';

const usage = `usage: node bench/message-shapes.mjs [--rounds 10] [--shapes floor,bare,rows10,mtool,after100,after25]
  the server: MTOOL_TEST_MYSQL_URL (default mysql://root@127.0.0.1:3306/)`;
const opts = benchOptions('message-shapes', usage, {
  rounds: { type: 'string', default: '10' },
  shapes: { type: 'string', default: 'floor,bare,rows10,mtool,after100,after25' },
});
const rounds = Number(opts.rounds);
const shapes = opts.shapes.split(',');
const known = /^(floor|bare|rows10|mtool|after[1-9]\d*)$/;
for (const shape of shapes) {
  if (!known.test(shape)) {
    process.stderr.write(`message-shapes: unknown shape '${shape}'\n${usage}\n`);
    process.exit(2);
  }
}
if (!Number.isInteger(rounds) || rounds < 1) {
  process.stderr.write(`message-shapes: --rounds must be a whole number above 0\n${usage}\n`);
  process.exit(2);
}

const { recordGroupedPlan } = await importBuilt('dist/dialects/mysql/message-plan.js');
const mysql = (await import('mysql2/promise')).default;

const connection = { ...mysqlConnectionOptions(), multipleStatements: true };
const COUNT = 1000;
const PER_MESSAGE = 100;
const DB = 'mtool_bench_shapes';

const create = (i) => `CREATE TABLE t_${i} (id integer primary key, name text)`;
const TRACKING = 'CREATE TABLE _m (filename varchar(255) primary key, version varchar(32) unique, checksum char(64) not null, execution_ms int not null, applied_at datetime(3) not null)';
const row = (i, msSql, appliedAtSql) => `('t_${i}.sql', '${String(i).padStart(4, '0')}', '${'a'.repeat(64)}', ${msSql}, ${appliedAtSql})`;
const rows = (values) => `INSERT INTO _m VALUES ${values.join(', ')}`;
const range = (from, n) => Array.from({ length: Math.min(n, COUNT - from + 1) }, (_, k) => from + k);

/** The messages of a shape, in order. */
function messages(shape) {
  const out = [];
  const size = shape.startsWith('after') ? Number(shape.slice(5)) : PER_MESSAGE;
  for (let from = 1; from <= COUNT; from += size) {
    const ids = range(from, size);
    if (shape === 'bare' || shape === 'floor') out.push(ids.map(create).join(';\n'));
    else if (shape === 'rows10') {
      const sql = [];
      for (let g = 0; g < ids.length; g += 10) {
        const group = ids.slice(g, g + 10);
        sql.push(...group.map(create), rows(group.map((i) => row(i, '0', 'UTC_TIMESTAMP(3)'))));
      }
      out.push(sql.join(';\n'));
    } else if (shape === 'mtool') {
      const steps = ids.map((i) => ({ sql: create(i), record: () => '' }));
      const recordMany = (recorded) => rows(recorded.map((r) => row(ids[r.step], r.elapsedMsSql, r.appliedAtSql)));
      out.push(recordGroupedPlan(steps, recordMany).sql.join(';\n'));
    } else {
      // after<N>: the rows as the client would write them once the message ended (times it measured).
      out.push(ids.map(create).join(';\n'));
      out.push(rows(ids.map((i) => row(i, String(i % 7), `UTC_TIMESTAMP(3) - INTERVAL ${i * 13} MICROSECOND`))));
    }
  }
  return out;
}

const admin = await mysql.createConnection(connection);
const times = Object.fromEntries(shapes.map((s) => [s, []]));
try {
  for (let round = 0; round < rounds; round++) {
    for (const shape of round % 2 ? [...shapes].reverse() : shapes) {
      const db = `${DB}_${shape}`;
      await admin.query(`DROP DATABASE IF EXISTS ${db}; CREATE DATABASE ${db}`);
      const conn = await mysql.createConnection({ ...connection, database: db });
      try {
        await conn.query(TRACKING);
        const sql = messages(shape);
        await mariadb.settle();
        const started = performance.now();
        if (shape === 'floor') {
          const args = ['-h', connection.host, '-P', String(connection.port), '-u', connection.user, db];
          execFileSync('mariadb', args, { input: `${sql.join(';\n')};\n`, env: { ...process.env, MYSQL_PWD: connection.password } });
        } else {
          for (const message of sql) await conn.query(message);
        }
        times[shape].push(performance.now() - started);
      } finally {
        await conn.end();
      }
    }
  }
} finally {
  for (const shape of shapes) await admin.query(`DROP DATABASE IF EXISTS ${DB}_${shape}`);
  await admin.end();
}

const median = (list) => [...list].sort((a, b) => a - b)[list.length >> 1];
const base = times.bare ? median(times.bare) : undefined;
console.log(`${COUNT} CREATE TABLEs, ${rounds} alternating rounds, ms (median, then every round sorted)`);
for (const shape of shapes) {
  const m = median(times[shape]);
  const vs = base ? `  ${m - base >= 0 ? '+' : ''}${(m - base).toFixed(0)} vs bare` : '';
  console.log(`  ${shape.padEnd(9)} ${m.toFixed(0).padStart(6)}${vs}   ${[...times[shape]].sort((a, b) => a - b).map((t) => t.toFixed(0)).join(' ')}`);
}
console.log(`server ${connection.host}:${connection.port}; ${new Date().toISOString()}`);
