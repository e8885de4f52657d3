// knex through its CLI, the way a knex project runs migrations: a knexfile, one CommonJS file per
// migration whose up/down send the SQL with `knex.raw`, its own `knex_migrations` table and lock
// table. knex's default for `migrate:latest` wraps the whole batch in ONE transaction when every
// migration is transactional (Migrator `transactionForAll`): on SQLite that is one commit for 1000.
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { upSql, downSql, version, indexes } from '../statements.mjs';

const require = createRequire(import.meta.url);

function knexConfig(db) {
  if (db.engine === 'postgresql') return { client: 'pg', connection: db.url.href };
  if (db.engine === 'mariadb') {
    const url = db.url;
    return {
      client: 'mysql2',
      connection: {
        host: url.hostname,
        port: Number(url.port || 3306),
        user: decodeURIComponent(url.username || 'root'),
        password: decodeURIComponent(url.password),
        database: db.name,
      },
    };
  }
  return { client: 'better-sqlite3', connection: { filename: db.file }, useNullAsDefault: true };
}

export default {
  name: 'knex',
  engines: ['postgresql', 'mariadb', 'sqlite'],
  trackingTable: 'knex_migrations',
  prepare({ dir, db, count }) {
    const migrations = join(dir, 'migrations');
    mkdirSync(migrations, { recursive: true });
    for (const i of indexes(count)) {
      writeFileSync(
        join(migrations, `${version(i)}_t_${i}.cjs`),
        `exports.up = (knex) => knex.raw(${JSON.stringify(upSql(i))});\n` +
          `exports.down = (knex) => knex.raw(${JSON.stringify(downSql(i))});\n`,
      );
    }
    const config = { ...knexConfig(db), migrations: { directory: migrations, loadExtensions: ['.cjs'] } };
    const knexfile = join(dir, 'knexfile.cjs');
    writeFileSync(knexfile, `module.exports = ${JSON.stringify(config, null, 2)};\n`);
    const cli = join(dirname(require.resolve('knex/package.json')), 'bin', 'cli.js');
    const run = (command) => ({ cmd: process.execPath, args: [cli, '--knexfile', knexfile, command], cwd: dir });
    return { apply: run('migrate:latest'), noop: run('migrate:latest'), status: run('migrate:status') };
  },
};
