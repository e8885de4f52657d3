import type { Connection, ServerSessions } from '../types.js';

/** Slack between a session's start and the age asked about: clocks of client hosts and server differ a little. */
const START_SLACK_MS = 10_000;

/**
 * PostgreSQL sessions seen from another one: pg_stat_activity lists every backend of the
 * cluster, also other users' (whose `backend_start` only a superuser or pg_read_all_stats sees).
 */
export const postgresServerSessions: ServerSessions = {
  async running(conn: Connection, id: number, olderThanMs: number): Promise<boolean | undefined> {
    if (!Number.isSafeInteger(id) || id <= 0) return undefined;
    let rows;
    try {
      // clock_timestamp(), not now(): the asking session may be inside a transaction.
      ({ rows } = await conn.query(
        `SELECT floor(EXTRACT(EPOCH FROM clock_timestamp() - backend_start) * 1000) AS age_ms FROM pg_stat_activity WHERE pid = ${id} AND pid <> pg_backend_pid()`,
      ));
    } catch {
      return undefined;
    }
    const row = rows[0];
    if (!row) return false;
    // Another user's backend, whose start is hidden: a backend with that pid runs, which may be it.
    if (row.age_ms === null || row.age_ms === undefined) return true;
    // Younger than the lock: the pid is another backend's now (the operating system reuses them).
    return Number(row.age_ms) + START_SLACK_MS >= olderThanMs;
  },
  endStatement: (id: number) => `SELECT pg_terminate_backend(${id})`,
};
