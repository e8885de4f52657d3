// node-pg-migrate (PostgreSQL only) with SQL migration files (`-- Up Migration` / `-- Down
// Migration`), its CLI with default options (one transaction around the whole run, advisory lock,
// order check), its own `pgmigrations` table. It has no status command, so status is n/a.
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { upSql, downSql, version, indexes } from '../statements.mjs';

const require = createRequire(import.meta.url);

export default {
  name: 'node-pg-migrate',
  engines: ['postgresql'],
  trackingTable: 'pgmigrations',
  prepare({ dir, db, count }) {
    const migrations = join(dir, 'migrations');
    mkdirSync(migrations, { recursive: true });
    for (const i of indexes(count)) {
      writeFileSync(
        join(migrations, `${version(i)}_t_${i}.sql`),
        `-- Up Migration\n${upSql(i)};\n\n-- Down Migration\n${downSql(i)};\n`,
      );
    }
    const cli = join(dirname(require.resolve('node-pg-migrate/package.json')), 'bin', 'node-pg-migrate.js');
    const up = { cmd: process.execPath, args: [cli, 'up', '-m', migrations], cwd: dir, env: { DATABASE_URL: db.url.href } };
    return { apply: up, noop: up, status: undefined };
  },
};
