import { MtoolError, type ErrorCode } from '../../errors.js';
import { describe, scrubError, type ErrorContext } from '../driver-error.js';

/** A MySQL / MariaDB error with the server's error number and SQLSTATE, when it sent them. */
export class MysqlError extends MtoolError {
  /** Server error number, e.g. 1146 (no such table). */
  readonly errno: number | undefined;
  /** SQLSTATE, e.g. `42S02`. */
  readonly sqlState: string | undefined;

  constructor(code: ErrorCode, ctx: ErrorContext, cause: unknown, hint?: string) {
    const fields = (typeof cause === 'object' && cause !== null ? cause : {}) as { errno?: unknown; sqlState?: unknown };
    super(code, describe(ctx, cause, hint), { cause: scrubError(cause, ctx.secrets), database: ctx.databaseName });
    this.name = 'MysqlError';
    this.errno = typeof fields.errno === 'number' ? fields.errno : undefined;
    this.sqlState = typeof fields.sqlState === 'string' ? fields.sqlState : undefined;
  }
}
