import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Connection as Mysql2Connection, ConnectionOptions, ResultSetHeader, SslOptions } from 'mysql2/promise';
import { MtoolError } from '../../errors.js';
import { parseConnectionUrl, urlSecrets, type ConnectionUrl } from '../../net/connection-url.js';
import { connectHint } from '../connect-hint.js';
import type { ErrorContext } from '../driver-error.js';
import { importDriver } from '../import-driver.js';
import { inPart, markFailedPart } from '../step-part.js';
import { untilGone } from '../until-gone.js';
import type { ConnectOptions, Connection, QueryResult, RecordMany, Row, StatementStep } from '../types.js';
import type { MysqlFlavour } from './flavour.js';
import { groupedRow, recordEachPlan, recordGroupedPlan, timesSql, type MessagePlan } from './message-plan.js';
import { MysqlError } from './mysql-error.js';
import { mysqlPlainString, mysqlQuoting } from './quoting.js';

/** mysql2's query command, as far as `MysqlConnection#message` reads it. */
interface QueryCommand {
  _resultIndex?: number;
  /** Each result so far (an array of rows for a result set), where a callback was given. */
  _rows?: unknown[];
  on(event: 'result', listener: () => void): unknown;
}

/** Driver error codes meaning the session itself is gone, not that a statement failed. */
const LOST = new Set(['PROTOCOL_CONNECTION_LOST', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'PROTOCOL_SEQUENCE_TIMEOUT']);

/**
 * Open one MySQL / MariaDB session with `mysql2`.
 *
 * Fixed driver settings, the same for every flavour: `multipleStatements: true` (a migration's
 * statement travels with its tracking row, and consecutive migrations travel together, see
 * {@link MysqlConnection.send} and {@link MysqlConnection.sendAll}, and an introspection's reads,
 * {@link MysqlConnection.queryMany}; every other call sends one statement), `dateStrings: true`
 * (dates come back as the server's text, as in every dialect), `supportBigNumbers` +
 * `bigNumberStrings` (BIGINT and DECIMAL come back as strings, never rounded), `trace: false` (no
 * stack captured per query), `queryFormat` as is (no placeholder scan: values are inlined, never
 * bound). URL options: `charset` (default `utf8mb4`), `ssl_ca`/`ssl_cert`/`ssl_key` (files read
 * now, relative to the project root; any of them turns TLS on with certificate verification).
 * A host that is an absolute path (`mysql://app@%2Frun%2Fmysqld%2Fmysqld.sock/app`) is the
 * server's Unix socket.
 */
