/**
 * Every error mtool raises on purpose is an {@link MtoolError} with a stable `code` from
 * {@link ERROR_CODES}. Callers branch on `code` (or on the few subclasses the spec names),
 * never on message text. Only the CLI entry turns an error into an exit code.
 */

/** Exit codes (DESIGN.md section 5). */
export const EXIT = {
  /** Success. */
  ok: 0,
  /** The operation failed: migration error, checksum mismatch, lock held, findings, unknown plugin. */
  failed: 1,
  /** Usage or configuration error. */
  usage: 2,
  /** Partial success: optional (`skipIfMissing`) databases were skipped. */
  partial: 3,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/**
 * The one table of error codes: code → exit code and what it means.
 * Add a row here before raising a new code anywhere.
 */
export const ERROR_CODES = {
  MTOOL_CONFIG: { exit: EXIT.usage, meaning: 'configuration is missing or invalid' },
  MTOOL_USAGE: { exit: EXIT.usage, meaning: 'a command was called with bad arguments or options' },
  MTOOL_URL: { exit: EXIT.usage, meaning: 'a connection URL is malformed or has a bad option' },
  MTOOL_MIGRATION_FILE: { exit: EXIT.usage, meaning: 'a migration file or directory is malformed' },
  MTOOL_SQL_SYNTAX: { exit: EXIT.usage, meaning: 'SQL could not be split (unterminated string, comment or quote)' },
  MTOOL_FILE_EXISTS: { exit: EXIT.usage, meaning: 'a file or version that would be created already exists' },
  MTOOL_PLUGIN_MISSING: { exit: EXIT.failed, meaning: 'a command needs a plugin that is not installed' },
  MTOOL_CONNECTION: { exit: EXIT.failed, meaning: 'a database could not be reached' },
  MTOOL_DRIVER_MISSING: { exit: EXIT.failed, meaning: 'the npm package for a database type is not installed' },
  MTOOL_LOCKED: { exit: EXIT.failed, meaning: 'the migration lock is held by another process' },
  MTOOL_CHECKSUM_MISMATCH: { exit: EXIT.failed, meaning: 'an applied migration file was changed' },
  MTOOL_MIGRATION_FAILED: { exit: EXIT.failed, meaning: 'a migration statement failed' },
  MTOOL_ROLLBACK: { exit: EXIT.failed, meaning: 'a rollback or downgrade cannot be done' },
  MTOOL_DATABASE: { exit: EXIT.failed, meaning: 'the database returned an error' },
  MTOOL_SNAPSHOT: { exit: EXIT.failed, meaning: 'a schema snapshot or model state file is unusable' },
  MTOOL_MODEL: { exit: EXIT.usage, meaning: 'a model definition is invalid' },
  MTOOL_NOT_FOUND: { exit: EXIT.failed, meaning: 'a named table, migration or object does not exist' },
  MTOOL_INTERNAL: { exit: EXIT.failed, meaning: 'a bug in mtool; please report it with --debug output' },
} as const satisfies Record<string, { exit: ExitCode; meaning: string }>;
export type ErrorCode = keyof typeof ERROR_CODES;

export interface MtoolErrorOptions {
  cause?: unknown;
  /** Overrides the exit code of the code's row (rarely needed). */
  exit?: ExitCode;
  /** Database the error concerns, shown in logs as `db_name`. */
  database?: string;
  /** The next step, shown as `hint:` instead of the code's general one; '' for none (the message says it). */
  hint?: string;
}

/** Base of every error mtool raises on purpose. */
export class MtoolError extends Error {
  readonly code: ErrorCode;
  readonly exitCode: ExitCode;
  readonly database: string | undefined;

  constructor(code: ErrorCode, message: string, options: MtoolErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'MtoolError';
    this.code = code;
    this.exitCode = options.exit ?? ERROR_CODES[code].exit;
    this.database = options.database;
    if (options.hint !== undefined) this.hint = options.hint;
  }

  /** See {@link MtoolErrorOptions.hint}. */
  readonly hint?: string;
}

/** Configuration validation failures and invalid model options (spec: MtoolConfigError). */
export class MtoolConfigError extends MtoolError {
  constructor(message: string, options: MtoolErrorOptions = {}) {
    super('MTOOL_CONFIG', message, options);
    this.name = 'MtoolConfigError';
  }
}

/** The migration lock is held (spec: LockError). */
export class LockError extends MtoolError {
  constructor(message: string, options: MtoolErrorOptions = {}) {
    super('MTOOL_LOCKED', message, options);
    this.name = 'LockError';
  }
}

/** An applied versioned migration changed on disk (spec: ChecksumMismatchError). */
export class ChecksumMismatchError extends MtoolError {
  constructor(message: string, options: MtoolErrorOptions = {}) {
    super('MTOOL_CHECKSUM_MISMATCH', message, options);
    this.name = 'ChecksumMismatchError';
  }
}

/** Position of a problem inside a text (1-based line and column). */
export interface SourcePosition {
  line: number;
  column: number;
  offset: number;
}

/** SQL could not be split: carries the position of the unterminated construct. */
export class SqlSyntaxError extends MtoolError {
  readonly position: SourcePosition;
  readonly file: string | undefined;
  constructor(message: string, position: SourcePosition, file?: string) {
    super('MTOOL_SQL_SYNTAX', `${file ? `${file}:` : ''}${position.line}:${position.column}: ${message}`);
    this.name = 'SqlSyntaxError';
    this.position = position;
    this.file = file;
  }
}

/**
 * The run was interrupted (Ctrl-C / SIGTERM: the signal's reason) before or while it worked on
 * `database`; `detail` says what that means for it.
 */
export function interruptedError(signal: AbortSignal, database: string, detail?: string): MtoolError {
  const reason = signal.reason instanceof Error ? signal.reason.message : String(signal.reason ?? 'interrupted');
  return new MtoolError('MTOOL_MIGRATION_FAILED', `interrupted (${reason})${detail ? `: ${detail}` : ''}`, { database });
}

export function isMtoolError(e: unknown): e is MtoolError {
  return e instanceof MtoolError || (typeof e === 'object' && e !== null && typeof (e as { code?: unknown }).code === 'string' && String((e as { code: string }).code).startsWith('MTOOL_') && 'exitCode' in e);
}

/** The database could not be reached, or the session to it was lost (`MTOOL_CONNECTION`): not a statement's own failure. */
export function isConnectionError(e: unknown): e is MtoolError {
  return isMtoolError(e) && e.code === 'MTOOL_CONNECTION';
}
