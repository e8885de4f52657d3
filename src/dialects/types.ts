/**
 * The contract every dialect folder (`postgresql`, `mysql` (+ `mariadb` flavour), `sqlite`,
 * `clickhouse`) fulfils. The engine asks capabilities, never a dialect's name.
 *
 * Values never travel as bound parameters: the old ClickHouse server rejects them, so every
 * dialect inlines literals through its quoting module and one code path serves all backends.
 */
import type { SchemaIR } from '../schema/ir.js';

export type DatabaseType = 'postgresql' | 'mysql' | 'mariadb' | 'sqlite' | 'clickhouse';
export const DATABASE_TYPES: readonly DatabaseType[] = ['postgresql', 'mysql', 'mariadb', 'sqlite', 'clickhouse'];

/** Splitter presets (src/parser). MariaDB shares MySQL's. */
export type SplitDialect = 'postgresql' | 'mysql' | 'sqlite' | 'clickhouse';

export interface Capabilities {
  /** DDL runs inside a transaction and is rolled back with it (PostgreSQL, SQLite). */
  readonly transactionalDdl: boolean;
  /** Transactions exist at all (not on ClickHouse). */
  readonly transactions: boolean;
  /** SAVEPOINT / ROLLBACK TO SAVEPOINT work. */
  readonly savepoints: boolean;
  /**
   * One writer at a time for the whole database (SQLite): a transaction kept open across
   * migrations blocks no writer that each migration would not block anyway, so `migrate` groups
   * migrations into fewer commits.
   */
  readonly singleWriter: boolean;
  /** CREATE INDEX CONCURRENTLY exists. */
  readonly concurrentIndexes: boolean;
  /**
   * The catalog can be read through a snapshot while other sessions change the schema
   * ({@link Connection.beginSnapshot}: PostgreSQL); not MySQL's information_schema.
   */
  readonly catalogSnapshots: boolean;
  /** Row-level `SELECT ... FOR UPDATE` or an equivalent atomic claim exists for the lock row. */
  readonly atomicLock: boolean;
  /** Schemas (namespaces) inside a database, as PostgreSQL has. */
  readonly schemas: boolean;
  /** Native enum types declared separately from tables (PostgreSQL). */
  readonly namedEnums: boolean;
  /** Foreign keys are enforced. */
  readonly foreignKeys: boolean;
  /**
   * `INSERT/UPDATE/DELETE ... RETURNING` exists (PostgreSQL, SQLite >= 3.35, MariaDB >= 10.5 for
   * INSERT/DELETE); not on MySQL or ClickHouse.
   */
  readonly returning: boolean;
  /** `CREATE SEQUENCE` exists (PostgreSQL, MariaDB >= 10.3); not on MySQL, SQLite or ClickHouse. */
  readonly sequences: boolean;
}

/** SQL text construction for one dialect. Everything built from names or values goes through here. */
export interface Quoting {
  /** Quote one identifier: `users` → `"users"` / `` `users` ``. */
  ident(name: string): string;
  /** Quote a possibly schema-qualified name given as parts. */
  qualified(...parts: (string | undefined)[]): string;
  /** Inline a value as a SQL literal (string, number, bigint, boolean, null, Date, Uint8Array). */
  literal(value: SqlValue): string;
}

export type SqlValue = string | number | bigint | boolean | null | Date | Uint8Array;
export type Row = Record<string, unknown>;

export interface QueryResult {
  rows: Row[];
  /** Rows changed by INSERT/UPDATE/DELETE where the driver reports it, else 0. */
  rowCount: number;
}

/**
 * One open session to a database. Not safe for concurrent use: callers await each call.
 * Every driver error is rethrown as an MtoolError with code `MTOOL_DATABASE` (or
 * `MTOOL_CONNECTION`) whose message is scrubbed of credentials and names the dialect.
 */
