import { performance } from 'node:perf_hooks';
import type { ConnectionOptions } from 'node:tls';
import type { Pool, PoolClient, PoolConfig, QueryResult as PgResult } from 'pg';
import { MtoolError } from '../../errors.js';
import { parseConnectionUrl, urlSecrets, type ConnectionUrl } from '../../net/connection-url.js';
import { connectHint, type ConnectTarget } from '../connect-hint.js';
import type { ErrorContext } from '../driver-error.js';
import { importDriver } from '../import-driver.js';
import { failedPart, inPart, markFailedPart } from '../step-part.js';
import { untilGone } from '../until-gone.js';
import type { ConnectOptions, Connection, QueryResult, Row, StatementStep, StepPart } from '../types.js';
import { PostgresError } from './postgres-error.js';
import { postgresQuoting } from './quoting.js';
import { sslPlan, sslRetryable } from './ssl-config.js';
import { urlOptionHint } from './url-option-hint.js';

type PgModule = typeof import('pg');

interface PoolEntry {
  readonly pool: Pool;
  /** `pool_size`: idle sessions kept beyond this are closed on release (SQLAlchemy's overflow). */
  readonly poolSize: number;
  /** A session of its own with the pool's settings, outside its bound; `release()` ends it. */
  outside(): Promise<PoolClient>;
}

/**
 * Pools shared by every connection to the same URL in this process, so `pool_size` and
 * `max_overflow` bound the sessions mtool opens to one server. Keyed by the full URL (kept in
 * memory only, never logged).
 */
const pools = new Map<string, Promise<PoolEntry>>();

/** Oids whose text form is returned as is: dates and times stay the server's text in every dialect. */
const TEXT_OIDS = new Set([1082 /* date */, 1083 /* time */, 1114 /* timestamp */, 1184 /* timestamptz */, 1186 /* interval */, 1266 /* timetz */]);
const TEXT_ARRAY_OIDS = new Set([1182, 1183, 1115, 1185, 1187, 1270]);
const MODIFYING = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE', 'COPY']);

/**
 * Open one PostgreSQL session: a client taken from the URL's shared pool and held until
 * `close()`, so locks, transactions and `SET`s stay on one server session.
 *
 * URL options: `sslmode`/`sslcert`/`sslkey`/`sslrootcert` (see {@link sslPlan}),
 * `application_name`, `options` (libpq's: server settings for the session, `-c lock_timeout=5s`),
 * `connect_timeout` (each new server connection), and the pool options:
 * - `pool_size` + `max_overflow` → pg Pool `max` (pg has no overflow notion; sessions released
 *   while `pool_size` are already idle are closed instead of kept, as SQLAlchemy closes overflow);
 * - `pool_timeout` → pg Pool `connectionTimeoutMillis`: the longest wait for a session, from
 *   the pool or a new connection;
 * - `pool_recycle` > 0 → pg Pool `maxLifetimeSeconds`.
 * Pools let the process exit when idle; {@link endPostgresPools} closes them at once.
 */