export async function connectMysql(options: ConnectOptions, flavour: MysqlFlavour): Promise<Connection> {
  const url = parseConnectionUrl(options.url, flavour.type, options.databaseName);
  const ctx: ErrorContext = { type: flavour.type, databaseName: options.databaseName, secrets: urlSecrets(options.url) };
  const mysql = await importDriver('mysql2', flavour.type, () => import('mysql2/promise'));
  const config: ConnectionOptions = {
    host: url.host ?? '127.0.0.1',
    port: url.port ?? 3306,
    // A host that is a path (percent-encoded in the URL, as PostgreSQL takes a socket's folder) is the server's Unix socket.
    ...(url.host?.startsWith('/') ? { socketPath: url.host } : {}),
    user: url.user ?? 'root',
    password: url.password,
    database: url.database,
    charset: url.mysql?.charset ?? 'utf8mb4',
    ssl: await sslOptions(url, options.root, ctx),
    multipleStatements: true,
    dateStrings: true,
    supportBigNumbers: true,
    bigNumberStrings: true,
    // mysql2 captures a stack trace per query by default to splice the caller's frames into its
    // errors (~20 ms and the garbage of 2000 stacks in a 1000-migration batch); mtool's errors
    // name the database and the statement themselves.
    trace: false,
    // mtool never hands mysql2 values to bind: every value is inlined through the dialect's
    // quoting module. Without this, mysql2 scans each statement it sends for `?` placeholders
    // (~7 ms of CPU in a 1000-migration batch, whose messages hold 100 statements each).
    queryFormat: (sql: string) => sql,
  };
  let connection: Mysql2Connection;
  try {
    connection = await (mysql.default ?? mysql).createConnection(config);
  } catch (e) {
    // mysql2 checks the charset before it connects: a URL option to fix, not an unreachable server.
    if (e instanceof TypeError && e.message.startsWith('Unknown charset')) {
      throw new MtoolError('MTOOL_URL', `${flavour.type} (${options.databaseName}): URL option 'charset' names a character set the driver does not know ('${config.charset}'); use one such as utf8mb4 (the default), utf8 or latin1`, {
        cause: e,
        database: options.databaseName,
      });
    }
    const host = config.host!;
    const port = config.port!;
    const database = url.database ?? '';
    throw new MysqlError('MTOOL_CONNECTION', ctx, e, connectHint(e, {
      product: flavour.type === 'mariadb' ? 'MariaDB' : 'MySQL',
      host,
      port,
      createDatabase: `CREATE DATABASE ${mysqlQuoting.ident(database)}`,
      // ER_BAD_DB_ERROR; ER_DBACCESS_DENIED_ERROR; ER_ACCESS_DENIED_ERROR, ER_ACCESS_DENIED_NO_PASSWORD_ERROR (MariaDB's unix_socket users).
      unknownDatabase: [1049],
      deniedDatabase: [1044],
      // An account name takes a plain string literal only, not the hex form literal() may write.
      grantDatabase: `GRANT ALL ON ${mysqlQuoting.ident(database)}.* TO ${config.user === undefined ? 'the user' : `${mysqlPlainString(config.user)}@'%'`}`,
      refusedLogin: [1045, 1698],
      loginRules: "the account's host part (the server matches it against this client's address)",
      otherwise: `check that ${flavour.type} is running at ${host}:${port} and that the URL's user, password and database are right`,
    }));
  }
  const reconnect = async (): Promise<Mysql2Connection> => (mysql.default ?? mysql).createConnection(config);
  // Autocommit back on (which commits what the file left open, as its record is about to say it
  // ran); foreign keys checked as the server's default says; back to the URL's database after a
  // migration's `USE` (none in the URL: nothing to go back to).
  const sessionReset = {
    autocommit: ['SET autocommit = 1'],
    'foreign-keys': ['SET foreign_key_checks = DEFAULT'],
    ...(url.database ? { schema: [`USE ${mysqlQuoting.ident(url.database)}`] } : {}),
  };
  return new MysqlConnection(connection, flavour, ctx, reconnect, sessionReset);
}

async function sslOptions(url: ConnectionUrl, root: string, ctx: ErrorContext): Promise<SslOptions | undefined> {
  const opts = url.mysql ?? {};
  if (!opts.sslCa && !opts.sslCert && !opts.sslKey) return undefined;
  const ssl: SslOptions = { rejectUnauthorized: true };
  if (opts.sslCa) ssl.ca = await readSslFile('ssl_ca', opts.sslCa, root, ctx);
  if (opts.sslCert) ssl.cert = await readSslFile('ssl_cert', opts.sslCert, root, ctx);
  if (opts.sslKey) ssl.key = await readSslFile('ssl_key', opts.sslKey, root, ctx);
  return ssl;
}

async function readSslFile(option: string, path: string, root: string, ctx: ErrorContext): Promise<string> {
  const file = resolve(root, path);
  try {
    return await readFile(file, 'utf8');
  } catch (e) {
    const reason = (e as NodeJS.ErrnoException).code ?? String(e);
    // A URL option naming a file that cannot be read is a configuration error, not an unreachable
    // database: `--all` must not skip it as a missing optional one (skipIfMissing).
    throw new MtoolError('MTOOL_URL', `${ctx.type} (${ctx.databaseName}): cannot read the ${option} file '${file}' (${reason}); fix the path in the URL option ${option}`, { cause: e, database: ctx.databaseName });
  }
}

class MysqlConnection implements Connection {
  readonly type: MysqlFlavour['type'];
  readonly databaseName: string;
  #connection: Mysql2Connection | undefined;
  readonly #ctx: ErrorContext;
  #broken: unknown;
  /** A second session with the same settings (for {@link cancel}). */
  readonly #reconnect: () => Promise<Mysql2Connection>;

  readonly sessionReset: Connection['sessionReset'];

  constructor(connection: Mysql2Connection, flavour: MysqlFlavour, ctx: ErrorContext, reconnect: () => Promise<Mysql2Connection>, sessionReset: Connection['sessionReset']) {
    this.sessionReset = sessionReset;
    this.#connection = connection;
    this.#reconnect = reconnect;
    this.type = flavour.type;
    this.#ctx = ctx;
    this.databaseName = ctx.databaseName;
    // A dropped session emits 'error' on the connection; without a listener Node would crash.
    connection.on('error', (e: unknown) => {
      this.#broken = e;
    });
  }

