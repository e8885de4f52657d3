import { randomUUID } from 'node:crypto';
import type { ClickHouseClient } from '@clickhouse/client';
import type { ConnectionUrl } from '../../net/connection-url.js';
import { importDriver } from '../import-driver.js';
import type { QueryResult } from '../types.js';
import { parseClickHouseError, serverCodeOf } from './clickhouse-error.js';
import { NotClickHouseError, RequestTimeoutError, type TimeoutSource } from './http-errors.js';
import { askToStop, SentStatement, stopStatement, type StopOptions } from './stop-statement.js';
import { rowsFromJson, type ClickHouseTransport } from './transport.js';

/** ClickHouse's own default for receive_timeout, used as the client's request timeout. */
const DEFAULT_RECEIVE_TIMEOUT_S = 300;
const DEFAULT_CONNECT_TIMEOUT_S = 10;
/** Above stop-statement.ts's own bounds, so those decide when stopping a statement gives up. */
const SIDE_REQUEST_TIMEOUT_MS = 30_000;

/**
 * The HTTP interface through `@clickhouse/client`, which speaks to the old 18.16 servers as
 * well as current ones when used as here: statements go through `exec` with the setting
 * `default_format=JSON` rather than an appended `FORMAT` clause (DDL would reject one), no
 * bound parameters, and one `session_id` per connection so `SET` and temporary tables last
 * for the connection, as on the other dialects.
 *
 * URL options: `compression` → gzip of responses and request bodies; `receive_timeout` → the
 * client's per-statement `request_timeout` (default 300 s) and the server setting of that name;
 * `send_timeout` → the server setting (how long the server may block writing to us);
 * `connect_timeout` → the bound on the first request, which {@link openHttpTransport} makes to
 * verify the server answers (default 10 s). When a bound fires, the error names it
 * ({@link RequestTimeoutError}); an error answer that is not ClickHouse's says so with its HTTP
 * status ({@link NotClickHouseError}).
 */
export async function openHttpTransport(url: ConnectionUrl): Promise<{ transport: ClickHouseTransport; version: string }> {
  const mod = await importDriver('@clickhouse/client', 'clickhouse', () => import('@clickhouse/client'));
  const opts = url.clickhouse ?? {};
  // Current servers stopped quoting 64-bit integers in JSON by default; 18.x always did.
  const settings: Record<string, string | number> = { default_format: 'JSON', output_format_json_quote_64bit_integers: 1 };
  if (opts.sendTimeout !== undefined) settings.send_timeout = Math.ceil(opts.sendTimeout);
  if (opts.receiveTimeout !== undefined) settings.receive_timeout = Math.ceil(opts.receiveTimeout);
  const host = url.host!.includes(':') ? `[${url.host}]` : url.host;
  const where = `${host}:${url.port ?? (url.scheme === 'https' ? 8443 : 8123)}`;
  const config = {
    url: `${url.scheme}://${where}`,
    username: url.user ?? 'default',
    password: url.password ?? '',
    database: url.database ?? 'default',
    compression: { response: opts.compression === true, request: opts.compression === true },
    request_timeout: Math.round((opts.receiveTimeout ?? DEFAULT_RECEIVE_TIMEOUT_S) * 1000),
    application: 'mtool',
    clickhouse_settings: settings as never,
    // The library logs failed requests to the console itself; mtool reports them as errors.
    log: { level: mod.ClickHouseLogLevel.OFF },
  };
  const client = mod.createClient({ ...config, session_id: randomUUID() });
  // Outside the session, which runs one request at a time: made when a statement is to be stopped.
  // Its requests carry their own bounds (stop-statement.ts): a short receive_timeout in the URL
  // must not cut short the KILL ... SYNC that waits for the very statement which outlasted it.
  const side = (): ClickHouseClient => mod.createClient({ ...config, request_timeout: Math.max(config.request_timeout, SIDE_REQUEST_TIMEOUT_MS) });
  const receive: TimeoutSource = { option: 'receive_timeout', seconds: opts.receiveTimeout ?? DEFAULT_RECEIVE_TIMEOUT_S, fromUrl: opts.receiveTimeout !== undefined };
  const transport = new HttpTransport(client, side, { where, receive, parseError: mod.parseError });
  const connect: TimeoutSource = { option: 'connect_timeout', seconds: opts.connectTimeout ?? DEFAULT_CONNECT_TIMEOUT_S, fromUrl: opts.connectTimeout !== undefined };
  try {
    const probe = await transport.exec('SELECT version() AS version', connect);
    const version = probe.rows[0]?.version;
    // A web server that answers 200 to anything: not an error, but no ClickHouse either.
    if (version === undefined) throw new NotClickHouseError(200, undefined, transport.where);
    return { transport, version: String(version) };
  } catch (e) {
    await transport.close();
    throw e;
  }
}

/** `KILL QUERY ... SYNC` waits on the server until the statement has stopped; 18.16 has it. */
const STOP: Omit<StopOptions, 'what'> = { sync: true, processList: true };

/** What the transport needs to say what went wrong, besides the client. */
interface HttpTransportOptions {
  /** `host:port`, as errors name the server. */
  where: string;
  /** The client's bound on each request (its `request_timeout`). */
  receive: TimeoutSource;
  /** The client library's parser of an error body, so ClickHouse errors keep the shape the library gives them. */
  parseError: (body: string) => Error;
}

