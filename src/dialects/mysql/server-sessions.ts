import type { Connection, ServerSessions } from '../types.js';

/** Slack between the server's start and the age asked about: clocks of client hosts and server differ a little. */
const START_SLACK_MS = 10_000;

/**
 * MySQL and MariaDB sessions seen from another one: the processlist shows a user its own threads,
 * and everyone's only with the PROCESS privilege, so a thread it does not list is gone only for
 * a user who holds that privilege. Thread ids grow until the server restarts.
 */
export const mysqlServerSessions: ServerSessions = {
  async running(conn: Connection, id: number, olderThanMs: number): Promise<boolean | undefined> {
    if (!Number.isSafeInteger(id) || id <= 0) return undefined;
    let found: boolean;
    let seesAll: boolean;
    try {
      const { rows } = await conn.query(
        `SELECT (SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID = ${id} AND ID <> CONNECTION_ID()) AS found, ` +
          `(SELECT COUNT(*) FROM information_schema.USER_PRIVILEGES WHERE PRIVILEGE_TYPE = 'PROCESS' ` +
          `AND GRANTEE = CONCAT('''', SUBSTRING_INDEX(CURRENT_USER(), '@', 1), '''@''', SUBSTRING_INDEX(CURRENT_USER(), '@', -1), '''')) AS sees_all`,
      );
      found = Number(rows[0]?.found ?? 0) > 0;
      seesAll = Number(rows[0]?.sees_all ?? 0) > 0;
    } catch {
      return undefined;
    }
    // A server started after the lock was taken has none of its sessions: an id it lists is another's.
    const uptimeMs = await serverUptimeMs(conn);
    if (uptimeMs !== undefined && uptimeMs + START_SLACK_MS < olderThanMs) return false;
    return found ? true : seesAll ? false : undefined;
  },
  // `KILL` ends the connection (`KILL CONNECTION`), its running statement with it.
  endStatement: (id: number) => `KILL ${id}`,
};

async function serverUptimeMs(conn: Connection): Promise<number | undefined> {
  try {
    const { rows } = await conn.query("SHOW GLOBAL STATUS LIKE 'Uptime'");
    const seconds = Number(rows[0]?.Value ?? rows[0]?.VALUE);
    return Number.isFinite(seconds) ? seconds * 1000 : undefined;
  } catch {
    return undefined;
  }
}