export interface Connection {
  readonly type: DatabaseType;
  /** The database's name in the config (as in {@link ConnectOptions.databaseName}). */
  readonly databaseName: string;
  /**
   * SQLite under {@link ConnectOptions.readOnly}: the database file, which does not exist; the
   * connection reads an empty in-memory database in its place.
   */
  readonly absentFile?: string;
  /** Run one statement (never several joined by `;`). */
  query(sql: string): Promise<QueryResult>;
  /**
   * Run one statement for its effect alone (a migration's statement, a savepoint, a tracking
   * row): any rows it returns are dropped, no count is kept. Where the driver has a cheaper call
   * for that than {@link query} (better-sqlite3's `exec`: no statement object and no result
   * object per statement, ~35 µs less per migration). Absent: use query().
   */
  exec?(sql: string): Promise<void>;
  /** BEGIN / COMMIT / ROLLBACK; no-ops where `capabilities.transactions` is false. */
  begin(): Promise<void>;
  commit(): Promise<void>;
  rollback(): Promise<void>;
  /**
   * Begin a read-only transaction whose reads all see the database as it is now, also while
   * other sessions change the schema meanwhile (PostgreSQL: REPEATABLE READ, its snapshot taken
   * before this returns; the catalog is read through it). End it with commit() or rollback().
   * Present where `capabilities.catalogSnapshots` is true.
   */
  beginSnapshot?(): Promise<void>;
  /**
   * One statement of a migration with what travels with it, in one round trip where the protocol
   * takes several statements in one message (PostgreSQL's simple query protocol, MySQL and
   * MariaDB multi-statements): the migration's BEGIN before it, its tracking statement after it,
   * then COMMIT. The server runs nothing after a failing part; the error tells which part failed
   * ({@link failedPart}). With a transaction begun, a failure leaves it open in the failed state:
   * ROLLBACK it. A driver that cannot combine a step (PostgreSQL outside a transaction: a message
   * of several statements is a transaction of its own) sends its parts one by one.
   * Absent: call begin(), query() and commit().
   */
  send?(step: StatementStep): Promise<void>;
  /**
   * Several migrations' statements in one message, each migration's tracking statement right
   * after its last statement, where the protocol takes many statements at once and the server
   * stops at the first failing one. Each migration runs as the database runs DDL: on PostgreSQL
   * in a transaction of its own (its first step begins it, its last step commits it); on MySQL
   * and MariaDB in none (DDL commits itself, the tracking row commits with autocommit), where
   * a step that commits is refused, and one that begins unless it is the message's first: the
   * statements of one migration in its transaction, several to a message, the last sent on its
   * own ({@link send}) with its record and COMMIT. A migration's execution time starts with its
   * first step (the step after the previous step with a record). `onRecorded(i, ms)` runs as the
   * server reports step `i`'s migration recorded (and committed), while the rest of the message
   * still runs, with the execution time the server recorded where the driver had the record
   * return it (else the caller times it by the answer's arrival). The error is marked with the
   * failing step's index ({@link failedStep}) and part ({@link failedPart}); the migrations
   * before it are recorded, and a transaction of the failing one is left open in the failed
   * state: ROLLBACK it.
   *
   * `recordMany` (MySQL, MariaDB): the driver records the migrations of a message in groups
   * (see the driver) with that statement instead of each step's own record, so that a group of
   * migrations pays one commit of the tracking table, not one each. After a failure it records
   * the migrations that completed before it in the same way while the session lasts; where it
   * cannot (the session was lost, or that statement failed too), the migrations between the last
   * one reported recorded and the failing step ran whole without a row.
   */
  sendAll?(steps: readonly StatementStep[], onRecorded?: (step: number, executionMs?: number) => void, recordMany?: RecordMany): Promise<void>;
  /**
   * The server sends the answers to a {@link sendAll} message together when it ends (or its
   * output buffer fills), not as each statement completes (PostgreSQL): `onRecorded` then tells
   * which migrations ran, not when, and nothing tells which one runs now.
   */
  readonly answersAtMessageEnd?: boolean;
  /**
   * A reading statement's rows as arrays of values in select-list order, values as {@link query}
   * gives them, where the driver can skip making an object per row (a no-op `migrate` reads a
   * thousand tracking rows). One statement only. Absent: use query().
   */
  queryArrays?(sql: string): Promise<unknown[][]>;
  /**
   * Several reading statements in one message, where the protocol takes several at once (MySQL
   * and MariaDB multi-statements): each statement's rows, in order, as {@link query} gives them.
   * The server stops at the first failing statement, and the error does not tell which one
   * failed. Absent: {@link query} each.
   */
  queryMany?(statements: readonly string[]): Promise<Row[][]>;
  /**
   * Ask the server, from another session, to stop the statement this session runs now (Ctrl-C /
   * SIGTERM during a long migration statement): it then fails at once and its transaction rolls
   * back (ClickHouse, which has no transactions: `KILL QUERY` by the statement's query_id; what it
   * wrote stays). Does nothing when no statement runs. Absent where the driver cannot (SQLite
   * blocks the process while a statement runs).
   */
  cancel?(): Promise<void>;
  /**
   * End this connection's session on the server, from another session, after its client side was
   * lost (a network failure): the server may not have noticed yet and go on running what it was
   * sent. Its open transaction rolls back; a session already gone is no error. ClickHouse, whose
   * statements are requests of their own that the server runs to their end, stops the last one sent
   * and confirms it no longer runs. Also used after Ctrl-C when the run did not stop on its own.
   * @throws when the session (statement) cannot be confirmed ended: what it runs may still complete.
   * Absent where the driver cannot (SQLite runs in this process).
   */
  terminate?(): Promise<void>;
  /**
   * The statements that put this session back as it was when it opened, for each kind of
   * switch a migration statement can make ({@link Dialect.sessionSwitch}): its schema
   * (PostgreSQL: its search_path; MySQL and MariaDB: its current database), its role
   * (PostgreSQL), its autocommit (MySQL, MariaDB) and its foreign-key checks. Run after a
   * migration that switched it, so that the migration's tracking row, the migrations after it,
   * the snapshot and the lock's release find mtool's tables where they are, with the rights and
   * checks the session started with. Absent: nothing to put back.
   */
  readonly sessionReset?: Readonly<Partial<Record<SessionSwitch, readonly string[]>>>;
  /**
   * The largest statement the server takes, in bytes (MySQL's and MariaDB's
   * `max_allowed_packet`: it closes the session on a larger one). Absent where no limit matters.
   */
  statementLimitBytes?(): Promise<number>;
  /**
   * Go on in a new server session, the old one's settings and temporary tables left behind
   * ({@link SessionGuard} `renewSession`). Absent where sessions cannot be renewed.
   */
  renewSession?(): Promise<void>;
  /**
   * This session's id on the server (PostgreSQL: its backend's process id; MySQL and MariaDB: its
   * thread id), as another session names it ({@link ServerSessions}). Absent where sessions have
   * none (SQLite, ClickHouse) or before the session has one.
   */
  readonly serverSession?: number;
  /** Server version string, e.g. `15.19`, `10.11.19-MariaDB`, `18.16.1`. */
  serverVersion(): Promise<string>;
  close(): Promise<void>;
}

