import type { Connection, Dialect, TrackingSql } from '../../dialects/types.js';
import { MtoolError } from '../../errors.js';
import type { MigrationKind } from '../../parser/migration-name.js';
import { LOCK_TABLE } from '../fixed-tables.js';
import type { MigrationRecord, TrackedMigration } from './types.js';

const KINDS: readonly MigrationKind[] = ['versioned', 'repeatable_always', 'repeatable_on_change'];

/**
 * A failure to create one of mtool's tables, saying so: on a database mtool has not used yet the
 * driver's message alone ('permission denied for schema public') does not tell what was being
 * created, or why. Where the database refused it for want of a privilege, the dialect's hint says
 * what to grant ({@link TrackingSql.permissionHint}).
 */
function creating(table: string, error: unknown, permissionHint: string | undefined): unknown {
  if (!(error instanceof MtoolError)) return error;
  const wrapped = new MtoolError(error.code, `${error.message} (creating mtool's table ${table}, which the first migrate of a database makes)`, {
    cause: error,
    database: error.database,
    exit: error.exitCode,
  });
  return permissionHint === undefined ? wrapped : Object.assign(wrapped, { hint: permissionHint });
}

/** The columns of a migration record, in the order {@link TrackingStore} writes their values. */
const RECORD_COLUMNS = 'filename, version, checksum, type, description, applied_at, execution_ms, applied_by';

/** Appended to a record's INSERT or UPDATE whose `execution_ms` the driver reads back (StatementStep.record). */
const RETURNING_MS = ' RETURNING execution_ms';

/**
 * Reads and writes the migrations tracking table of one database over one connection.
 * SQL-mode dialects change rows in place; append-mode dialects (ClickHouse) insert each new row
 * state with a larger `seq` (see {@link TrackingSql.writeMode}).
 */
export class TrackingStore {
  readonly #conn: Connection;
  readonly #dialect: Dialect;
  readonly #sql: TrackingSql;
  readonly #table: string;
  #lastSeq = 0n;
  /** Which of the migrations and lock tables exist, read once per session. */
  #ownTables: Promise<Set<string>> | undefined;

  constructor(conn: Connection, dialect: Dialect, sql: TrackingSql, table: string) {
    this.#conn = conn;
    this.#dialect = dialect;
    this.#sql = sql;
    this.#table = table;
  }

  get tracking(): TrackingSql {
    return this.#sql;
  }

