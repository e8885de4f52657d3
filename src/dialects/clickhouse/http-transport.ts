import { randomUUID } from 'node:crypto';
import type { ClickHouseClient } from '@clickhouse/client';
import type { ConnectionUrl } from '../../net/connection-url.js';
import { importDriver } from '../import-driver.js';
import type { QueryResult } from '../types.js';
import { serverCodeOf } from './clickhouse-error.js';
import { askToStop, SentStatement, stopStatement, type StopOptions } from './stop-statement.js';
import { rowsFromJson, type ClickHouseTransport } from './transport.js';

/** ClickHouse's own default for receive_timeout, used as the client's request timeout. */
const DEFAULT_RECEIVE_TIMEOUT_S = 300;
const DEFAULT_CONNECT_TIMEOUT_S = 10;

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
 * verify the server answers (default 10 s).
 */
export async function openHttpTransport(url: ConnectionUrl): Promise<{ transport: ClickHouseTransport; version: string }> {
  const mod = await importDriver('@clickhouse/client', 'clickhouse', () => import('@clickhouse/client'));
  const opts = url.clickhouse ?? {};
  // Current servers stopped quoting 64-bit integers in JSON by default; 18.x always did.
  const settings: Record<string, string | number> = { default_format: 'JSON', output_format_json_quote_64bit_integers: 1 };
  if (opts.sendTimeout !== undefined) settings.send_timeout = Math.ceil(opts.sendTimeout);
  if (opts.receiveTimeout !== undefined) settings.receive_timeout = Math.ceil(opts.receiveTimeout);
  const host = url.host!.includes(':') ? `[${url.host}]` : url.host;
  const config = {
    url: `${url.scheme}://${host}:${url.port ?? (url.scheme === 'https' ? 8443 : 8123)}`,
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
  const side = (): ClickHouseClient => mod.createClient(config);
  const transport = new HttpTransport(client, side);
  try {
    const probe = await transport.exec('SELECT version() AS version', AbortSignal.timeout(Math.round((opts.connectTimeout ?? DEFAULT_CONNECT_TIMEOUT_S) * 1000)));
    return { transport, version: String(probe.rows[0]?.version ?? '') };
  } catch (e) {
    await transport.close();
    throw e;
  }
}

/** `KILL QUERY ... SYNC` waits on the server until the statement has stopped; 18.16 has it. */
const STOP: Omit<StopOptions, 'what'> = { sync: true, processList: true };

class HttpTransport implements ClickHouseTransport {
  readonly #client: ClickHouseClient;
  readonly #makeSide: () => ClickHouseClient;
  #side: ClickHouseClient | undefined;
  /** The session the statements go to; the client's own (set when it was made) until renewed. */
  #sessionId: string | undefined;
  /** The last statement sent, by its `query_id`: what {@link cancel} and {@link terminate} stop. */
  #last: (SentStatement & { id: string }) | undefined;

  constructor(client: ClickHouseClient, side: () => ClickHouseClient) {
    this.#client = client;
    this.#makeSide = side;
  }

  async exec(sql: string, signal?: AbortSignal): Promise<QueryResult> {
    // Each statement under an id of its own, by which a second session can KILL it: the server
    // runs a statement to its end whether or not its client is still there to hear the answer.
    const id = randomUUID();
    const result = this.#run(sql, id, signal);
    this.#last = Object.assign(new SentStatement(`query_id = '${id}'`, result, (e) => serverCodeOf(e) !== undefined), { id });
    return result;
  }

  async #run(sql: string, id: string, signal: AbortSignal | undefined): Promise<QueryResult> {
    const result = await this.#client.exec({ query: sql, query_id: id, abort_signal: signal, ...(this.#sessionId ? { session_id: this.#sessionId } : {}) });
    const written = Number(result.summary?.written_rows ?? 0);
    return { rows: await rowsOf(result.stream), rowCount: Number.isFinite(written) ? written : 0 };
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
    const result = await this.#side.exec({ query: sql, abort_signal: signal });
    return { rows: await rowsOf(result.stream), rowCount: 0 };
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

/** The rows of an answer's JSON body, decoded once at the end: a multi-byte character may straddle two chunks. */
async function rowsOf(stream: AsyncIterable<unknown>): Promise<QueryResult['rows']> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return rowsFromJson(Buffer.concat(chunks).toString('utf8'));
}
