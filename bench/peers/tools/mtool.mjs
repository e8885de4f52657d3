// mtool as a user runs it: the built binary (`node dist/cli/bin.js`, the CLI bundle) in a project folder holding
// `mtool.config.ts` and `migrations/<db>/<db>__NNNN_t_i.sql` files with `-- upgrade` / `-- rollback`
// sections; its own `_mtool_migrations` table. Build first (`npm run build`).
// Two rows: `mtool` as it runs by default (a schema snapshot after every applied migration) and
// `mtool-defer` with `--defer-snapshots` (one snapshot at the end of the batch).
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { trash } from '../../lib/trash.mjs';
import { upSql, downSql, version, indexes } from '../statements.mjs';

export const repoRoot = resolve(fileURLToPath(new URL('../../..', import.meta.url)));
export const mtoolBin = join(repoRoot, 'dist', 'cli', 'bin.js');
const DB_NAME = 'bench';

/** The URL mtool's config takes for a fresh database of bench/peers/engines.mjs. */
export function mtoolUrl(db) {
  if (db.engine === 'sqlite') return `sqlite:///${db.file}`; // three slashes + absolute path
  const url = new URL(db.url.href);
  url.protocol = db.engine === 'postgresql' ? 'postgresql:' : 'mysql:';
  return url.href;
}

/** An mtool row; `flags` go to `migrate` (apply and no-op). */
export function mtoolTool(name, flags = []) {
  return {
    name,
    engines: ['postgresql', 'mariadb', 'sqlite'],
    trackingTable: '_mtool_migrations',
    /** A fresh apply starts without the snapshots and model state of the previous repetition (set aside: bench/lib/trash.mjs). */
    reset({ dir }) {
      trash(join(dir, '.mtool', 'schemas'));
      trash(join(dir, '.mtool', 'model_state.json'));
    },
    prepare: (args) => prepare(args, flags),
  };
}

function prepare({ dir, db, count }, flags) {
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
  const run = (...args) => ({ cmd: process.execPath, args: [mtoolBin, ...args], cwd: dir });
  return { apply: run('migrate', ...flags), noop: run('migrate', ...flags), status: run('status') };
}

export default mtoolTool('mtool');
export const mtoolDefer = mtoolTool('mtool-defer', ['--defer-snapshots']);