/**
 * {@link Dialect.serverSessions}: what one server session can learn of another ({@link
 * Connection.serverSession}), such as the session of a killed run, which the server lets go on
 * with what the run sent until it ends or is ended.
 */
export interface ServerSessions {
  /**
   * Whether server session `id` still runs, asked on `conn` (another session, which never counts
   * itself). A session that started less than `olderThanMs` ago (a few seconds' slack allowed)
   * is not the one asked about: the id was reused (PostgreSQL reuses process ids; a restarted
   * MySQL server, thread ids). Undefined when the server cannot tell (a user that may not see
   * other users' sessions, a failing query).
   */
  running(conn: Connection, id: number, olderThanMs: number): Promise<boolean | undefined>;
  /** The statement that ends server session `id`, for the user to run: `KILL 1234`, `SELECT pg_terminate_backend(1234)`. */
  endStatement(id: number): string;
}

/** A migration statement and the parts that travel with it ({@link Connection.send}). */
export interface StatementStep {
  /** One statement as the splitter gives it: no `;`, no trailing comment. */
  readonly sql: string;
  /** Open the migration's transaction first. */
  readonly begin?: boolean;
  /**
   * Record the migration after the statement: its tracking statement, given SQL for the whole
   * milliseconds the server has spent on the migration in this message so far (its execution
   * time is what ran before the message plus that) and, where the driver has it, SQL for the
   * server's current time in UTC (its `applied_at`: in a message of several migrations the
   * client cannot know when each one ends). `returningMs`: the statement also returns the
   * migration's `execution_ms` as its one column, for a driver whose server sends a message's
   * answers together (PostgreSQL buffers them to the message's end): the client cannot time
   * each migration by when its answer arrives.
   */
  readonly record?: (elapsedMsSql: string, nowSql?: string, returningMs?: boolean) => string;
  /** COMMIT after the record. */
  readonly commit?: boolean;
}