export async function connectPostgres(options: ConnectOptions): Promise<Connection> {
  const url = parseConnectionUrl(options.url, 'postgresql', options.databaseName);
  const ctx: ErrorContext = { type: 'postgresql', databaseName: options.databaseName, secrets: urlSecrets(options.url) };
  const pg = await importDriver('pg', 'postgresql', () => import('pg'));
  const key = `${options.url}\0${options.root}`;
  let entry = pools.get(key);
  if (!entry) {
    entry = createPool(pg, url, options.root, ctx);
    pools.set(key, entry);
    entry.catch(() => pools.delete(key));
  }
  const pooled = await entry;
  const { pool } = pooled;
  if (options.second === 'spare' && pool.idleCount === 0 && pool.totalCount >= (pool.options.max ?? Infinity)) {
    throw new MtoolError('MTOOL_CONNECTION', `postgresql (${options.databaseName}): no spare session: the pool's ${pool.totalCount} (pool_size + max_overflow) are in use`, { database: options.databaseName });
  }
  let client: PoolClient;
  try {
    client = options.second === 'urgent' ? await pooled.outside() : await pool.connect();
  } catch (e) {
    throw new PostgresError('MTOOL_CONNECTION', ctx, e, urlOptionHint(e, url) ?? connectHint(e, connectTarget(url)));
  }
  // Back to the search_path set here, or to the session's own (the pool's DISCARD ALL restores
  // it); back to the user that logged in, acting as itself.
  const sessionReset = {
    schema: [options.pgSchema ? `SET search_path TO ${postgresQuoting.ident(options.pgSchema)}, public` : 'RESET search_path'],
    role: ['RESET SESSION AUTHORIZATION', 'RESET ROLE'],
    'foreign-keys': ['RESET session_replication_role'],
  };
  const connection = new PostgresConnection(pg, client, pooled, ctx, sessionReset);
  if (options.pgSchema) {
    try {
      const schema = postgresQuoting.ident(options.pgSchema);
      await connection.query(`SET search_path TO ${schema}, public`);
      // PostgreSQL passes over a schema of the search path that does not exist (or that the user
      // may not use): mtool's tables and the migrations would land in the next one, and a later
      // run, once the schema exists, would find no tracking table there and apply everything again.
      const current = (await connection.query('SELECT current_schema() AS schema')).rows[0]?.schema;
      if (current !== options.pgSchema) {
        const instead = typeof current === 'string' ? `mtool would keep its tables and run the migrations in schema '${current}' instead` : 'no schema of the search path exists';
        throw new MtoolError('MTOOL_CONFIG', `postgresql (${options.databaseName}): pgSchema '${options.pgSchema}' does not exist in this database, or the user may not use it; ${instead}. Create it first (CREATE SCHEMA ${schema}) or correct pgSchema`, {
          database: options.databaseName,
          hint: '',
        });
      }
    } catch (e) {
      await connection.close();
      throw e;
    }
  }
  return connection;
}

/** Close every pool this process opened (for a clean shutdown or between tests). */
export async function endPostgresPools(): Promise<void> {
  const entries = [...pools.values()];
  pools.clear();
  await Promise.all(entries.map(async (p) => (await p.catch(() => undefined))?.pool.end()));
}

async function createPool(pg: PgModule, url: ConnectionUrl, root: string, ctx: ErrorContext): Promise<PoolEntry> {
  const opts = url.postgres!;
  const plan = await sslPlan(opts, root, ctx);
  const types = textDateTypes(pg);
  const connectTimeoutMs = opts.connectTimeout === undefined ? undefined : Math.round(opts.connectTimeout * 1000);
  // The pool's connectionTimeoutMillis bounds the wait for a session (pool_timeout); a client's
  // own connectionTimeoutMillis bounds one TCP+startup (connect_timeout). pg gives both the
  // pool's value unless the client class overrides it.
  const BaseClient = pg.Client;
  class TimedClient extends BaseClient {
    constructor(config: ConstructorParameters<typeof BaseClient>[0]) {
      super(connectTimeoutMs === undefined || typeof config !== 'object' ? config : { ...config, connectionTimeoutMillis: connectTimeoutMs });
    }
  }
  const config = (ssl: false | ConnectionOptions): PoolConfig => ({
    host: url.host ?? '127.0.0.1',
    port: url.port ?? 5432,
    user: url.user ?? 'postgres',
    password: url.password,
    database: url.database ?? url.user ?? 'postgres',
    ssl,
    application_name: opts.applicationName,
    ...(opts.options === undefined ? {} : { options: opts.options }),
    max: opts.poolSize + opts.maxOverflow,
    connectionTimeoutMillis: Math.round(opts.poolTimeout * 1000),
    maxLifetimeSeconds: opts.poolRecycle > 0 ? opts.poolRecycle : 0,
    idleTimeoutMillis: 10_000,
    allowExitOnIdle: true,
    Client: TimedClient as unknown as PoolConfig['Client'],
    types,
  });
  const make = (ssl: false | ConnectionOptions): Pool => {
    const pool = new pg.Pool(config(ssl));
    // An idle session dropped by the server emits 'error' on the pool; without a listener
    // Node would crash the process. The next checkout simply opens a new session.
    pool.on('error', () => undefined);
    return pool;
  };
  let ssl = plan.first;
  let pool = make(ssl);
  if (plan.fallback !== undefined) {
    // Probe once which of libpq's allow/prefer variants this server takes.
    try {
      (await pool.connect()).release();
    } catch (e) {
      if (!sslRetryable(e, plan.first !== false)) throw new PostgresError('MTOOL_CONNECTION', ctx, e, urlOptionHint(e, url) ?? connectHint(e, connectTarget(url)));
      await pool.end();
      ssl = plan.fallback;
      pool = make(ssl);
    }
  }
  const outside = async (): Promise<PoolClient> => {
    const client = new TimedClient(config(ssl));
    // Until a connection holds it: a session the server drops must not crash the process.
    client.on('error', () => undefined);
    await client.connect();
    return Object.assign(client, { release: () => void client.end().catch(() => undefined) }) as unknown as PoolClient;
  };
  return { pool, poolSize: opts.poolSize, outside };
}