  async query(sql: string): Promise<QueryResult> {
    const connection = this.#open();
    try {
      const [result] = await connection.query(sql);
      if (Array.isArray(result)) return { rows: result as Row[], rowCount: 0 };
      return { rows: [], rowCount: (result as ResultSetHeader).affectedRows ?? 0 };
    } catch (e) {
      throw this.#wrap(e);
    }
  }

  async queryMany(statements: readonly string[]): Promise<Row[][]> {
    const connection = this.#open();
    try {
      const [result] = await connection.query(statements.join(';\n'));
      // One statement answers with its rows, several with a result per statement.
      const results = statements.length === 1 ? [result] : (result as unknown[]);
      return results.map((r) => (Array.isArray(r) ? (r as Row[]) : []));
    } catch (e) {
      throw this.#wrap(e);
    }
  }

  async queryArrays(sql: string): Promise<unknown[][]> {
    const connection = this.#open();
    try {
      const [rows] = await connection.query({ sql, rowsAsArray: true });
      return rows as unknown[][];
    } catch (e) {
      throw this.#wrap(e);
    }
  }

  /** The step's parts as one multi-statement query (see `#message`); its COMMIT alone after it. */
  async send(step: StatementStep): Promise<void> {
    await this.#message([step]);
    // Never in the same message: the server goes on with a statement whose client has gone, and
    // a `migrate` killed during it must not have its transaction committed once it ends.
    if (step.commit) await inPart('commit', () => this.query('COMMIT'));
  }

  async sendAll(steps: readonly StatementStep[], onRecorded?: (step: number, executionMs?: number) => void, recordMany?: RecordMany): Promise<void> {
    if (steps.some((s, i) => (s.begin && i > 0) || s.commit)) {
      throw new MtoolError('MTOOL_INTERNAL', `${this.#ctx.type} (${this.#ctx.databaseName}): a message may begin a transaction with its first step only, and commit none`);
    }
    await this.#message(steps, onRecorded, recordMany);
  }

  /**
   * Steps as one multi-statement query ({@link recordEachPlan}, or with `recordMany`
   * {@link recordGroupedPlan}): the server stops at the first failing statement, and mysql2's
   * count of the results before it names the part and its step. Grouped, each migration's time
   * is the server's, as the row before its group's record returns it; after a failure the
   * migrations that ended before it are recorded here while the session lasts ({@link #recordEnded}).
   */
  async #message(steps: readonly StatementStep[], onRecorded?: (step: number, executionMs?: number) => void, recordMany?: RecordMany): Promise<void> {
    const plan = recordMany ? recordGroupedPlan(steps, recordMany) : recordEachPlan(steps);
    // The callback connection under mysql2/promise's wrapper: its query command tells how far it
    // got (mysql2 advances `_resultIndex` on each "more results"), and emits each statement's
    // result (each row of a result set) as the server sends it.
    const core = (this.#open() as unknown as { connection: { query(sql: string, done: (error: unknown) => void): QueryCommand } }).connection;
    const times = new Map<number, number>();
    let reported = -1;
    const report = (recorded: readonly number[]): void => {
      for (const step of recorded) {
        onRecorded?.(step, times.get(step));
        reported = step;
      }
    };
    let failedAt = 0;
    try {
      await new Promise<void>((resolve, reject) => {
        const command = core.query(plan.sql.join(';\n'), (error: unknown) => {
          if (!error) return resolve();
          failedAt = command._resultIndex ?? 0;
          reject(error);
        });
        if (plan.events.size > 0) {
          command.on('result', () => {
            const index = command._resultIndex ?? -1;
            const event = plan.events.get(index);
            if (event === undefined) return;
            // Grouped: the row of times, as mysql2 keeps a result set's rows for its callback.
            if (recordMany) {
              const values = Object.values((command._rows?.[index - 1] as object[] | undefined)?.[0] ?? {});
              event.recorded.forEach((step, k) => values[k] !== undefined && times.set(step, Number(values[k])));
            }
            report(event.recorded);
          });
        }
      });
    } catch (e) {
      const error = this.#wrap(e);
      const failed = plan.parts[Math.min(failedAt, plan.parts.length - 1)]!;
      if (!recordMany) throw markFailedPart(error, failed.part, failed.step);
      const recorded = await this.#recordEnded(plan, failedAt, reported, recordMany, times);
      if (recorded.length === 0) throw markFailedPart(error, failed.part, failed.step);
      report(recorded);
      if (failed.part !== 'record') throw markFailedPart(error, failed.part, failed.step);
      // It failed between two migrations (a mark or a record, as a Ctrl-C's KILL QUERY can stop
      // them): the next one never began, and with none left the message did all it had to.
      const next = recorded[recorded.length - 1]! + 1;
      if (next < steps.length) throw markFailedPart(error, 'begin', next);
    }
  }

