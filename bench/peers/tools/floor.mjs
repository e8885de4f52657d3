// The database's own floor: its CLI sending the same N statements from one file, in one go,
// with no tracking table. Nothing a migration tool does can be cheaper than this.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { upSql, indexes } from '../statements.mjs';

/**
 * A row run by the database's own CLI from one file of statements (`text(count)`), each in
 * autocommit; no no-op or status command.
 */
export function cliTool({ name, describe, trackingTable, text }) {
  return {
    name,
    engines: ['postgresql', 'mariadb', 'sqlite'],
    trackingTable,
    describe,
    prepare({ dir, db, count }) {
      const file = join(dir, 'statements.sql');
      writeFileSync(file, text(count));
      return { apply: command(db, file, dir), noop: undefined, status: undefined };
    },
  };
}

export default cliTool({
  name: 'floor',
  describe: { postgresql: 'psql -q -f', mariadb: 'mariadb < file', sqlite: 'sqlite3 db < file' },
  trackingTable: undefined,
  text: (count) => indexes(count).map((i) => `${upSql(i)};\n`).join(''),
});

/** The database's CLI reading `file` (one statement after another, each in autocommit). */
function command(db, file, cwd) {
  if (db.engine === 'postgresql') {
    return { cmd: 'psql', args: ['-q', '-X', '-v', 'ON_ERROR_STOP=1', '-f', file, db.url.href], cwd };
  }
  if (db.engine === 'mariadb') {
    const env = db.url.password ? { MYSQL_PWD: decodeURIComponent(db.url.password) } : {};
    const args = ['-h', db.url.hostname, '-P', db.url.port || '3306', '-u', decodeURIComponent(db.url.username || 'root')];
    return { cmd: 'mariadb', args: [...args, db.name], cwd, env, stdinFile: file };
  }
  return { cmd: 'sqlite3', args: [db.file], cwd, stdinFile: file };
}