/** Per-client type parsers: 64-bit ints and numerics stay strings (pg's default), dates stay text. */
function textDateTypes(pg: PgModule): { getTypeParser: (oid: number, format?: string) => (value: string) => unknown } {
  const textArray = pg.types.getTypeParser(1009 as Parameters<PgModule['types']['getTypeParser']>[0], 'text');
  return {
    getTypeParser(oid: number, format?: string) {
      if (format !== 'binary') {
        if (TEXT_OIDS.has(oid)) return (value: string) => value;
        if (TEXT_ARRAY_OIDS.has(oid)) return textArray as (value: string) => unknown;
      }
      return pg.types.getTypeParser(oid, (format ?? 'text') as 'text') as (value: string) => unknown;
    },
  };
}

/** Where a session goes, and what PostgreSQL's errors say about a refused one ({@link connectHint}). */
function connectTarget(url: ConnectionUrl): ConnectTarget {
  const host = url.host ?? '127.0.0.1';
  const port = url.port ?? 5432;
  const database = url.database ?? url.user ?? 'postgres';
  return {
    product: 'PostgreSQL',
    host,
    port,
    createDatabase: `CREATE DATABASE ${postgresQuoting.ident(database)}`,
    // invalid_catalog_name; invalid_password, invalid_authorization_specification (no such role, no pg_hba.conf entry).
    unknownDatabase: ['3D000'],
    refusedLogin: ['28P01', '28000'],
    loginRules: "the server's pg_hba.conf rules for this host, user and sslmode",
    otherwise: `check that PostgreSQL is running at ${host}:${port} and that the URL's user, password, database and sslmode are right`,
  };
}

/**
 * Sent after BEGIN when a migration's transaction opens ({@link PostgresConnection.send}).
 *
 * `synchronous_commit` off for the migration's own transaction: its COMMIT returns without waiting
 * for the WAL flush (about a third of a small migration's time here). Still one transaction per
 * migration, visible and atomic at once; what an asynchronous commit gives up is only that an
 * operating-system or server crash within the next few hundred milliseconds may lose the newest
 * migrations, each whole with its tracking row, never half. Nothing is lost once `migrate`
 * returns: its last write, the lock release, commits synchronously, and that flushes the WAL up to
 * it, every earlier commit included.
 */
const ASYNC_COMMIT = 'SET LOCAL synchronous_commit TO off';

/**
 * How often (ms) the server checks, while a statement of a migration runs, that mtool's socket is
 * still there, and stops the statement when it is not (PostgreSQL 14+, on Linux, macOS and the
 * BSDs). Set per session before a migration's COMMIT may travel with its last statement: a
 * `migrate` killed during a long statement then has its transaction rolled back within this
 * time instead of committed behind its back once the statement ends.
 */
const CLIENT_CHECK_MS = 250;

