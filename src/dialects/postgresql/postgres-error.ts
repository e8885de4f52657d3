import { MtoolError, type ErrorCode } from '../../errors.js';
import { describe, scrubError, type ErrorContext } from '../driver-error.js';

/**
 * A PostgreSQL error with the server's SQLSTATE and the 1-based character position of the
 * problem in the statement, when the server reported them.
 */
export class PostgresError extends MtoolError {
  /** SQLSTATE, e.g. `42P01` (undefined table). */
  readonly sqlState: string | undefined;
  /** 1-based character offset into the statement, from the server's `position`. */
  readonly position: number | undefined;
  readonly hint: string | undefined;

  constructor(code: ErrorCode, ctx: ErrorContext, cause: unknown, hint?: string) {
    const fields = (typeof cause === 'object' && cause !== null ? cause : {}) as { code?: unknown; position?: unknown; hint?: unknown };
    const serverHint = typeof fields.hint === 'string' ? fields.hint : undefined;
    super(code, describe(ctx, cause, hint ?? (serverHint ? `hint: ${serverHint}` : undefined)), { cause: scrubError(cause, ctx.secrets), database: ctx.databaseName });
    this.name = 'PostgresError';
    this.sqlState = typeof fields.code === 'string' && /^[0-9A-Z]{5}$/.test(fields.code) ? fields.code : undefined;
    this.position = fields.position === undefined ? undefined : Number(fields.position) || undefined;
    this.hint = serverHint;
  }
}
