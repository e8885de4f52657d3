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
import type { ConnectOptions, Connection, QueryResult, Row, StatementStep, StepPart } from '../types.js';
import type { MysqlFlavour } from './flavour.js';
import { MysqlError } from './mysql-error.js';
import { mysqlQuoting } from './quoting.js';

/** Whole milliseconds since the migration's first statement in the message began (`@mtool_started`, set before it by {@link MysqlConnection.send} and {@link MysqlConnection.sendAll}). */
const ELAPSED_MS_SQL = '(TIMESTAMPDIFF(MICROSECOND, @mtool_started, NOW(6)) DIV 1000)';

/** Marks the start of a message's first migration (and, on MySQL, of each one). */
const MARK_STARTED = 'SET @mtool_started = NOW(6)';

/**
 * On a MariaDB server, the record of the `n`-th migration of a message (from 0): whole
 * milliseconds since the one before it was recorded (or since {@link MARK_STARTED}), and the mark
 * for the next one, set in the same statement. The two marks take turns, so no statement reads
 * the variable it sets (MariaDB leaves that order undefined). It spares each migration after the
 * first its own `SET` statement: a statement per migration, about a tenth of a millisecond of the
 * server's time each (`CREATE TABLE` alone took 0.5 ms), measured with mysql2 on a MariaDB 10.11
 * on tmpfs. MySQL 8 deprecates setting a variable outside `SET`: there every migration keeps its
 * own `SET`.
 */
function chainedElapsedMsSql(n: number): string {
  const [read, next] = n % 2 === 0 ? ['@mtool_started', '@mtool_next'] : ['@mtool_next', '@mtool_started'];
  return `(TIMESTAMPDIFF(MICROSECOND, ${read}, ${next} := NOW(6)) DIV 1000)`;
}

/** The server's time in UTC with milliseconds, as a DATETIME(3) `applied_at` holds it (the session's time zone never shifts it). */
const NOW_UTC_SQL = 'UTC_TIMESTAMP(3)';

/** mysql2's query command, as far as `MysqlConnection#message` reads it. */
interface QueryCommand {
  _resultIndex?: number;
  on(event: 'result', listener: () => void): unknown;
}

/** Driver error codes meaning the session itself is gone, not that a statement failed. */
const LOST = new Set(['PROTOCOL_CONNECTION_LOST', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'PROTOCOL_SEQUENCE_TIMEOUT']);

/**
 * Open one MySQL / MariaDB session with `mysql2`.
 *
 * Fixed driver settings, the same for every flavour: `multipleStatements: true` (a migration's
 * statement travels with its tracking row, and consecutive migrations travel together, see
 * {@link MysqlConnection.send} and {@link MysqlConnection.sendAll}; every other call sends one
 * statement), `dateStrings: true` (dates come back
 * as the server's text, as in every dialect), `supportBigNumbers` + `bigNumberStrings` (BIGINT
 * and DECIMAL come back as strings, never rounded), `trace: false` (no stack captured per query). URL options: `charset` (default
 * `utf8mb4`), `ssl_ca`/`ssl_cert`/`ssl_key` (files read now, relative to the project root;
 * any of them turns TLS on with certificate verification).
 */