/** Whole milliseconds since the server received the current message (StatementStep.record). */
const ELAPSED_MS_SQL = '(extract(epoch from clock_timestamp() - statement_timestamp()) * 1000)::integer';

/**
 * Sent after BEGIN in a message of several migrations ({@link PostgresConnection.sendAll}):
 * {@link ASYNC_COMMIT} (`set_config(..., true)` is `SET LOCAL`) and the migration's start, kept
 * in a setting of the session (one local to the transaction would be gone where a file ends its
 * own transaction early, with an explicit COMMIT). One statement: each statement of a message
 * costs the server a turn of its own, as a migration's small statement does.
 */
const ASYNC_COMMIT_MARK_STARTED = "SELECT set_config('synchronous_commit', 'off', true), set_config('mtool.started', clock_timestamp()::text, false)";
/** The server's current time (`applied_at`): not the transaction's start, which is the message's for all but the first migration. */
const NOW_SQL = 'clock_timestamp()';

/** Whole milliseconds since the migration's start ({@link ASYNC_COMMIT_MARK_STARTED}). */
const SINCE_STARTED_MS_SQL = "(extract(epoch from clock_timestamp() - current_setting('mtool.started')::timestamptz) * 1000)::integer";

/** A pg simple-protocol query that counts the statements of its message that completed. */
interface CountingQuery {
  readonly completed: number;
  /** Called with each completed statement's index, as the server reports it, and the text of the first column of the last row it returned (null: SQL NULL; undefined: no row). */
  onComplete: ((index: number, firstValue: string | null | undefined) => void) | undefined;
  run(client: PoolClient): Promise<void>;
}

const countingQueries = new WeakMap<PgModule, new (config: { text: string }) => CountingQuery>();

/**
 * The index of the part of a message that the server's 1-based character `position` (counted
 * from the message's start) falls in; 0 when there is none. Parts are joined by `;\n`.
 */
function partAt(parts: readonly { at: number }[], sql: readonly string[], position: number | undefined): number {
  if (position === undefined) return 0;
  for (let k = parts.length - 1; k > 0; k--) {
    if (position > parts[k]!.at) return position <= parts[k]!.at + sql[k]!.length + 1 ? k : 0;
  }
  return 0;
}

/**
 * pg's Query with a count of CommandComplete messages (one per statement that ran), through the
 * Submittable handlers pg calls on it: after an error, the count names the failing statement.
 */
function countingQuery(pg: PgModule, text: string, onComplete?: CountingQuery['onComplete']): CountingQuery {
  let Counting = countingQueries.get(pg);
  if (!Counting) {
    const Base = pg.Query as unknown as new (config: { text: string }) => {
      callback?: (error: Error | null) => void;
      handleCommandComplete(msg: unknown, connection: unknown): void;
      handleDataRow(msg: { fields: (string | null)[] }): void;
    };
    Counting = class extends Base implements CountingQuery {
      completed = 0;
      onComplete: CountingQuery['onComplete'];
      #firstValue: string | null | undefined;
      override handleDataRow(msg: { fields: (string | null)[] }): void {
        this.#firstValue = msg.fields[0];
        super.handleDataRow(msg);
      }
      override handleCommandComplete(msg: unknown, connection: unknown): void {
        this.completed++;
        super.handleCommandComplete(msg, connection);
        const value = this.#firstValue;
        this.#firstValue = undefined;
        this.onComplete?.(this.completed - 1, value);
      }
      run(client: PoolClient): Promise<void> {
        return new Promise((resolve, reject) => {
          this.callback = (error) => (error ? reject(error) : resolve());
          client.query(this as never);
        });
      }
    };
    countingQueries.set(pg, Counting);
  }
  const query = new Counting({ text });
  query.onComplete = onComplete;
  return query;
}