/**
 * The statement recording several migrations at once ({@link Connection.sendAll} on MySQL and
 * MariaDB, where each migration runs outside a transaction): one row for each record step given,
 * in order, with SQL for its execution time in whole milliseconds and for its `applied_at` (UTC).
 */
export type RecordMany = (rows: readonly { step: number; elapsedMsSql: string; appliedAtSql: string }[]) => string;

/** The part of a {@link StatementStep} that failed. */
export type StepPart = 'begin' | 'statement' | 'record' | 'commit';

export interface ConnectOptions {
  /** The database's name in the config, for error messages and logs. */
  databaseName: string;
  /** The resolved connection URL (never logged as is: see src/net/url). */
  url: string;
  /** PostgreSQL: schema put first on the search path. */
  pgSchema?: string;
  /** Project root, against which relative SQLite paths resolve. */
  root: string;
  /**
   * A connection beside one the caller holds, where sessions come from a bounded pool
   * (PostgreSQL's `pool_size` + `max_overflow`; elsewhere every connection is its own session):
   * `spare`, wanted only if it costs no wait, fails at once with `MTOOL_CONNECTION` when no
   * session is free and no more may be opened; `urgent`, needed whatever the bound (releasing the
   * lock after Ctrl-C while the migration holds the pool's only session), is a session of its
   * own outside the pool. Absent: a session from the pool, waiting up to `pool_timeout`.
   */
  second?: 'spare' | 'urgent';
  /**
   * The command only reads (`status`, `history`, `lock-status`, `migrate --dry-run`), or writes
   * only where mtool's tables exist (`rollback`, `unlock`): a SQLite
   * database file that does not exist is not created; the connection reads an empty database
   * instead and says so ({@link Connection.absentFile}).
   */
  readOnly?: boolean;
}

/** A server version split into numbers, for capability checks against minimum versions. */
export interface ServerVersion {
  major: number;
  minor: number;
  patch: number;
  /** The product, where one wire protocol serves several: `mysql` or `mariadb`; else the dialect. */
  product: string;
  /** The version string as the server reported it. */
  raw: string;
}

/** What {@link Dialect.introspect} reads. */
export interface IntrospectOptions {
  /**
   * PostgreSQL: the schema whose tables are keyed without a prefix (default: the connection's
   * `current_schema()`, which is `pgSchema` when configured). ClickHouse: the database to read
   * (default `currentDatabase()`). Ignored elsewhere.
   */
  schema?: string;
  /** PostgreSQL: schemas to read (default: every non-system schema). */
  schemas?: readonly string[];
  /**
   * Table names (bare names, or PostgreSQL keys `schema.table`) to leave out. Default: mtool's own
   * tables (`MTOOL_TRACKING_TABLES` in src/schema/schema-io.ts); pass the configured
   * `migrationTable`/`seedTable` names with them.
   */
  exclude?: readonly string[];
  /**
   * Read only these tables: keys as the IR keys them (bare names, PostgreSQL `schema.table` outside
   * the default schema), matched exactly, each with its columns, indexes and constraints; a key
   * naming no table reads nothing. Also read are the tables whose IR depends on one of them
   * (PostgreSQL: inheritance children, which ALTER TABLE changes too; SQLite: tables whose foreign
   * keys name one of them without columns, whose referenced columns are its primary key).
   * PostgreSQL enum types are read in full either way, so `[]` reads the enums alone. Default:
   * every table. For merging into an earlier IR: replace the entries of the asked and the
   * returned tables (see src/main/engine/snapshot-hook.ts).
   */
  tables?: readonly string[];
}

/**
 * What the engine needs from a dialect to keep its two tracking tables (migrations and lock): the
 * DDL, a timestamp literal, how to tell "someone else created it first" and "the lock row already
 * exists" apart from real failures, and how rows are changed. Each dialect folder implements it in
 * `tracking.ts`, loaded by {@link Dialect.tracking} on first use.
 */
