import { chainHasCode } from './error-chain.js';

/** Node's codes for a server that could not be reached at all: refused, no such host, no route, timed out. */
const UNREACHABLE = ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT'] as const;

/** Where a connection was going, and the driver's error codes that tell why it failed there. */
export interface ConnectTarget {
  /** As users know the server: `PostgreSQL`, `MariaDB`, `ClickHouse`. */
  product: string;
  host: string;
  port: number;
  /** The statement that creates the URL's database, for the hint when it does not exist. */
  createDatabase: string;
  /** Codes (SQLSTATE, errno, server code) meaning the database does not exist. */
  unknownDatabase: readonly (string | number)[];
  /**
   * Codes meaning the user logged in but may not use the URL's database, which the server also
   * says of a database that does not exist (MySQL and MariaDB to a user without global rights).
   */
  deniedDatabase?: readonly (string | number)[];
  /** The statement that gives the user the database, for that hint. */
  grantDatabase?: string;
  /** Codes meaning the login was refused: unknown user, wrong or missing password, no rule admitting it. */
  refusedLogin: readonly (string | number)[];
  /** What else decides a login besides the user and password (PostgreSQL: pg_hba.conf). */
  loginRules?: string;
  /** The hint when the error tells none of the above (a TLS failure, say). */
  otherwise: string;
}

/**
 * What to check or do after a connection failed, from what its error tells: the server not
 * reached at the URL's host and port, the URL's database missing (with the statement that
 * creates it), or the login refused. One sentence, appended to the driver's message.
 */
export function connectHint(error: unknown, target: ConnectTarget): string {
  if (chainHasCode(error, UNREACHABLE)) {
    return `check that ${target.product} is running and accepts connections at ${target.host}:${target.port} (the URL's host and port)`;
  }
  if (chainHasCode(error, target.unknownDatabase)) {
    return `create the database first (${target.createDatabase}) or correct its name in the URL`;
  }
  if (target.deniedDatabase && chainHasCode(error, target.deniedDatabase)) {
    return `the user and password were accepted, but the database is missing or the user may not use it: create it (${target.createDatabase}) or give the user its rights (${target.grantDatabase ?? 'GRANT'}), or correct its name in the URL`;
  }
  if (chainHasCode(error, target.refusedLogin)) {
    return `check the user and password in the URL${target.loginRules ? ` and ${target.loginRules}` : ''}`;
  }
  return target.otherwise;
}