/** One pg pool client held for the life of the connection. */
class PostgresConnection implements Connection {
  readonly type = 'postgresql' as const;
  readonly answersAtMessageEnd = true;
  readonly databaseName: string;
  #client: PoolClient | undefined;
  readonly #pooled: PoolEntry;
  readonly #ctx: ErrorContext;
  readonly #pg: PgModule;
  /** Set when the session broke: it is then destroyed instead of returned to the pool. */
  #broken: Error | undefined;
  #inTransaction = false;
  /** Whether the server checks that the client is alive during statements ({@link CLIENT_CHECK_MS}); unknown until the first migration. */
  #checksClient: boolean | undefined;
  /** Removed on close: a pooled client outlives this connection and would collect one listener per session. */
  readonly #onError = (e: Error): void => {
    this.#broken = e;
  };

  readonly sessionReset: Connection['sessionReset'];

  constructor(pg: PgModule, client: PoolClient, pooled: PoolEntry, ctx: ErrorContext, sessionReset: Connection['sessionReset']) {
    this.sessionReset = sessionReset;
    this.#pg = pg;
    this.#client = client;
    this.#pooled = pooled;
    this.#ctx = ctx;
    this.databaseName = ctx.databaseName;
    // A held session that the server drops emits 'error'; keep it so the next call fails clearly.
    client.on('error', this.#onError);
  }

  async query(sql: string): Promise<QueryResult> {
    const client = this.#open();
    let result: PgResult | PgResult[];
    try {
      result = (await client.query(sql)) as PgResult | PgResult[];
    } catch (e) {
      throw this.#wrap(e);
    }
    // Several statements in one call (the simple protocol allows it) yield one result each.
    const last = Array.isArray(result) ? result[result.length - 1]! : result;
    return {
      rows: (last.rows ?? []) as Row[],
      rowCount: MODIFYING.has(last.command) ? (last.rowCount ?? 0) : 0,
    };
  }

  async queryArrays(sql: string): Promise<unknown[][]> {
    const client = this.#open();
    try {
      const result = (await client.query({ text: sql, rowMode: 'array' })) as unknown as PgResult;
      return (result.rows ?? []) as unknown as unknown[][];
    } catch (e) {
      throw this.#wrap(e);
    }
  }

  async begin(): Promise<void> {
    await this.query('BEGIN');
    this.#inTransaction = true;
  }

  async beginSnapshot(): Promise<void> {
    await this.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    this.#inTransaction = true;
    // The transaction's snapshot is taken by its first statement, not by BEGIN.
    await this.query('SELECT 1');
  }

  async send(step: StatementStep): Promise<void> {
    if (!step.begin && !this.#inTransaction) {
      // Several statements in one message run as one implicit transaction, which a statement
      // that must run outside any (CREATE INDEX CONCURRENTLY) refuses: one message per part.
      const started = performance.now();
      await this.query(step.sql);
      const ms = String(Math.round(performance.now() - started));
      if (step.record) await inPart('record', () => this.query(step.record!(ms)));
      if (step.commit) await inPart('commit', () => this.commit());
      return;
    }
    // Before the first BEGIN (a failing SET must not abort a transaction).
    if (step.begin) this.#checksClient ??= await this.#checkClient();
    // Without the server's check, a client killed during the statement would still see the
    // COMMIT run once the statement ends: the COMMIT then waits for the statement's answer.
    const commitAlone = step.commit === true && !this.#checksClient;
    await this.#message([commitAlone ? { ...step, commit: false } : step], false);
    if (commitAlone) await inPart('commit', () => this.commit());
  }

  /**
   * Several migrations in one message, each a transaction of its own (its first step begins it,
   * its last step records and commits it). Where the server cannot check that the client is
   * still there ({@link CLIENT_CHECK_MS}), a COMMIT must not travel with statements: the steps
   * then go one by one, as {@link send} sends them.
   */
  async sendAll(steps: readonly StatementStep[], onRecorded?: (step: number, executionMs?: number) => void): Promise<void> {
    if (steps.some((s) => s.begin)) this.#checksClient ??= await this.#checkClient();
    if (this.#checksClient) return this.#message(steps, true, onRecorded);
    return this.#oneByOne(steps, onRecorded);
  }

  /** {@link sendAll} one step at a time, each as {@link send} sends it. */
  async #oneByOne(steps: readonly StatementStep[], onRecorded?: (step: number, executionMs?: number) => void): Promise<void> {
    for (let i = 0; i < steps.length; i++) {
      try {
        await this.send(steps[i]!);
      } catch (error) {
        throw markFailedPart(error, failedPart(error), i);
      }
      if (steps[i]!.record) onRecorded?.(i);
    }
  }

  /**
   * Steps as one simple-protocol message: the server runs nothing after a failing statement, and
   * the count of statements that completed names the failing part and its step. A failure leaves
   * the migration's transaction open in the failed state. A migration's time counts from the
   * message's start ({@link send}), or from its BEGIN (`perMigrationClock`, {@link sendAll}).
   * `onRecorded` gets each migration's execution time as recorded, read back from its record:
   * the server sends a message's answers when its output buffer fills or the message ends, so
   * when an answer arrives says little about when its migration ended.
   */
  async #message(steps: readonly StatementStep[], perMigrationClock: boolean, onRecorded?: (step: number, executionMs?: number) => void): Promise<void> {
    const parts: { part: StepPart; step: number; at: number }[] = [];
    const sql: string[] = [];
    /** Part index after which each migration is done (its COMMIT, or its record) → its step. */
    const done = new Map<number, number>();
    let at = 0;
    const add = (part: StepPart, step: number, text: string): void => {
      parts.push({ part, step, at });
      sql.push(text);
      at += text.length + 2; // ';\n'
    };
    const elapsedMsSql = perMigrationClock ? SINCE_STARTED_MS_SQL : ELAPSED_MS_SQL;
    for (let i = 0; i < steps.length; i++) {
      const step = steps[i]!;
      if (step.begin) {
        add('begin', i, 'BEGIN');
        add('begin', i, perMigrationClock ? ASYNC_COMMIT_MARK_STARTED : ASYNC_COMMIT);
      }
      add('statement', i, step.sql);
      if (step.record) add('record', i, step.record(elapsedMsSql, NOW_SQL, onRecorded !== undefined));
      if (step.commit) add('commit', i, 'COMMIT');
      if (step.record) done.set(parts.length - 1, i);
    }
    /** The execution time the last record returned, until its migration is done (its COMMIT follows it). */
    let recordedMs: number | undefined;
    const query = countingQuery(this.#pg, sql.join(';\n'), onRecorded && done.size > 0 ? (index, value) => {
      if (parts[index]!.part === 'record' && value != null) recordedMs = Number(value);
      const step = done.get(index);
      if (step === undefined) return;
      onRecorded(step, recordedMs);
      recordedMs = undefined;
    } : undefined);
    // Outside the try: a session lost before the message already has its error, not one to wrap again.
    const client = this.#open();
    const wasInTransaction = this.#inTransaction;
    // From the first BEGIN on a transaction is open until a COMMIT ends it, failed or not.
    if (steps.some((s) => s.begin)) this.#inTransaction = true;
    try {
      await query.run(client);
    } catch (e) {
      const error = this.#wrap(e);
      // The server parses a whole message before it runs any of it: a syntax error anywhere
      // fails it with nothing run, at a position in a later part than the first.
      const unparsed = query.completed === 0 ? partAt(parts, sql, error.position) : 0;
      if (unparsed > 0 && parts[unparsed]!.step > 0 && !wasInTransaction) {
        // No step ran, so the steps before the unparsable one have not committed as the count
        // would say: send them one by one, as without the message, and the failure comes from
        // its own statement after the migrations before it were applied.
        this.#inTransaction = false;
        return this.#oneByOne(steps, onRecorded);
      }
      const failed = parts[unparsed > 0 ? unparsed : Math.min(query.completed, parts.length - 1)]!;
      // The migrations before the failing one committed. Its own transaction stays open in the
      // failed state (ROLLBACK it), unless its COMMIT failed, which ends it.
      this.#inTransaction = failed.part !== 'commit' && (wasInTransaction || steps.slice(0, failed.step + 1).some((s) => s.begin));
      if (error.position !== undefined) {
        // The server counts from the start of the whole message; only the statement's own
        // position means something to the reader.
        const position = error.position - failed.at;
        Object.defineProperty(error, 'position', { value: failed.part === 'statement' && position > 0 ? position : undefined });
      }
      throw markFailedPart(error, failed.part, failed.step);
    }
    if (steps[steps.length - 1]?.commit) this.#inTransaction = false;
  }

  /** Turn on {@link CLIENT_CHECK_MS} for this session; false where the server has no such check. */
  async #checkClient(): Promise<boolean> {
    try {
      await this.query(`SET client_connection_check_interval = ${CLIENT_CHECK_MS}`);
      return true;
    } catch (error) {
      // PostgreSQL before 14 (unknown parameter), or a platform without the check.
      if (this.#broken) throw error;
      return false;
    }
  }

  async commit(): Promise<void> {
    this.#inTransaction = false;
    await this.query('COMMIT');
  }

  async rollback(): Promise<void> {
    this.#inTransaction = false;
    await this.query('ROLLBACK');
  }

  /** The session's backend process id (pg_stat_activity's `pid`). */
  get serverSession(): number | undefined {
    const pid = (this.#client as { processID?: number | null } | undefined)?.processID;
    return pid ? Number(pid) : undefined;
  }

  async cancel(): Promise<void> {
    await this.#fromOutside((other, pid) => other.query(`SELECT pg_cancel_backend(${pid})`));
  }

  async terminate(): Promise<void> {
    await this.#fromOutside(async (other, pid) => {
      await other.query(`SELECT pg_terminate_backend(${pid})`);
      await untilGone(() => other.query(`SELECT 1 FROM pg_stat_activity WHERE pid = ${pid}`).then((r) => r.rows.length > 0), `postgresql (${this.#ctx.databaseName}): session ${pid}`);
    });
  }

  /**
   * Act on this session's server process from a session of its own (the pool's may all be busy:
   * pool_size=1 holds only this one). Nothing to do before the session has a process.
   */
  async #fromOutside(act: (other: PoolClient, pid: number) => Promise<unknown>): Promise<void> {
    const pid = this.serverSession;
    if (!pid) return;
    const other = await this.#pooled.outside();
    try {
      await act(other, pid);
    } finally {
      other.release();
    }
  }

  async serverVersion(): Promise<string> {
    const { rows } = await this.query('SHOW server_version');
    return String(rows[0]?.server_version ?? '');
  }

  /**
   * Return the session to the pool clean: roll back what is open and `DISCARD ALL` (search_path,
   * session advisory locks, temp tables). Beyond `pool_size` idle sessions, or when cleaning
   * fails, the session is closed instead.
   */
  async close(): Promise<void> {
    const client = this.#client;
    if (!client) return;
    this.#client = undefined;
    client.off('error', this.#onError);
    let destroy: Error | boolean = this.#broken ?? false;
    if (!destroy) {
      try {
        if (this.#inTransaction) await client.query('ROLLBACK');
        await client.query('DISCARD ALL');
      } catch (e) {
        destroy = e as Error;
      }
    }
    if (!destroy && this.#pooled.pool.idleCount >= this.#pooled.poolSize) destroy = true;
    client.release(destroy);
  }

  /** A driver error as PostgresError; a session-level failure marks the session broken. */
  #wrap(e: unknown): PostgresError {
    const sqlState = (e as { code?: unknown }).code;
    const lost = typeof sqlState !== 'string' || !/^[0-9A-Z]{5}$/.test(sqlState);
    if (lost) this.#broken = e as Error;
    return new PostgresError(lost ? 'MTOOL_CONNECTION' : 'MTOOL_DATABASE', this.#ctx, e);
  }

  #open(): PoolClient {
    if (this.#broken) {
      throw new PostgresError('MTOOL_CONNECTION', this.#ctx, this.#broken, 'the session was lost; reconnect');
    }
    if (!this.#client) throw new MtoolError('MTOOL_INTERNAL', `${this.#ctx.type} (${this.#ctx.databaseName}): query on a closed connection`);
    return this.#client;
  }
}
