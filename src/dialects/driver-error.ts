import { MtoolError, type ErrorCode } from '../errors.js';
import { scrubSecrets } from '../net/connection-url.js';
import { maskSqlSecrets } from '../net/sql-secrets.js';
import type { DatabaseType } from './types.js';

/** Who an error is about: every driver error message names the dialect and the database. */
export interface ErrorContext {
  readonly type: DatabaseType;
  readonly databaseName: string;
  /** Values that must never appear in a message: `urlSecrets(url)` (the password, raw and decoded). */
  readonly secrets: readonly string[];
}

/** Remove every known secret (raw and percent-encoded) and the password literals of SQL it quotes from a text. */
export function scrub(text: string, secrets: readonly string[]): string {
  return scrubSecrets(maskSqlSecrets(text), secrets);
}

/** The driver's own message, or a description of a non-Error value. */
export function driverMessage(error: unknown): string {
  if (error instanceof Error) {
    // AggregateError (e.g. ECONNREFUSED on both ::1 and 127.0.0.1) has an empty message.
    if (error.message === '' && error instanceof AggregateError && error.errors.length > 0) return driverMessage(error.errors[0]);
    if (error.message !== '') return error.message;
    const code = (error as { code?: unknown }).code;
    return typeof code === 'string' ? code : error.name;
  }
  return String(error);
}

/**
 * Scrub a driver error in place (message and stack) so that keeping it as `cause` cannot leak a
 * password when the cause chain is printed.
 */
export function scrubError<T>(error: T, secrets: readonly string[]): T {
  if (error instanceof Error) {
    try {
      error.message = scrub(error.message, secrets);
      if (error.stack) error.stack = scrub(error.stack, secrets);
    } catch {
      // Frozen or exotic error objects: the message built from it is scrubbed anyway.
    }
  }
  return error;
}

/**
 * Wrap a driver error as an MtoolError: `<dialect> (<database>): <driver message>[; <hint>]`,
 * scrubbed of secrets, keeping the (scrubbed) driver error as `cause`.
 * @example wrapDriverError('MTOOL_DATABASE', ctx, err) // postgresql (app): relation "x" does not exist
 */
export function wrapDriverError(code: ErrorCode, ctx: ErrorContext, error: unknown, hint?: string): MtoolError {
  if (error instanceof MtoolError) return error;
  return new MtoolError(code, describe(ctx, error, hint), { cause: scrubError(error, ctx.secrets), database: ctx.databaseName });
}

/** The message {@link wrapDriverError} builds, for dialects that raise a subclass. */
export function describe(ctx: ErrorContext, error: unknown, hint?: string): string {
  const message = scrub(driverMessage(error), ctx.secrets).trim();
  return `${ctx.type} (${ctx.databaseName}): ${message}${hint ? `; ${hint}` : ''}`;
}