/** {@link Dialect.backgroundWork}. */
export interface BackgroundWork {
  /** Whether a statement may leave work running (asked of every statement of a migration: a test of its text). */
  mayStart(text: string): boolean;
  /**
   * Read before such a statement (its text): the work already running where it may start some,
   * which the wait after it leaves alone.
   */
  before(conn: Connection, statement: string): Promise<ReadonlySet<string>>;
  /**
   * After the statement (its text): wait until the work it started is done (work started meanwhile
   * where the statement starts none is not its own). `progress` is called every few seconds of a
   * long wait; an aborted `signal` ends the wait early (the caller then stops).
   * @throws MtoolError `MTOOL_DATABASE` when the work failed or was removed before it finished.
   */
  wait(conn: Connection, running: ReadonlySet<string>, options: { signal?: AbortSignal; progress(message: string): void; statement: string }): Promise<void>;
}

export interface TrackingSql {
  /**
   * How tracking rows change:
   * - `sql`: plain INSERT / UPDATE / DELETE, and the lock is atomic through the lock table's
   *   primary key (PostgreSQL, MySQL/MariaDB, SQLite);
   * - `append`: every change is an INSERT of the row's new state with a higher `seq` and a
   *   `deleted` flag, read back with `FINAL` (ClickHouse: no transactions, no unique keys, and
   *   `ALTER TABLE ... DELETE` mutations run asynchronously on older servers).
   */
  readonly writeMode: 'sql' | 'append';
  /** Statements creating the migrations table when it is missing (idempotent). */
  createMigrationsTable(q: Quoting, table: string): string[];
  /** Statements creating the lock table when it is missing (idempotent). */
  createLockTable(q: Quoting, table: string): string[];
  /** A query returning one row `{ name }` for each of the given tables that exists in the connection's current schema/database. */
  existingTables(q: Quoting, tables: readonly string[]): string;
  /** A literal the `applied_at` / `locked_at` column accepts, meaning the given instant in UTC. */
  timestamp(q: Quoting, at: Date): string;
  /** The error means a concurrent `CREATE TABLE IF NOT EXISTS` won the race (re-check, then carry on). */
  isAlreadyExists(error: unknown): boolean;
  /** The error is a primary-key / unique violation (the lock row is held). */
  isUniqueViolation(error: unknown): boolean;
  /** The error says the user lacks a privilege (creating the tracking tables: which one to grant). */
  isPermissionDenied(error: unknown): boolean;
  /** What to do when creating the tracking tables was refused ({@link isPermissionDenied}). */
  readonly permissionHint: string;
  /**
   * A statement opening a transaction that holds the database's only write lock (SQLite:
   * `BEGIN IMMEDIATE`). With it, `migrate` checks the lock table, reads and plans inside that
   * transaction, and inserts and commits its lock row only when there is something to run: a run
   * with nothing to run rolls back and never writes (no journal, no fsync). Absent: the lock row
   * is committed at once.
   */
  readonly lockTransaction?: string;
}

/**
 * What a statement can switch in a session: the schema its names resolve in, the role it acts
 * as, whether it enforces foreign keys (SQLite's PRAGMA foreign_keys, MySQL's
 * foreign_key_checks, PostgreSQL's session_replication_role), or (MySQL, MariaDB) whether each
 * statement commits itself.
 */
export type SessionSwitch = 'schema' | 'role' | 'foreign-keys' | 'autocommit';

/**
 * What keeps to one migration file what it changes in its session besides
 * {@link SessionSwitch}es (settings, temporary tables, session locks): statements around it
 * (settings saved on the server by one sent with the file's own: MySQL, MariaDB), statements after
 * it built from values `capture` reads just before it (PostgreSQL, SQLite), or a new session
 * after it (ClickHouse).
 */
export type SessionGuard =
  | {
      /** Run before the file's first statement: keep the current values on the server. */
      readonly save: readonly string[];
      /** Run after its last statement (and after a failure): set back what the file changed. */
      readonly restore: readonly string[];
    }
  | {
      /** Read the current values now; the statements that set them back after the file. */
      capture(conn: Connection): Promise<{ readonly restore: readonly string[] }>;
    }
  | {
      /** Go on in a new session after the file ({@link Connection.renewSession}): ClickHouse's sessions cost next to nothing to start. */
      readonly renewSession: true;
    };

