import { MtoolError } from '../../errors.js';
import { parseConnectionUrl, urlSecrets } from '../../net/connection-url.js';
import { connectHint } from '../connect-hint.js';
import type { ErrorContext } from '../driver-error.js';
import type { ConnectOptions, Connection, QueryResult } from '../types.js';
import { ClickHouseError } from './clickhouse-error.js';
import { NotClickHouseError, RequestTimeoutError } from './http-errors.js';
import { clickhouseQuoting } from './quoting.js';
import { ChdbFolderBusyError } from './chdb-folder.js';
import { isChdbUrl, parseChdbUrl } from './chdb-url.js';
import type { ClickHouseTransport } from './transport.js';

/**
 * Open a ClickHouse connection: `http://` / `https://` URLs use the server's HTTP interface
 * (`@clickhouse/client`), `chdb://` URLs an in-process chdb engine (the `chdb` package,
 * imported only for that scheme). ClickHouse has no transactions: begin/commit/rollback do
 * nothing (`capabilities.transactions` is false).
 */
export async function connectClickHouse(options: ConnectOptions): Promise<Connection> {
  const ctx: ErrorContext = { type: 'clickhouse', databaseName: options.databaseName, secrets: urlSecrets(options.url) };
  let opened: { transport: ClickHouseTransport; version: string };
  if (isChdbUrl(options.url)) {
    const target = parseChdbUrl(options.url, options.root, options.databaseName);
    const { openChdbTransport } = await import('./chdb-transport.js');
    opened = await attempt(ctx, () => openChdbTransport(target), (e) =>
      (e as { cause?: unknown }).cause instanceof ChdbFolderBusyError
        ? 'wait for that run to finish or stop it, then run the command again'
        : 'check that the chdb package loads on this platform and the folder is writable',
    );
  } else {
    const url = parseConnectionUrl(options.url, 'clickhouse', options.databaseName);
    const { openHttpTransport } = await import('./http-transport.js');
    const host = url.host ?? '127.0.0.1';
    const port = url.port ?? 8123;
    const database = url.database ?? 'default';
    opened = await attempt(ctx, () => openHttpTransport(url), (e) =>
      httpHint(e, `${host}:${port}`) ??
      connectHint(e, {
        product: 'ClickHouse',
        host,
        port,
        createDatabase: `CREATE DATABASE ${clickhouseQuoting.ident(database)}`,
        // UNKNOWN_DATABASE; UNKNOWN_USER, WRONG_PASSWORD, REQUIRED_PASSWORD, AUTHENTICATION_FAILED.
        unknownDatabase: [81],
        refusedLogin: [192, 193, 194, 516],
        otherwise: `check that ClickHouse answers HTTP at ${host}:${port}, and the URL's user, password and database`,
      }),
    );
  }
  return new ClickHouseConnection(opened.transport, opened.version, ctx);
}

/** What to check when the HTTP interface timed out or something else answered there; undefined otherwise. */
function httpHint(error: unknown, where: string): string | undefined {
  const cause = (error as { cause?: unknown }).cause;
  if (cause instanceof RequestTimeoutError) {
    // Connection refused fails at once: a timeout means something took the connection and stayed silent.
    const raise = cause.source.fromUrl ? `, or raise ${cause.source.option} in the URL if it is only slow` : '';
    return `check that ClickHouse answers HTTP at ${where} (the URL's host and port): a hung or overloaded server, or a firewall that drops packets, gives no answer${raise}`;
  }
  if (cause instanceof NotClickHouseError) {
    return `check that the URL's host and port are those of ClickHouse's HTTP interface (port 8123 by default, 8443 with https), not of another web server or a proxy`;
  }
  return undefined;
}

async function attempt<T>(ctx: ErrorContext, open: () => Promise<T>, hint: (error: unknown) => string): Promise<T> {
  try {
    return await open();
  } catch (e) {
    if (e instanceof MtoolError) throw e;
    // The server's code is read from its message: the hint asks the parsed error.
    throw new ClickHouseError('MTOOL_CONNECTION', ctx, e, hint(new ClickHouseError('MTOOL_CONNECTION', ctx, e)));
  }
}

