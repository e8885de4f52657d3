import { randomBytes } from 'node:crypto';

/** `<32 hex>.s<server session id>`: the session part is optional (tokens written before it, SQLite, ClickHouse). */
const SESSION_PART = /\.s(\d{1,15})$/;

/**
 * A lock row's token: a random value identifying one acquisition (a process only ever releases
 * its own row), followed, where the connection has one, by the server session id of the
 * connection that runs the migrations (`0f3a….s1234`). The lock table keeps its layout (the token
 * is a varchar(64) column), so rows and tables written before this are read as ever.
 */
export function newLockToken(serverSession: number | undefined): string {
  const random = randomBytes(16).toString('hex');
  return serverSession !== undefined && Number.isSafeInteger(serverSession) && serverSession > 0 ? `${random}.s${serverSession}` : random;
}

/** The server session id a token carries ({@link newLockToken}); undefined for a token without one. */
export function tokenServerSession(token: string): number | undefined {
  const match = SESSION_PART.exec(token);
  return match ? Number(match[1]) : undefined;
}
