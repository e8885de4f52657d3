import { errorChain } from '../../dialects/error-chain.js';
import type { Connection, Dialect, TrackingSql } from '../../dialects/types.js';
import { MtoolError } from '../../errors.js';
import { LOCK_TABLE } from '../fixed-tables.js';

/** The columns mtool reads and writes in its lock table, per {@link TrackingSql.writeMode}. */
const LOCK_COLUMNS: Readonly<Record<TrackingSql['writeMode'], readonly string[]>> = {
  sql: ['id', 'locked_at', 'host', 'pid', 'command', 'token'],
  append: ['token', 'locked_at', 'host', 'pid', 'command', 'seq', 'deleted'],
};

/**
 * What to throw after a statement on the lock table failed with `error`: where the table lacks
 * columns mtool needs (made by another tool, or by another version of mtool: `CREATE TABLE IF
 * NOT EXISTS` left it as it was), an error saying so and what to do, instead of the server's
 * "unknown column 'host'"; else `error` itself. Only asked after a failure that speaks of a
 * column or identifier (every server's message for a missing one does, ClickHouse 18.16's
 * "Unknown identifier"; a busy SQLite file must not be waited for again): one probe per
 * column, each reading no row.
 */
export async function lockLayoutError(conn: Connection, dialect: Dialect, writeMode: TrackingSql['writeMode'], error: unknown): Promise<unknown> {
  if (![...errorChain(error)].some((e) => /column|identifier/i.test(String(e.message ?? '')))) return error;
  const table = dialect.quote.ident(LOCK_TABLE);
  const readable = (what: string) =>
    conn.query(`SELECT ${what} FROM ${table} LIMIT 0`).then(
      () => true,
      () => false,
    );
  // A table that cannot be read at all (missing, no rights, the connection gone): not a layout problem.
  if (!(await readable('1'))) return error;
  const missing: string[] = [];
  for (const column of LOCK_COLUMNS[writeMode]) if (!(await readable(dialect.quote.ident(column)))) missing.push(column);
  if (missing.length === 0) return error;
  const database = conn.databaseName;
  return new MtoolError(
    'MTOOL_DATABASE',
    `database '${database}': mtool's lock table ${LOCK_TABLE} has no column${missing.length === 1 ? '' : 's'} ${missing.join(', ')}: ` +
      `it was made by another tool or another version of mtool, and mtool cannot tell from it whether the lock is held. ` +
      `Make sure no migration is running on '${database}', then drop it (DROP TABLE ${LOCK_TABLE}); the next migrate creates it again.`,
    { database, cause: error, hint: '' },
  );
}