/** A statement that starts with `#` and no space or `!` after it (`#drop the old table`): not a comment on ClickHouse. */
const HASH_NOT_COMMENT = /^\s*(#(?![ !])\S*)/;

/** SYNTAX_ERROR, UNKNOWN_FUNCTION, UNKNOWN_TYPE, UNKNOWN_STORAGE, UNKNOWN_SETTING: what an older server says of newer SQL. */
const UNKNOWN_TO_SERVER = [62, 46, 50, 56, 115];

/**
 * The server's version, for an error that newer SQL gets from an older server; undefined for
 * others, and for a statement over max_query_size (also a syntax error on 18.x), which the
 * dialect's failure hint explains.
 */
function versionHint(error: ClickHouseError, version: string): string | undefined {
  if (!UNKNOWN_TO_SERVER.includes(error.serverCode!) || /\bMax query size exceeded\b/i.test(error.serverMessage)) return undefined;
  return `the server is ClickHouse ${version}: SQL that later releases added (syntax, functions, types, engines, settings) fails this way on it`;
}

class ClickHouseConnection implements Connection {
  readonly type = 'clickhouse' as const;
  readonly databaseName: string;
  readonly #transport: ClickHouseTransport;
  readonly #version: string;
  readonly #ctx: ErrorContext;
  #closed = false;
  /** The answer to a statement was lost and the statement could not be stopped ({@link #answerLost}). */
  #lost: unknown;

  constructor(transport: ClickHouseTransport, version: string, ctx: ErrorContext) {
    this.#transport = transport;
    this.#version = version;
    this.#ctx = ctx;
    this.databaseName = ctx.databaseName;
  }

  async query(sql: string): Promise<QueryResult> {
    if (this.#closed) throw new MtoolError('MTOOL_INTERNAL', `clickhouse (${this.#ctx.databaseName}): query on a closed connection`);
    if (this.#lost !== undefined) throw new ClickHouseError('MTOOL_CONNECTION', this.#ctx, this.#lost, 'an earlier statement whose answer was lost may still be running on the server');
    const hash = HASH_NOT_COMMENT.exec(sql);
    if (hash) {
      throw new MtoolError(
        'MTOOL_DATABASE',
        `clickhouse (${this.#ctx.databaseName}): the statement starts with '${hash[1]}', which ClickHouse does not read as a comment ('#' begins one only before a space or '!'): chdb skips such a statement without running it and a server refuses it; write '# ${hash[1]!.slice(1)}' for a comment`,
        { database: this.#ctx.databaseName },
      );
    }
    try {
      return await this.#transport.exec(sql);
    } catch (e) {
      if (e instanceof MtoolError) throw e;
      // A server error carries "Code: N"; anything else (refused, reset, timeout) lost the server.
      const error = new ClickHouseError('MTOOL_DATABASE', this.#ctx, e);
      if (error.serverCode === undefined) throw await this.#answerLost(e);
      const hint = versionHint(error, this.#version);
      throw hint === undefined ? error : new ClickHouseError('MTOOL_DATABASE', this.#ctx, e, hint);
    }
  }

  /**
   * The answer to a statement was lost (the request timed out, the connection was reset): the
   * server runs a statement to its end whether or not anyone waits for it, so it is stopped now
   * (`KILL QUERY` by its query_id, from another session). Where that cannot be confirmed, the
   * connection refuses every later statement: the lock's release then fails here and is tried
   * again by the session's recovery, which asks {@link terminate} first and keeps the lock ACTIVE
   * when the statement cannot be stopped, since it may still complete.
   */
  async #answerLost(cause: unknown): Promise<ClickHouseError> {
    try {
      await this.#transport.terminate?.();
      return new ClickHouseError('MTOOL_CONNECTION', this.#ctx, cause, 'the statement was stopped on the server (KILL QUERY)');
    } catch (stopError) {
      this.#lost = cause;
      const why = stopError instanceof Error ? stopError.message : String(stopError);
      return new ClickHouseError('MTOOL_CONNECTION', this.#ctx, cause, `the statement could not be stopped on the server (${why}) and may still complete`);
    }
  }

  /**
   * Ask the server, from another session, to stop the running statement (`KILL QUERY WHERE
   * query_id = ...`; in process, chdb's engine is asked the same from a second session on its
   * folder). The statement then fails with QUERY_WAS_CANCELLED. Does nothing when none runs.
   */
  async cancel(): Promise<void> {
    await this.#outside(() => this.#transport.cancel?.());
  }

  /**
   * Stop the last statement sent (running, or its answer lost) and confirm the server no longer
   * runs it. ClickHouse has no transactions: what the statement wrote before it stopped stays.
   * @throws MtoolError when that cannot be confirmed: the statement may still complete.
   */
  async terminate(): Promise<void> {
    await this.#outside(() => this.#transport.terminate?.());
    this.#lost = undefined;
  }

  async #outside(act: () => Promise<void> | undefined): Promise<void> {
    try {
      await act();
    } catch (e) {
      if (e instanceof MtoolError) throw new MtoolError(e.code, `clickhouse (${this.#ctx.databaseName}): ${e.message}`, { cause: e, database: this.#ctx.databaseName });
      throw new ClickHouseError(new ClickHouseError('MTOOL_DATABASE', this.#ctx, e).serverCode === undefined ? 'MTOOL_CONNECTION' : 'MTOOL_DATABASE', this.#ctx, e);
    }
  }

  async renewSession(): Promise<void> {
    await this.#transport.renewSession?.();
  }

  // No transactions on ClickHouse: statements apply one by one.
  async begin(): Promise<void> {}
  async commit(): Promise<void> {}
  async rollback(): Promise<void> {}

  async serverVersion(): Promise<string> {
    return this.#version;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#transport.close();
  }
}