export interface Dialect {
  readonly type: DatabaseType;
  readonly splitDialect: SplitDialect;
  readonly capabilities: Capabilities;
  readonly quote: Quoting;
  /** Open a connection. The driver package is imported here, lazily, and only here. */
  connect(options: ConnectOptions): Promise<Connection>;
  /** Split what {@link Connection.serverVersion} returned into numbers (0 for missing parts). */
  parseServerVersion(raw: string): ServerVersion;
  /**
   * What a migration statement switches in the session for the statements after it: its schema
   * (`SET search_path`, `USE db`), its role (`SET ROLE`, `SET SESSION AUTHORIZATION`), its
   * foreign-key checks (`PRAGMA foreign_keys`) or its autocommit (`SET autocommit = 0`); see
   * {@link Connection.sessionReset}. Absent: no statement can.
   */
  sessionSwitch?(text: string): SessionSwitch | undefined;
  /**
   * For a file whose statements change other settings of the session (`SET sql_mode`,
   * `SET statement_timeout`, `SET NAMES`, SQLite's connection PRAGMAs), make temporary tables or
   * take session locks: how to set the settings back after it and drop or release what it left
   * in the session, so every migration runs in the session as it opened, however many
   * migrations ran before it in the same run. Undefined when the statements change none of that.
   */
  sessionGuard?(statements: readonly { readonly text: string }[]): SessionGuard | undefined;
  /**
   * Where DDL is not transactional (MySQL, MariaDB): whether the server commits the open
   * transaction before running this statement (DDL, LOCK TABLES, GRANT, ...). A file in a
   * transaction that fails before any such statement ran is rolled back whole; a file whose first
   * statement is one runs without a transaction of mtool's (it would end at once). `'maybe'`:
   * it commits if what it runs does (a procedure's DDL): a file in which one ran is not claimed
   * rolled back, yet a file may begin with one inside a transaction.
   */
  commitsImplicitly?(text: string): boolean | 'maybe';
  /**
   * What to do after `statement` failed with `error`, where the failure leaves something behind
   * that the error does not mention (PostgreSQL: the INVALID index of a failed
   * `CREATE INDEX CONCURRENTLY`), or where the server's error does not say what to do (ClickHouse:
   * a statement over `max_query_size`). A sentence for the failure message; undefined when there is none.
   */
  failureHint?(statement: string, error: unknown): string | undefined;
  /**
   * Where a statement may return before its work is done (ClickHouse: `ALTER TABLE ... UPDATE /
   * DELETE` mutations run in the background): the wait for that work after the statement, so
   * that the statements and migrations after it see its result and its failure fails the
   * migration instead of being recorded as applied. Absent: a statement's work is done when it returns.
   */
  backgroundWork?: BackgroundWork;
  /**
   * Where a session's statements go on on the server after its client is gone (PostgreSQL, MySQL,
   * MariaDB): whether a session still runs, and how to end it. Absent where sessions have no id
   * ({@link Connection.serverSession}).
   */
  serverSessions?: ServerSessions;
  /**
   * Release what the dialect shares between connections (PostgreSQL's pools, the chdb engine
   * slot). Connections must be closed first. Safe to call when nothing was opened.
   */
  dispose(): Promise<void>;
  /**
   * Read the live schema of the connection's database (opened by this dialect's `connect`) into
   * the schema IR, with a handful of catalog queries. The introspector module is imported on the
   * first call.
   * @example const ir = await dialect.introspect(conn, { exclude: ['_mtool_migrations'] });
   */
  introspect(conn: Connection, options?: IntrospectOptions): Promise<SchemaIR>;
  /**
   * Every statement that creates `ir` in an empty database, in dependency order. Pure and
   * synchronous (no connection), so planners and workers can call it.
   */
  renderSchema(ir: SchemaIR): Promise<string[]>;
  /**
   * The statements of one table (create, its indexes, foreign keys, comments), for
   * `mtool snapshot TABLE`.
   * @throws MtoolError `MTOOL_USAGE` when `tableKey` is not in `ir`, listing the known tables.
   */
  renderTable(ir: SchemaIR, tableKey: string): Promise<string[]>;
  /**
   * The SQL of mtool's tracking tables on this dialect. Its module is imported on the first call,
   * so commands that never touch a database do not load it.
   * @example const tracking = await dialect.tracking(); await conn.query(tracking.existingTables(dialect.quote, ['_mtool_migrations']));
   */
  tracking(): Promise<TrackingSql>;
}
