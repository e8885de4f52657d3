import { MtoolError, type ErrorCode } from '../../errors.js';
import { driverMessage, scrub, scrubError, type ErrorContext } from '../driver-error.js';

/** What a ClickHouse server said, whatever its version. */
export interface ClickHouseErrorInfo {
  /** The server's numeric error code, e.g. 62 (syntax error), 60 (unknown table). */
  serverCode: number;
  /** The symbolic name, e.g. `SYNTAX_ERROR`; only servers from ~20.x on send it. */
  serverType: string | undefined;
  /** The message without the `Code: …`, `DB::Exception:`, `(TYPE)`, `(version …)` or `e.what()` decorations. */
  message: string;
}

// 18.x: `Code: 62, e.displayText() = DB::Exception: <message>, e.what() = DB::Exception`, and for
// errors of the server's network and file library (`url()` refused, a part's file missing):
// `Poco::Exception. Code: 1000, e.code() = 111, e.displayText() = Connection refused, e.what() = Connection refused`
const OLD_FORMAT = /Code:\s*(\d+),\s*(?:e\.code\(\)\s*=\s*-?\d+,\s*)?e\.displayText\(\)\s*=\s*(?:[\w:]*Exception:\s*)?([\s\S]*?)(?:,\s*e\.what\(\)\s*=\s*[^,]+?\s*)?$/;
// current: `Code: 62. DB::Exception: <message>. (SYNTAX_ERROR) (version 24.3.2.23 (official build))`
const NEW_FORMAT = /Code:\s*(\d+)\.\s*(?:[\w:]*Exception):\s*([\s\S]*?)(?:\s*\(([A-Z][A-Z0-9_]{2,})\))?(?:\s*\(version [^()]*(?:\([^()]*\)[^()]*)*\))?\.?\s*$/;

/**
 * A stack trace a server puts inside some messages (chdb's failed mutation: `0. ? @ 0x000000000f03c72c`,
 * one line a frame, before the message's `(UNFINISHED)`): of no use to a migration's author.
 */
const STACK_TRACE = /\s*\n(?:\s*\d+\.\s[^\n]*@ 0x[0-9a-f]+[^\n]*(?:\n|$))+\s*/g;

/**
 * Parse a ClickHouse error text in the old (18.x, `Code: 62, e.displayText() = …`) or the
 * current (`Code: 62. DB::Exception: … (SYNTAX_ERROR)`) format into one shape.
 * @returns undefined when the text is not a ClickHouse server error (a network error, say).
 * @example parseClickHouseError('Code: 60, e.displayText() = DB::Exception: Table x doesn\'t exist., e.what() = DB::Exception')
 *   // { serverCode: 60, serverType: undefined, message: "Table x doesn't exist" }
 */
export function parseClickHouseError(text: string): ClickHouseErrorInfo | undefined {
  const trimmed = text.replace(STACK_TRACE, ' ').trim();
  const old = OLD_FORMAT.exec(trimmed);
  if (old) return { serverCode: Number(old[1]), serverType: undefined, message: clean(old[2]!) };
  const current = NEW_FORMAT.exec(trimmed);
  if (current) return { serverCode: Number(current[1]), serverType: current[3], message: clean(current[2]!) };
  return undefined;
}

function clean(message: string): string {
  return message.trim().replace(/\s*\.$/, '');
}

/**
 * A ClickHouse server error, the same for old and current servers and for both transports
 * (HTTP, chdb): `clickhouse (<db>): <message>`, with `serverCode` and `serverType`.
 */
export class ClickHouseError extends MtoolError {
  readonly serverCode: number | undefined;
  readonly serverType: string | undefined;
  /** The server's message, decorations removed (scrubbed). */
  readonly serverMessage: string;

  constructor(code: ErrorCode, ctx: ErrorContext, cause: unknown, hint?: string) {
    const info = infoOf(cause);
    const serverMessage = scrub(info?.message ?? driverMessage(cause), ctx.secrets).trim();
    super(code, `${ctx.type} (${ctx.databaseName}): ${serverMessage}${hint ? `; ${hint}` : ''}`, { cause: scrubError(cause, ctx.secrets), database: ctx.databaseName });
    this.name = 'ClickHouseError';
    this.serverCode = info?.serverCode;
    this.serverType = info?.serverType;
    this.serverMessage = serverMessage;
  }
}

/** The engine's error code in a driver error; undefined when the engine did not answer (refused, reset, timed out). */
export function serverCodeOf(error: unknown): number | undefined {
  return infoOf(error)?.serverCode;
}

/** The server error inside a driver error: @clickhouse/client already splits current-format errors. */
function infoOf(error: unknown): ClickHouseErrorInfo | undefined {
  const parsed = parseClickHouseError(driverMessage(error));
  if (parsed) return parsed;
  const fields = (typeof error === 'object' && error !== null ? error : {}) as { code?: unknown; type?: unknown; clickhouseCode?: unknown };
  const code = Number(fields.clickhouseCode ?? fields.code);
  if (typeof fields.type === 'string' && Number.isInteger(code) && code > 0) {
    return { serverCode: code, serverType: fields.type, message: clean(driverMessage(error)) };
  }
  return undefined;
}
