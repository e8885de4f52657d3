import { MtoolError, type ErrorCode } from '../../errors.js';
import { describe, scrub, scrubError, type ErrorContext } from '../driver-error.js';

/** What to do about a server error whose own message does not say, by SQLSTATE. */
const MTOOL_HINTS: Readonly<Record<string, string>> = {
  // invalid_transaction_termination: COMMIT or ROLLBACK in a procedure or DO block that runs in a transaction block.
  '2D000': "the procedure or DO block commits or rolls back, which it cannot do inside the migration's transaction: mark the file '-- mtool: no-transaction'",
  // read_only_sql_transaction.
  '25006': 'this session may not write: the server is a standby (a read replica), or default_transaction_read_only is on for this database or user; point the URL at the primary',
};

/**
 * A PostgreSQL error with the server's SQLSTATE and the 1-based character position of the
 * problem in the statement, when the server reported them.
 */
export class PostgresError extends MtoolError {
  /** SQLSTATE, e.g. `42P01` (undefined table). */
  readonly sqlState: string | undefined;
  /** 1-based character offset into the statement, from the server's `position`. */
  readonly position: number | undefined;
  /** The server's HINT (already part of the message). */
  readonly serverHint: string | undefined;

  constructor(code: ErrorCode, ctx: ErrorContext, cause: unknown, hint?: string) {
    const fields = (typeof cause === 'object' && cause !== null ? cause : {}) as { code?: unknown; position?: unknown; hint?: unknown; detail?: unknown };
    const serverHint = typeof fields.hint === 'string' ? fields.hint : undefined;
    const sqlState = typeof fields.code === 'string' && /^[0-9A-Z]{5}$/.test(fields.code) ? fields.code : undefined;
    const ownHint = sqlState === undefined ? undefined : MTOOL_HINTS[sqlState];
    // The server's DETAIL says which row or object ('Key (id)=(1) is duplicated.'), as psql shows it.
    const detail = typeof fields.detail === 'string' && fields.detail !== '' ? `detail: ${scrub(fields.detail, ctx.secrets)}` : undefined;
    const hints = [detail, hint ?? (serverHint ? `hint: ${serverHint}` : ownHint)].filter((h) => h !== undefined).join('; ');
    super(code, describe(ctx, cause, hints === '' ? undefined : hints), { cause: scrubError(cause, ctx.secrets), database: ctx.databaseName });
    this.name = 'PostgresError';
    this.sqlState = sqlState;
    this.position = fields.position === undefined ? undefined : Number(fields.position) || undefined;
    this.serverHint = serverHint;
  }
}