class HttpTransport implements ClickHouseTransport {
  readonly #client: ClickHouseClient;
  readonly #makeSide: () => ClickHouseClient;
  readonly #options: HttpTransportOptions;
  #side: ClickHouseClient | undefined;
  /** The session the statements go to; the client's own (set when it was made) until renewed. */
  #sessionId: string | undefined;
  /** The last statement sent, by its `query_id`: what {@link cancel} and {@link terminate} stop. */
  #last: (SentStatement & { id: string }) | undefined;
  /** The last request of the session, settled or not: the next one waits for it. */
  #previous: Promise<unknown> = Promise.resolve();

  constructor(client: ClickHouseClient, side: () => ClickHouseClient, options: HttpTransportOptions) {
    this.#client = client;
    this.#makeSide = side;
    this.#options = options;
  }

  get where(): string {
    return this.#options.where;
  }

  /** Run a statement; `bound`, when given, is a shorter wait than the client's request timeout. */
  async exec(sql: string, bound?: TimeoutSource): Promise<QueryResult> {
    // Each statement under an id of its own, by which a second session can KILL it: the server
    // runs a statement to its end whether or not its client is still there to hear the answer.
    const id = randomUUID();
    // The server runs one request of a session at a time and refuses another meanwhile ("Session
    // is locked by a concurrent client"): a lock release sent while a read still runs (the
    // migrations folder failed to read as the tracking table was read) would fail, the lock left held.
    const result = this.#previous.then(() => this.#run(sql, id, bound));
    this.#previous = result.catch(() => undefined);
    this.#last = Object.assign(new SentStatement(`query_id = '${id}'`, result, (e) => serverCodeOf(e) !== undefined), { id });
    return result;
  }

  async #run(sql: string, id: string, bound: TimeoutSource | undefined): Promise<QueryResult> {
    const signal = bound ? AbortSignal.timeout(Math.round(bound.seconds * 1000)) : undefined;
    try {
      // Error answers come back as answers, so one without a ClickHouse error keeps its HTTP status.
      const result = await this.#client.exec({ query: sql, query_id: id, abort_signal: signal, ignore_error_response: true, ...(this.#sessionId ? { session_id: this.#sessionId } : {}) });
      const status = result.http_status_code ?? 200;
      if (status < 200 || status >= 300 || result.response_headers['x-clickhouse-exception-code'] !== undefined) {
        throw this.#errorAnswer(status, await textOf(result.stream));
      }
      const written = Number(result.summary?.written_rows ?? 0);
      return { rows: await rowsOf(result.stream), rowCount: Number.isFinite(written) ? written : 0 };
    } catch (e) {
      throw this.#timedOut(e, signal, bound) ?? e;
    }
  }

  /** The error of an error answer: the server's own when it is ClickHouse's (as the library would throw it), else what answered. */
  #errorAnswer(status: number, body: string): Error {
    const error = this.#options.parseError(body);
    if (serverCodeOf(error) !== undefined || parseClickHouseError(body) !== undefined) return error;
    return new NotClickHouseError(status, body, this.#options.where);
  }

  /**
   * The library reports its own request timeout as "Timeout error." and an aborted signal (the
   * connect bound) as "The user aborted a request.": neither says which bound fired.
   */
  #timedOut(error: unknown, signal: AbortSignal | undefined, bound: TimeoutSource | undefined): RequestTimeoutError | undefined {
    if (signal?.aborted && bound) return new RequestTimeoutError(bound, error);
    if (error instanceof Error && /^Timeout error\.?$/.test(error.message)) return new RequestTimeoutError(this.#options.receive, error);
    return undefined;
  }

  async cancel(): Promise<void> {
    const last = this.#last;
    if (!last || last.settled) return;
    await askToStop(this.#sideQuery, last, { ...STOP, what: `statement ${last.id}` });
  }

  async terminate(): Promise<void> {
    const last = this.#last;
    if (!last || last.over) return;
    await stopStatement(this.#sideQuery, last, { ...STOP, what: `statement ${last.id}` });
  }

  readonly #sideQuery = async (sql: string, signal: AbortSignal): Promise<QueryResult> => {
    this.#side ??= this.#makeSide();
    try {
      const result = await this.#side.exec({ query: sql, abort_signal: signal });
      return { rows: await rowsOf(result.stream), rowCount: 0 };
    } catch (e) {
      // The library says "The user aborted a request." when the bound stop-statement.ts gave fired.
      throw signal.aborted ? new Error(`no answer from ${this.where} in time`, { cause: e }) : e;
    }
  };

  async renewSession(): Promise<void> {
    this.#sessionId = randomUUID();
  }

  async close(): Promise<void> {
    const side = this.#side;
    this.#side = undefined;
    await Promise.all([this.#client.close(), side?.close()]);
  }
}

/** The rows of an answer's JSON body. */
async function rowsOf(stream: AsyncIterable<unknown>): Promise<QueryResult['rows']> {
  return rowsFromJson(await textOf(stream));
}

/** An answer's body, decoded once at the end: a multi-byte character may straddle two chunks. */
async function textOf(stream: AsyncIterable<unknown>): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}