  /**
   * After a grouped message failed at part `failedAt`: record, on this session, the migrations
   * that ran whole before it and were not recorded yet (those after step `reported`: the ones of
   * the group that was open), their times read first into `times`. Returns the steps it
   * recorded; none when there were none, the session was lost (its marks with it), or a statement
   * failed: those migrations then ran without a row, as the caller tells from what was reported.
   */
  async #recordEnded(plan: MessagePlan, failedAt: number, reported: number, recordMany: RecordMany, times: Map<number, number>): Promise<number[]> {
    const rows: ReturnType<typeof groupedRow>[] = [];
    for (const [part, { step, place }] of plan.marks) {
      // A mark that failed itself: the migration ran whole, its end was not marked.
      if (part <= failedAt && step > reported) rows.push(groupedRow(step, place, part < failedAt));
    }
    if (rows.length === 0 || this.#broken !== undefined) return [];
    try {
      const [[values]] = (await this.#open().query({ sql: timesSql(rows), rowsAsArray: true })) as unknown as [unknown[][]];
      rows.forEach((row, k) => times.set(row.step, Number(values![k])));
      await this.#open().query(recordMany(rows));
    } catch (e) {
      this.#wrap(e);
      return [];
    }
    return rows.map((row) => row.step);
  }

  async begin(): Promise<void> {
    await this.query('START TRANSACTION');
  }

  async commit(): Promise<void> {
    await this.query('COMMIT');
  }

  async rollback(): Promise<void> {
    await this.query('ROLLBACK');
  }

  /** The session's thread id (`CONNECTION_ID()`, the processlist's `ID`). */
  get serverSession(): number | undefined {
    const id = this.#connection?.threadId;
    return id ? Number(id) : undefined;
  }

  async cancel(): Promise<void> {
    await this.#fromOutside((other, id) => other.query(`KILL QUERY ${id}`));
  }

  async statementLimitBytes(): Promise<number> {
    const { rows } = await this.query('SELECT @@max_allowed_packet AS bytes');
    return Number(rows[0]?.bytes);
  }

  async terminate(): Promise<void> {
    await this.#fromOutside(async (other, id) => {
      try {
        await other.query(`KILL CONNECTION ${id}`);
      } catch (e) {
        // ER_NO_SUCH_THREAD: the session is gone already.
        if ((e as { errno?: unknown }).errno !== 1094) throw this.#wrap(e);
        return;
      }
      const alive = async (): Promise<boolean> => ((await other.query(`SELECT 1 FROM information_schema.PROCESSLIST WHERE ID = ${id}`))[0] as unknown[]).length > 0;
      await untilGone(alive, `${this.#ctx.type} (${this.#ctx.databaseName}): session ${id}`);
    });
  }

  /** Act on this session's server thread from a second session with the same settings. Nothing to do before it has a thread. */
  async #fromOutside(act: (other: Mysql2Connection, id: number) => Promise<unknown>): Promise<void> {
    const id = this.#connection?.threadId;
    if (!id) return;
    const other = await this.#reconnect();
    try {
      await act(other, Number(id));
    } finally {
      await other.end();
    }
  }

  async serverVersion(): Promise<string> {
    const { rows } = await this.query('SELECT VERSION() AS version');
    return String(rows[0]?.version ?? '');
  }

  async close(): Promise<void> {
    const connection = this.#connection;
    if (!connection) return;
    this.#connection = undefined;
    try {
      await connection.end();
    } catch {
      // The server already dropped the session: there is nothing left to close.
      connection.destroy();
    }
  }

  /** A driver error as MysqlError; a lost session marks the connection broken. */
  #wrap(e: unknown): MysqlError {
    const code = (e as { code?: unknown }).code;
    const lost = typeof code === 'string' && LOST.has(code);
    if (lost) this.#broken = e;
    return new MysqlError(lost ? 'MTOOL_CONNECTION' : 'MTOOL_DATABASE', this.#ctx, e);
  }

  #open(): Mysql2Connection {
    if (this.#broken !== undefined) throw new MysqlError('MTOOL_CONNECTION', this.#ctx, this.#broken, 'the session was lost; reconnect');
    if (!this.#connection) throw new MtoolError('MTOOL_INTERNAL', `${this.#ctx.type} (${this.#ctx.databaseName}): query on a closed connection`);
    return this.#connection;
  }
}
