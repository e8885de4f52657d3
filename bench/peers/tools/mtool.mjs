// mtool as a user runs it: the built binary (`node dist/main/bin.js`) in a project folder holding
// `mtool.config.ts` and `migrations/<db>/<db>__NNNN_t_i.sql` files with `-- upgrade` / `-- rollback`
// sections; its own `_mtool_migrations` table. Build first (`npm run build`).
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { upSql, downSql, version, indexes } from '../statements.mjs';

export const repoRoot = resolve(fileURLToPath(new URL('../../..', import.meta.url)));
export const mtoolBin = join(repoRoot, 'dist', 'main', 'bin.js');
const DB_NAME = 'bench';

function mtoolUrl(db) {
  if (db.engine === 'sqlite') return `sqlite:///${db.file}`; // three slashes + absolute path
  const url = new URL(db.url.href);
  url.protocol = db.engine === 'postgresql' ? 'postgresql:' : 'mysql:';
  return url.href;
}

export default {
  name: 'mtool',
  engines: ['postgresql', 'mariadb', 'sqlite'],
  trackingTable: '_mtool_migrations',
  prepare({ dir, db, count }) {
    if (!existsSync(mtoolBin)) throw new Error(`${mtoolBin} is missing: run \`npm run build\` first`);
    const migrations = join(dir, 'migrations', DB_NAME);
    mkdirSync(migrations, { recursive: true });
    for (const i of indexes(count)) {
      writeFileSync(
        join(migrations, `${DB_NAME}__${version(i)}_t_${i}.sql`),
        `-- upgrade\n${upSql(i)};\n\n-- rollback\n${downSql(i)};\n`,
      );
    }
    writeFileSync(
      join(dir, 'mtool.config.ts'),
      `import { databaseConfig } from 'mtool';\n\n` +
        `databaseConfig({\n  databaseName: '${DB_NAME}',\n  default: true,\n` +
        `  databaseType: '${db.engine}',\n  databaseUrl: '${mtoolUrl(db)}',\n});\n`,
    );
    const run = (command) => ({ cmd: process.execPath, args: [mtoolBin, command], cwd: dir });
    return { apply: run('migrate'), noop: run('migrate'), status: run('status') };
  },
};
