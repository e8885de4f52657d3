import { MtoolError, type ErrorCode } from '../../errors.js';
import { describe, scrubError, type ErrorContext } from '../driver-error.js';

/** mtool's own advice for server errors whose text does not say what to do, by error number. */
const MTOOL_HINTS: Readonly<Record<number, string>> = {
  // ER_NET_PACKET_TOO_LARGE: the server refused the statement and closed the session.
  1153: "the statement is larger than the server's max_allowed_packet: split it (several INSERTs of fewer rows each) or raise max_allowed_packet on the server",
  // ER_OPTION_PREVENTS_STATEMENT (--read-only, --super-read-only), ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION.
  1290: 'the server runs with an option that refuses this statement (read_only on a replica, most often): point the URL at the primary',
  1792: 'this session may not write (a read-only transaction): point the URL at the primary, or check the session characteristics the URL or the server sets',
};

/** A MySQL / MariaDB error with the server's error number and SQLSTATE, when it sent them. */
export class MysqlError extends MtoolError {
  /** Server error number, e.g. 1146 (no such table). */
  readonly errno: number | undefined;
  /** SQLSTATE, e.g. `42S02`. */
  readonly sqlState: string | undefined;

  constructor(code: ErrorCode, ctx: ErrorContext, cause: unknown, hint?: string) {
    const fields = (typeof cause === 'object' && cause !== null ? cause : {}) as { errno?: unknown; sqlState?: unknown };
    const errno = typeof fields.errno === 'number' ? fields.errno : undefined;
    super(code, describe(ctx, cause, hint ?? (errno === undefined ? undefined : MTOOL_HINTS[errno])), { cause: scrubError(cause, ctx.secrets), database: ctx.databaseName });
    this.name = 'MysqlError';
    this.errno = errno;
    this.sqlState = typeof fields.sqlState === 'string' ? fields.sqlState : undefined;
  }
}
