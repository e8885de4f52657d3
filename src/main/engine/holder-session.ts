import type { Connection, Dialect } from '../../dialects/types.js';
import type { LockHolder } from './types.js';

/**
 * What the server tells of a lock holder's server session ({@link LockHolder.serverSession}). A
 * killed run's session goes on with what the run sent (MySQL and MariaDB run a whole message of
 * migrations; PostgreSQL notices the client is gone only when it next writes to it), so a lock
 * whose holder process is gone is not free while it runs.
 */
export interface HolderSession {
  id: number;
  /** Undefined when the server cannot tell. */
  running: boolean | undefined;
  /** The statement that ends the session, for the user to run. */
  endStatement: string;
}

/**
 * Ask the server, on `conn`, whether the holder's session still runs. Undefined when the lock row
 * names no session or the dialect's sessions have none.
 */
export async function lookAtHolderSession(conn: Connection, dialect: Dialect, holder: LockHolder): Promise<HolderSession | undefined> {
  const id = holder.serverSession;
  const sessions = dialect.serverSessions;
  if (id === undefined || !sessions) return undefined;
  // The holder's session was opened before it took the lock: it is at least as old as the lock.
  const heldForMs = Math.max(0, Date.now() - Date.parse(holder.lockedAt));
  const running = await sessions.running(conn, id, Number.isFinite(heldForMs) ? heldForMs : 0).catch(() => undefined);
  return { id, running, endStatement: sessions.endStatement(id) };
}

/** What to do while the session of a holder whose process is gone still runs. */
export function sessionStillRunsAdvice(session: HolderSession, unlock: string): string {
  return (
    `Its database session ${session.id} is still running on the server (it goes on with what the run sent even after the run was killed): ` +
    `wait until it ends, or end it (\`${session.endStatement}\`), and only then release the lock with ${unlock}.`
  );
}

/** Beside a holder process that still runs: stopping it does not stop its session. */
export function sessionRunsTooAdvice(session: HolderSession): string {
  return `Its database session ${session.id} is running on the server too; a killed run's session goes on with what the run sent: end it as well (\`${session.endStatement}\`), or wait until it ends, before releasing the lock.`;
}
