import { STATUS_CODES } from 'node:http';

/**
 * Errors of the HTTP transport that the client library reports badly: a timeout as "The user
 * aborted a request." or "Timeout error.", an error answer without a ClickHouse error in it as
 * its bare (often empty) body. Kept apart from the transport so the driver can tell them apart
 * for its hint without loading the client library.
 */

/** The URL option that bounded a wait, and whether the URL set it or its default applied. */
export interface TimeoutSource {
  option: 'connect_timeout' | 'receive_timeout';
  seconds: number;
  fromUrl: boolean;
}

/** No answer came within a bound mtool set: says which bound, and where it came from. */
export class RequestTimeoutError extends Error {
  readonly source: TimeoutSource;

  constructor(source: TimeoutSource, cause?: unknown) {
    const origin = source.fromUrl
      ? `${source.option}=${formatSeconds(source.seconds)} in the URL`
      : `the default ${source.option}; set ${source.option}=<seconds> in the URL to change it`;
    super(`the request timed out: no answer within ${formatSeconds(source.seconds)} s (${origin})`, { cause });
    this.name = 'RequestTimeoutError';
    this.source = source;
  }
}

/** At most this much of a foreign error body is quoted: enough to recognise a proxy's or web server's page. */
const BODY_EXCERPT = 120;

/**
 * An HTTP error answer (or one that failed to decode) with no ClickHouse error in it: whatever
 * answered at the URL's host and port is not (only) ClickHouse: another web server, a proxy.
 */
export class NotClickHouseError extends Error {
  readonly status: number;

  /** `body` undefined: a success answer to `SELECT version()` that held no version. */
  constructor(status: number, body: string | undefined, where: string) {
    const http = `HTTP ${status}${STATUS_CODES[status] ? ` ${STATUS_CODES[status]}` : ''}`;
    super(
      body === undefined
        ? `${http} from ${where} without a version in the answer to SELECT version(): the server there does not look like ClickHouse`
        : `${http} ${excerptOf(body)} from ${where}: the server there does not look like ClickHouse (no ClickHouse error in the answer)`,
    );
    this.name = 'NotClickHouseError';
    this.status = status;
  }
}

/**
 * Credentials of an `Authorization` header (`Basic <base64 of user:password>`, `Bearer <token>`):
 * a proxy's or web server's error page may echo the request's, which carries the URL's password.
 */
const AUTH_VALUE = /\b(Basic|Bearer|Digest)(\s+)[A-Za-z0-9+/=._~-]+/gi;

function excerptOf(body: string): string {
  // Masked before the excerpt is cut, so that no piece of a token is left either.
  const text = body.replace(/\s+/g, ' ').trim().replace(AUTH_VALUE, '$1$2***');
  if (text === '') return 'with an empty body';
  return `('${text.length > BODY_EXCERPT ? `${text.slice(0, BODY_EXCERPT)}…` : text}')`;
}

function formatSeconds(seconds: number): string {
  return Number.isInteger(seconds) ? String(seconds) : String(Math.round(seconds * 1000) / 1000);
}