  /**
   * True when the given table exists (read-only; used by `--dry-run` and display commands). The
   * migrations and lock tables are looked up together, once per session: a `status` asks for
   * both, and a `migrate` creates only what is missing.
   */
  async tableExists(table: string): Promise<boolean> {
    const own = [this.#table, LOCK_TABLE];
    if (!own.includes(table)) return (await this.#existing([table])).has(table);
    this.#ownTables ??= this.#existing(own);
    try {
      return (await this.#ownTables).has(table);
    } catch (error) {
      this.#ownTables = undefined;
      throw error;
    }
  }

  async #existing(tables: string[]): Promise<Set<string>> {
    const { rows } = await this.#conn.query(this.#sql.existingTables(this.#dialect.quote, tables));
    return new Set(rows.map((row) => String(row.name)));
  }

  /** Create a table when missing, tolerating a concurrent creator (16 processes may race here). */
  async ensureTable(table: string, statements: string[]): Promise<void> {
    if (await this.tableExists(table)) return;
    for (const statement of statements) {
      try {
        await this.#conn.query(statement);
      } catch (error) {
        if (!this.#sql.isAlreadyExists(error) || !(await this.#existing([table])).has(table)) throw creating(table, error, this.#sql.isPermissionDenied(error) ? this.#sql.permissionHint : undefined);
      }
    }
    (await this.#ownTables)?.add(table);
  }

  /** Ensure the migrations table, then the lock table (spec: migrate rule 1). */
  async ensureTables(): Promise<void> {
    const q = this.#dialect.quote;
    await this.ensureTable(this.#table, this.#sql.createMigrationsTable(q, this.#table));
    await this.ensureTable(LOCK_TABLE, this.#sql.createLockTable(q, LOCK_TABLE));
  }

  /** Every live record, versioned by version then repeatables by filename. */
  async records(): Promise<MigrationRecord[]> {
    const q = this.#dialect.quote;
    const sql =
      this.#sql.writeMode === 'append'
        ? // FINAL keeps the highest seq per filename; the filter stays outside so it never runs before the merge.
          `SELECT ${RECORD_COLUMNS} FROM (SELECT ${RECORD_COLUMNS}, deleted FROM ${q.ident(this.#table)} FINAL) WHERE deleted = 0`
        : `SELECT ${RECORD_COLUMNS} FROM ${q.ident(this.#table)}`;
    if (this.#conn.queryArrays) {
      // Arrays in RECORD_COLUMNS order: no object per row to build and read back.
      const rows = await this.#conn.queryArrays(sql);
      return rows.map((v) => this.#record(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7])).sort(compareRecords);
    }
    const { rows } = await this.#conn.query(sql);
    return rows.map((r) => this.#record(r.filename, r.version, r.checksum, r.type, r.description, r.applied_at, r.execution_ms, r.applied_by)).sort(compareRecords);
  }

  /**
   * Which files the tracking table holds at which checksum: what planning a `migrate` reads, in
   * {@link records}' order, half the columns of a whole record (a no-op reads a thousand rows).
   */
  async tracked(): Promise<TrackedMigration[]> {
    if (this.#sql.writeMode === 'append') return this.records();
    const sql = `SELECT filename, version, checksum, type FROM ${this.#dialect.quote.ident(this.#table)}`;
    let tracked: TrackedMigration[];
    if (this.#conn.queryArrays) {
      const rows = await this.#conn.queryArrays(sql);
      tracked = new Array<TrackedMigration>(rows.length);
      for (let i = 0; i < rows.length; i++) {
        const v = rows[i]!;
        tracked[i] = this.#tracked(v[0], v[1], v[2], v[3]);
      }
    } else {
      tracked = (await this.#conn.query(sql)).rows.map((r) => this.#tracked(r.filename, r.version, r.checksum, r.type));
    }
    return tracked.sort(compareRecords);
  }

  /** Record a migration (first application). */
  async insert(record: MigrationRecord): Promise<void> {
    await this.#conn.query(this.insertStatement(record));
  }

  /**
   * The statement {@link insert} runs (the executor sends it itself, with the migration's last
   * statement and COMMIT where it can); `executionMsSql`, SQL computing `execution_ms` on the
   * server, replaces the record's `executionMs`, and `appliedAtSql`, SQL for the server's time
   * (UTC), its `appliedAt`; `returningMs`: return the `execution_ms` written (StatementStep.record).
   */
  insertStatement(record: MigrationRecord, executionMsSql?: string, appliedAtSql?: string, returningMs?: boolean): string {
    if (this.#sql.writeMode === 'append') return this.#appendStatement(record, false);
    const q = this.#dialect.quote;
    return `INSERT INTO ${q.ident(this.#table)} (${RECORD_COLUMNS}) VALUES (${this.#recordValues(record, executionMsSql ?? this.#executionMs(record), appliedAtSql).join(', ')})${returningMs ? RETURNING_MS : ''}`;
  }

  /**
   * One statement inserting several records, each with its execution time and `applied_at` as
   * SQL computed on the server ({@link import('../../dialects/types.js').RecordMany}). Not for
   * append-mode tables (ClickHouse), whose migrations are recorded one by one.
   */
  insertManyStatement(rows: readonly { record: MigrationRecord; executionMsSql: string; appliedAtSql: string }[]): string {
    const q = this.#dialect.quote;
    const values = rows.map((row) => `(${this.#recordValues(row.record, row.executionMsSql, row.appliedAtSql).join(', ')})`);
    return `INSERT INTO ${q.ident(this.#table)} (${RECORD_COLUMNS}) VALUES ${values.join(', ')}`;
  }

  /** Update the row of a re-applied repeatable migration (run by the executor); the SQL values as in {@link insertStatement}. */
  updateStatement(record: MigrationRecord, executionMsSql?: string, appliedAtSql?: string, returningMs?: boolean): string {
    if (this.#sql.writeMode === 'append') return this.#appendStatement(record, false);
    const q = this.#dialect.quote;
    const executionMs = executionMsSql ?? this.#executionMs(record);
    const appliedAt = appliedAtSql ?? this.#appliedAt(record);
    return `UPDATE ${q.ident(this.#table)} SET checksum = ${q.literal(record.checksum)}, description = ${q.literal(record.description)}, applied_at = ${appliedAt}, execution_ms = ${executionMs}, applied_by = ${q.literal(record.appliedBy)} WHERE filename = ${q.literal(record.filename)}${returningMs ? RETURNING_MS : ''}`;
  }

  /** Remove a record: rollback, downgrade (run by the executor). */
  removeStatement(record: MigrationRecord): string {
    if (this.#sql.writeMode === 'append') return this.#appendStatement(record, true);
    const q = this.#dialect.quote;
    return `DELETE FROM ${q.ident(this.#table)} WHERE filename = ${q.literal(record.filename)}`;
  }

  /** Strictly increasing per process: microseconds of wall clock, bumped when two calls share one. */
  nextSeq(): bigint {
    const now = BigInt(Date.now()) * 1000n;
    this.#lastSeq = now > this.#lastSeq ? now : this.#lastSeq + 1n;
    return this.#lastSeq;
  }

  /**
   * SQL for the `seq` of a new row state in an append-mode table: above every `seq` the rows
   * matching `where` (else all rows) hold, as the server reads them when the INSERT runs, and not
   * below this process's clock ({@link nextSeq}). The highest `seq` is the row's state
   * (`ReplacingMergeTree(seq)` read with FINAL), so the clock alone would let a host whose clock is
   * behind write a change that loses to the state it changes: a rollback or an unlock reported
   * done and not in effect. A scalar subquery in `INSERT ... SELECT`, which ClickHouse 18.16 runs.
   */
  nextSeqSql(table: string, where?: string): string {
    const q = this.#dialect.quote;
    return `greatest(${q.literal(this.nextSeq())}, (SELECT max(seq) + 1 FROM ${q.ident(table)}${where === undefined ? '' : ` WHERE ${where}`}))`;
  }

  #appendStatement(record: MigrationRecord, deleted: boolean): string {
    const q = this.#dialect.quote;
    const values = [
      ...this.#recordValues(record, q.literal(Math.max(0, Math.round(record.executionMs)))),
      this.nextSeqSql(this.#table, `filename = ${q.literal(record.filename)}`),
      q.literal(deleted ? 1 : 0),
    ];
    return `INSERT INTO ${q.ident(this.#table)} (${RECORD_COLUMNS}, seq, deleted) SELECT ${values.join(', ')}`;
  }

  /** The record's execution time as a literal of whole milliseconds. */
  #executionMs(record: MigrationRecord): string {
    return this.#dialect.quote.literal(Math.round(record.executionMs));
  }

  /** The record's `appliedAt` as the dialect's timestamp literal. */
  #appliedAt(record: MigrationRecord): string {
    return this.#sql.timestamp(this.#dialect.quote, new Date(record.appliedAt));
  }

  /** SQL literals of a record's {@link RECORD_COLUMNS}, with `executionMs` (and `appliedAt`, when given) as the caller writes it. */
  #recordValues(record: MigrationRecord, executionMs: string, appliedAt?: string): string[] {
    const q = this.#dialect.quote;
    return [
      q.literal(record.filename),
      q.literal(record.version),
      q.literal(record.checksum),
      q.literal(record.type),
      q.literal(record.description),
      appliedAt ?? this.#appliedAt(record),
      executionMs,
      q.literal(record.appliedBy),
    ];
  }

  /** A row's `type`, checked. */
  #kind(filename: unknown, rawType: unknown): MigrationKind {
    const type = String(rawType) as MigrationKind;
    if (!KINDS.includes(type)) {
      throw new MtoolError(
        'MTOOL_DATABASE',
        `${this.#table}: row ${String(filename)} has unknown type ${JSON.stringify(rawType)}; the tracking table was edited by hand`,
        { database: this.#conn.databaseName },
      );
    }
    return type;
  }

  /** The identifying values of a row, read as {@link records} reads them. */
  #tracked(filename: unknown, version: unknown, checksum: unknown, rawType: unknown): TrackedMigration {
    const type = this.#kind(filename, rawType);
    return { filename: String(filename), version: versionOf(version), checksum: String(checksum).trim(), type };
  }

  /** A record from the values of one row's {@link RECORD_COLUMNS}. */
  #record(filename: unknown, version: unknown, checksum: unknown, rawType: unknown, description: unknown, appliedAt: unknown, executionMs: unknown, appliedBy: unknown): MigrationRecord {
    const type = this.#kind(filename, rawType);
    return {
      filename: String(filename),
      version: versionOf(version),
      checksum: String(checksum).trim(),
      type,
      description: String(description ?? ''),
      appliedAt: toIsoUtc(appliedAt),
      executionMs: Number(executionMs ?? 0),
      appliedBy: String(appliedBy ?? ''),
    };
  }
}

function versionOf(version: unknown): string | null {
  return version === null || version === undefined || version === '' ? null : String(version);
}

function compareRecords(a: TrackedMigration, b: TrackedMigration): number {
  if (a.version !== null && b.version !== null) return a.version.length - b.version.length || (a.version < b.version ? -1 : a.version > b.version ? 1 : 0);
  if (a.version !== null) return -1;
  if (b.version !== null) return 1;
  return a.filename < b.filename ? -1 : a.filename > b.filename ? 1 : 0;
}

const SQL_TIMESTAMP = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})(\.\d+)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/;
/**
 * Text that is already what {@link toIsoUtc} returns for it: `Date#toISOString()` output, as
 * SQLite's tracking table stores it. Days past the 28th and hour 24 are left to the full path,
 * where `Date` would carry them into the next month or day.
 */
const CANONICAL_ISO = /^\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|1\d|2[0-8])T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d\.\d{3}Z$/;

/**
 * A timestamp as drivers return it (Date, `2026-01-02 03:04:05.123`, `...+00`, ISO text) as ISO 8601
 * UTC with milliseconds. Values without a zone are UTC: mtool writes UTC everywhere.
 */
export function toIsoUtc(value: unknown): string {
  if (value instanceof Date) return value.toISOString();
  // Most of a no-op migrate's tracking rows: no Date to build and print again.
  if (typeof value === 'string' && CANONICAL_ISO.test(value)) return value;
  const text = String(value ?? '').trim();
  const m = SQL_TIMESTAMP.exec(text);
  if (m) {
    const fraction = (m[3] ?? '.000').slice(0, 4).padEnd(4, '0');
    let zone = m[4] ?? 'Z';
    if (/^[+-]\d{2}$/.test(zone)) zone += ':00';
    else if (/^[+-]\d{4}$/.test(zone)) zone = `${zone.slice(0, 3)}:${zone.slice(3)}`;
    const date = new Date(`${m[1]}T${m[2]}${fraction}${zone}`);
    if (!Number.isNaN(date.getTime())) return date.toISOString();
  }
  const date = new Date(text);
  return Number.isNaN(date.getTime()) ? text : date.toISOString();
}