export async function connectMysql(options: ConnectOptions, flavour: MysqlFlavour): Promise<Connection> {
  const url = parseConnectionUrl(options.url, flavour.type, options.databaseName);
  const ctx: ErrorContext = { type: flavour.type, databaseName: options.databaseName, secrets: urlSecrets(options.url) };
  const mysql = await importDriver('mysql2', flavour.type, () => import('mysql2/promise'));
  const config: ConnectionOptions = {
    host: url.host ?? '127.0.0.1',
    port: url.port ?? 3306,
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
  };
  let connection: Mysql2Connection;
  try {
    connection = await (mysql.default ?? mysql).createConnection(config);
  } catch (e) {
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
      grantDatabase: `GRANT ALL ON ${mysqlQuoting.ident(database)}.* TO ${config.user === undefined ? 'the user' : `${mysqlQuoting.literal(config.user)}@'%'`}`,
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
    throw new MtoolError('MTOOL_CONNECTION', `${ctx.type} (${ctx.databaseName}): cannot read the ${option} file '${file}' (${reason}); fix the path in the URL option ${option}`, { cause: e, database: ctx.databaseName });
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

  async sendAll(steps: readonly StatementStep[], onRecorded?: (step: number) => void): Promise<void> {
    if (steps.some((s, i) => (s.begin && i > 0) || s.commit)) {
      throw new MtoolError('MTOOL_INTERNAL', `${this.#ctx.type} (${this.#ctx.databaseName}): a message may begin a transaction with its first step only, and commit none`);
    }
    await this.#message(steps, onRecorded);
  }

  /**
   * Steps as one multi-statement query: the server stops at the first failing statement, and
   * mysql2's count of the results before it names the part and its step. Each migration's
   * execution time starts with its first step in the message (`@mtool_started`) when its record
   * is in the message too, so its last statement's own time is in it; on a MariaDB server, after
   * the message's first migration, with the record before it ({@link chainedElapsedMsSql}).
   */
  async #message(steps: readonly StatementStep[], onRecorded?: (step: number) => void): Promise<void> {
    const parts: { part: StepPart; step: number }[] = [];
    const sql: string[] = [];
    /** Result index of each record part → its step. */
    const records = new Map<number, number>();
    const add = (part: StepPart, step: number, text: string): void => {
      if (part === 'record') records.set(parts.length, step);
      parts.push({ part, step });
      sql.push(text);
    };
    // A step starts a migration when the step before it carried a record; the migration's record
    // is then the first one at or after it.
    const recordAhead = new Array<boolean>(steps.length);
    const chained = this.#mariadbServer;
    let recorded = 0;
    for (let i = steps.length - 1, ahead = false; i >= 0; i--) recordAhead[i] = ahead ||= steps[i]!.record !== undefined;
    for (let i = 0; i < steps.length; i++) {
      const step = steps[i]!;
      if (step.begin) add('begin', i, 'START TRANSACTION');
      if (recordAhead[i] && (i === 0 || (!chained && steps[i - 1]!.record !== undefined))) add('begin', i, MARK_STARTED);
      add('statement', i, step.sql);
      if (step.record) add('record', i, step.record(chained ? chainedElapsedMsSql(recorded++) : ELAPSED_MS_SQL, NOW_UTC_SQL));
    }
    // The callback connection under mysql2/promise's wrapper: its query command tells how far it
    // got (mysql2 advances `_resultIndex` on each "more results"), and emits each statement's
    // result as the server sends it.
    const core = (this.#open() as unknown as { connection: { query(sql: string, done: (error: unknown) => void): QueryCommand } }).connection;
    let failedAt = 0;
    try {
      await new Promise<void>((resolve, reject) => {
        const command = core.query(sql.join(';\n'), (error: unknown) => {
          if (!error) return resolve();
          failedAt = command._resultIndex ?? 0;
          reject(error);
        });
        if (onRecorded && records.size > 0) {
          command.on('result', () => {
            const step = records.get(command._resultIndex ?? -1);
            if (step === undefined) return;
            records.delete(command._resultIndex!);
            onRecorded(step);
          });
        }
      });
    } catch (e) {
      const failed = parts[Math.min(failedAt, parts.length - 1)]!;
      throw markFailedPart(this.#wrap(e), failed.part, failed.step);
    }
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

  /**
   * Whether the server announced itself as MariaDB in its handshake (a `mysql` database may be
   * served by MariaDB, and a `mariadb` one by MySQL); false when mysql2 does not say.
   */
  get #mariadbServer(): boolean {
    const core = (this.#connection as unknown as { connection?: { _handshakePacket?: { serverVersion?: unknown } } } | undefined)?.connection;
    return /mariadb/i.test(String(core?._handshakePacket?.serverVersion ?? ''));
  }

  #open(): Mysql2Connection {
    if (this.#broken !== undefined) throw new MysqlError('MTOOL_CONNECTION', this.#ctx, this.#broken, 'the session was lost; reconnect');
    if (!this.#connection) throw new MtoolError('MTOOL_INTERNAL', `${this.#ctx.type} (${this.#ctx.databaseName}): query on a closed connection`);
    return this.#connection;
  }
}
