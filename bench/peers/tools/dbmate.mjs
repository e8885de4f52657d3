// dbmate, run as its Go binary (not the npm shim, which would add a Node start-up that dbmate
// users of the binary never pay). Idiomatic setup: `-- migrate:up` / `-- migrate:down` files,
// `--migrations-dir`, `--no-dump-schema`, its own `schema_migrations` table, one transaction per file.
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { upSql, downSql, version, indexes } from '../statements.mjs';

const require = createRequire(import.meta.url);

function binary() {
  const pkg = require.resolve(`@dbmate/${process.platform}-${process.arch === 'x64' ? 'x64' : process.arch}/package.json`);
  return join(dirname(pkg), 'bin', 'dbmate');
}

function dbmateUrl(db) {
  if (db.engine === 'sqlite') return `sqlite://${db.file}`;
  if (db.engine === 'mariadb') {
    const url = new URL(db.url.href);
    url.protocol = 'mysql:';
    return url.href;
  }
  const url = new URL(db.url.href);
  url.protocol = 'postgres:';
  url.searchParams.set('sslmode', 'disable');
  return url.href;
}

export default {
  name: 'dbmate',
  engines: ['postgresql', 'mariadb', 'sqlite'],
  trackingTable: 'schema_migrations',
  prepare({ dir, db, count }) {
    const migrations = join(dir, 'db', 'migrations');
    mkdirSync(migrations, { recursive: true });
    for (const i of indexes(count)) {
      writeFileSync(
        join(migrations, `${version(i)}_t_${i}.sql`),
        `-- migrate:up\n${upSql(i)};\n\n-- migrate:down\n${downSql(i)};\n`,
      );
    }
    const base = { cmd: binary(), cwd: dir };
    const args = (command) => ['--url', dbmateUrl(db), '--migrations-dir', migrations, '--no-dump-schema', command];
    return {
      apply: { ...base, args: args('migrate') },
      noop: { ...base, args: args('migrate') },
      status: { ...base, args: args('status') },
    };
  },
};
