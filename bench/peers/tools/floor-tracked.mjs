// A reference, not a peer: the database's own CLI (as in floor.mjs) sending each migration's
// statement followed by an INSERT of its tracking row, every statement in autocommit: the least a
// tool that durably records each migration once it ran must send. Its ratio to the floor is the
// share of the gap that recording costs on this machine (one more commit per migration, with
// its log flush), whichever tool does it.
import { upSql, version, indexes } from '../statements.mjs';
import { cliTool } from './floor.mjs';

const TABLE = 'floor_migrations';
const record = (i) => `INSERT INTO ${TABLE} (version, applied_at) VALUES ('${version(i)}', '1970-01-01T00:00:00.000Z');\n`;

export default cliTool({
  name: 'floor-tracked',
  describe: { postgresql: 'psql, + a row each', mariadb: 'mariadb, + a row each', sqlite: 'sqlite3, + a row each' },
  trackingTable: TABLE,
  text: (count) =>
    `CREATE TABLE ${TABLE} (version varchar(32) PRIMARY KEY, applied_at varchar(32) NOT NULL);\n` +
    indexes(count).map((i) => `${upSql(i)};\n${record(i)}`).join(''),
});
