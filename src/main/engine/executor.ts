import { performance } from 'node:perf_hooks';
import { setImmediate as nextImmediate } from 'node:timers/promises';
import { failedPart, failedStep } from '../../dialects/step-part.js';
import type { Connection, Dialect, RecordMany, ServerVersion, SessionSwitch, SessionGuard, StatementStep } from '../../dialects/types.js';
import { interruptedError, isConnectionError, MtoolError } from '../../errors.js';
import type { MigrationFile, SqlStatement } from '../../parser/migration-file.js';
import { firstTransactionControl, unendedTransaction } from '../../parser/transaction-control.js';
import type { Logger } from '../log.js';
import { formatMs } from './format-ms.js';
import { MigrationFailedError, statementPreview, type ExecutedStatement } from './migration-error.js';
import { messageSteps, ranBeforeFailure } from './message-steps.js';
import type { RollbackStep } from './planner.js';
import type { TrackingStore } from './tracking-store.js';
import { noTransactionReason } from './transaction-mode.js';
import type { AppliedMigration } from './hooks.js';
import type { MigrationOutcome, MigrationRecord, TrackedMigration } from './types.js';

export interface ExecutorOptions {
  /** Log each statement with its duration at INFO (`--perf`). */
  perf: boolean;
  /** Log each migration as it starts and ends at INFO (`--verbose`); DEBUG otherwise. */
  verbose: boolean;
  signal: AbortSignal | undefined;
  /** `user@host`, written to `applied_by`. */
  appliedBy: string;
  /**
   * Group commit: consecutive migrations share one transaction, each in its own savepoint (so a
   * failing one is still rolled back as a whole and the ones before it stay applied), and the
   * group commits once it has been open this long, before a file that must run outside a
   * transaction, and at {@link Executor.finish}. Only where DDL is transactional and savepoints
   * exist; undefined: one transaction per migration.
   */
  groupWindowMs?: number;
  /** After each commit that made applied migrations durable, with those migrations in order. */
  onCommit?: (committed: readonly AppliedMigration[]) => Promise<void>;
}

type Direction = 'upgrade' | 'rollback';

/**
 * How a file's statements run: in a transaction of their own, or outside one where the database
 * had transactions (`outside`, with the `warning` to log right before the file runs).
 */
interface TransactionMode {
  useTransaction: boolean;
  outside: boolean;
  warning?: string;
  /** The file begins and ends transactions itself: after a failure, end the one it may have left open. */
  ownTransactions?: boolean;
}

/** What a file changes in its session ({@link Executor#sessionChanges}). */
interface SessionChanges {
  /** Switching back what it switches. */
  resets: readonly string[];
  guard: SessionGuard | undefined;
}

/** mtool's statements around a file that changes its session ({@link Executor#guardStatements}). */
interface GuardStatements {
  before: SqlStatement[];
  after: SqlStatement[];
  /** Go on in a new session after the file (before its tracking row), or after its failure. */
  renewSession: boolean;
}

/** A migration applied inside the open group: enough to report it, or to apply it again alone. */
interface GroupMember extends AppliedMigration {
  /** The row a re-run repeatable replaced (update instead of insert). */
  existing: TrackedMigration | undefined;
}

/**
 * Bounds of one {@link Executor.applyAll} message: files (or, in a message of one file's
 * statements, statements), and characters of their statements (a message is held whole in memory
 * on both sides, and the server's `max_allowed_packet` bounds it). A file larger than that goes
 * on its own, as {@link Executor.apply} sends it: in a transaction, its statements in messages
 * within these bounds; outside one, a statement at a time. A larger statement still goes, alone.
 */
const MESSAGE_FILES = 100;
const MESSAGE_CHARS = 1024 * 1024;

/**
 * Where a message of a file's statements that starts at `from` ends (exclusive): within the
 * bounds above, and before the file's last statement, which goes on its own with the record.
 */
function statementMessageEnd(statements: readonly SqlStatement[], from: number): number {
  let end = from;
  let chars = 0;
  while (end < statements.length - 1 && end - from < MESSAGE_FILES && (end === from || chars + statements[end]!.text.length <= MESSAGE_CHARS)) {
    chars += statements[end++]!.text.length;
  }
  return end;
}

/** Characters of the statements' text. */
function charsOf(statements: readonly SqlStatement[]): number {
  let chars = 0;
  for (let i = 0; i < statements.length; i++) chars += statements[i]!.text.length;
  return chars;
}

/** The one savepoint name: each migration releases it before the next takes it. */
const SAVEPOINT = 'mtool_migration';

/**
 * Give a pending SIGINT/SIGTERM its turn. Signals are delivered in the loop's poll phase; one
 * setImmediate queued from a poll-phase callback (file I/O, a dynamic import) runs in the same
 * iteration's check phase, before any poll. The second turn always comes after a poll phase.
 */
const yieldToEventLoop = async (): Promise<void> => {
  await nextImmediate();
  await nextImmediate();
};

/**
 * Runs migration files against one connection: each file in its own transaction where the
 * database can roll DDL back, the tracking row written inside that transaction, failures named
 * with file and line.
 */
export class Executor {
  readonly #conn: Connection;
  readonly #dialect: Dialect;
  readonly #store: TrackingStore;
  readonly #log: Logger;
  readonly #database: string;
  readonly #options: ExecutorOptions;
  #serverVersion: Promise<ServerVersion> | undefined;
  /** The open group transaction: when it began and the migrations it holds. */
  #group: { startedAt: number; members: GroupMember[] } | undefined;

  constructor(conn: Connection, dialect: Dialect, store: TrackingStore, log: Logger, database: string, options: ExecutorOptions) {
    this.#conn = conn;
    this.#dialect = dialect;
    this.#store = store;
    this.#log = log;
    this.#database = database;
    this.#options = options;
  }

  /** Whether each migration commits as it ends (else several may share a group transaction: SQLite). */
  get commitsEach(): boolean {
    return this.#options.groupWindowMs === undefined;
  }

  /**
   * Whether {@link applyAll} sends several migrations in one message here: the driver takes that,
   * no statement is timed on its own (`--perf`), and no group window (SQLite). `--verbose` logs
   * each migration as it starts and ends: where the answers to a message come together at its end,
   * or records come in groups (outside a transaction), only one migration at a time keeps those
   * lines true.
   */
  get sendsTogether(): boolean {
    const progress = this.#options.verbose && (this.#conn.answersAtMessageEnd === true || !this.#dialect.capabilities.transactionalDdl);
    return this.#conn.sendAll !== undefined && !this.#options.perf && !progress && this.#options.groupWindowMs === undefined;
  }

  /** Run a file's upgrade statements and record it (insert, or update the row of a re-run repeatable). */
  async apply(file: MigrationFile, existing?: TrackedMigration): Promise<{ outcome: MigrationOutcome; record: MigrationRecord }> {
    return this.#apply(file, existing, this.#options.groupWindowMs !== undefined);
  }

  /**
   * Why a file's upgrade would run outside a transaction the database has (the warning a run logs
   * as the file starts, without the file's name), undefined when it runs in one or the database
   * has none: what `migrate --dry-run` says of the file. Runs nothing.
   */
  async upgradeOutsideTransaction(file: MigrationFile): Promise<string | undefined> {
    const mode = await this.#transactionMode(file, file.upgrade, 'upgrade');
    if (!mode.outside) return undefined;
    const prefix = `${file.filename}: `;
    return mode.warning?.startsWith(prefix) ? mode.warning.slice(prefix.length) : mode.warning;
  }

  /** `mode`: the file's `#transactionMode`, when the caller has it already. */
  async #apply(file: MigrationFile, existing: TrackedMigration | undefined, grouped: boolean, mode?: TransactionMode): Promise<{ outcome: MigrationOutcome; record: MigrationRecord }> {
    let record: MigrationRecord | undefined;
    const { durationMs, outside } = await this.#runUnit(
      file,
      file.upgrade,
      'upgrade',
      (ms, msSql, atSql) => {
        record = this.#recordFor(file, ms);
        return { sql: existing ? this.#store.updateStatement(record, msSql, atSql) : this.#store.insertStatement(record, msSql, atSql), member: { file, record, existing } };
      },
      grouped,
      mode,
    );
    return { outcome: appliedOutcome(file, durationMs, outside), record: record as MigrationRecord };
  }

  /**
   * Apply versioned files in order, as {@link apply} one by one would, except that consecutive
   * files that run as the database runs DDL (PostgreSQL: each in a transaction of its own; MySQL
   * and MariaDB: outside one, DDL committing itself) go to the server several to a message where
   * the driver takes that ({@link Connection.sendAll}). The server still runs them one after the
   * other, records (and commits) each right after its last statement (MySQL and MariaDB: each
   * group of them after the group's last, see {@link RecordMany}) and stops at the first
   * failing statement; what goes is its wait for the client between two migrations (the
   * answer's round trip and the client's turn), about as long as a small migration itself. Not
   * where {@link sendsTogether} says no. For the caller to use only where nothing must run
   * between two migrations (per-migration hooks: only a run they allow, see EngineHooks.runLength).
   * `onApplied` gets each applied migration in order, also those before a failure, which then
   * throws as {@link apply} does.
   */
  async applyAll(files: readonly MigrationFile[], onApplied: (applied: { outcome: MigrationOutcome; record: MigrationRecord }) => void): Promise<void> {
    // `--verbose` logs each migration as it starts and ends: where the answers to a message come
    // together at its end, only one migration at a time keeps those lines true.
    // Outside a transaction the driver records migrations in groups: the answers that say them
    // recorded come together too.
    const inTransaction = this.#dialect.capabilities.transactionalDdl;
    const together = this.sendsTogether;
    let batch: MigrationFile[] = [];
    /** Each batched file's transaction mode: its warning is logged as it starts, its outcome says `outside`. */
    let modes: TransactionMode[] = [];
    let bytes = 0;
    const send = async (): Promise<void> => {
      if (batch.length === 0) return;
      const files = batch;
      const sentModes = modes;
      batch = [];
      modes = [];
      bytes = 0;
      await this.#applyTogether(files, inTransaction, onApplied, sentModes);
    };
    for (const file of files) {
      if (!together) {
        onApplied(await this.apply(file));
        continue;
      }
      const statements = file.upgrade;
      const mode = await this.#transactionMode(file, statements, 'upgrade');
      // A file with transactions of its own goes alone (after a failure inside one, that one is
      // rolled back), and so does one that changes its session (its schema, settings, temporary
      // tables: put back before its tracking row), and one larger than a message (whole in one, it
      // would pass the bound: on MySQL and MariaDB the server's max_allowed_packet).
      const chars = charsOf(statements);
      if (statements.length > 0 && chars <= MESSAGE_CHARS && mode.useTransaction === inTransaction && !mode.ownTransactions && this.#sessionChanges(statements) === undefined) {
        batch.push(file);
        modes.push(mode);
        bytes += chars;
        if (batch.length >= MESSAGE_FILES || bytes >= MESSAGE_CHARS) await send();
        continue;
      }
      await send();
      onApplied(await this.#apply(file, undefined, false, mode));
    }
    await send();
  }

  /** One message of {@link applyAll}: files in order, each in a transaction of its own or none. */
  async #applyTogether(
    files: readonly MigrationFile[],
    inTransaction: boolean,
    onApplied: (applied: { outcome: MigrationOutcome; record: MigrationRecord }) => void,
    modes: readonly TransactionMode[],
  ): Promise<void> {
    this.#checkAbort();
    const records = files.map((file) => this.#recordFor(file, 0));
    const message = messageSteps(files, inTransaction, (f, msSql, nowSql, returningMs) => this.#store.insertStatement(records[f]!, msSql, nowSql, returningMs));
    // Outside a transaction (MySQL, MariaDB) the driver records migrations several to a statement.
    const recordMany: RecordMany | undefined = inTransaction
      ? undefined
      : (rows) => this.#store.insertManyStatement(rows.map((row) => ({ record: records[message.owners[row.step]!.file]!, executionMsSql: row.elapsedMsSql, appliedAtSql: row.appliedAtSql })));
    const log = (text: string): void => (this.#options.verbose ? this.#log.info(text) : this.#log.debug(text));
    const starting = (f: number): void => {
      if (modes[f]!.warning) this.#log.warn(modes[f]!.warning!);
      log(`applying ${files[f]!.filename}`);
    };
    // Each file's time: as the server recorded it, where the driver read it back; else as the
    // client sees it, from the previous file's record (or the message's start) to its own,
    // reported by the server as each record is written.
    let applied = 0;
    let mark = performance.now();
    /** Migrations of this message handed to `onApplied` and `onCommit` so far. */
    let reported = 0;
    let reportDue = false;
    let reporting: Promise<void> = Promise.resolve();
    starting(0);
    const recorded = (step: number, serverMs?: number): void => {
      const f = message.owners[step]!.file;
      if (f !== applied) return; // records arrive in order; anything else is not this message's
      const now = performance.now();
      const record = records[f]!;
      record.executionMs = serverMs ?? now - mark;
      record.appliedAt = new Date().toISOString();
      mark = now;
      applied++;
      log(`applied ${files[f]!.filename} in ${formatMs(record.executionMs)}`);
      if (applied < files.length) starting(applied);
      // Reported as the records arrive (where the driver streams them, MySQL and MariaDB: ten
      // at a time), not at the message's end: a deferred snapshot then reads the tables of a
      // message's migrations while the rest of it runs, and at the batch's end only the last few.
      if (!reportDue) {
        reportDue = true;
        queueMicrotask(() => void report(applied).catch(() => undefined));
      }
    };
    const report = (count: number): Promise<void> => {
      reportDue = false;
      const from = reported;
      if (count <= from) return reporting;
      reported = count;
      for (let f = from; f < count; f++) onApplied({ outcome: appliedOutcome(files[f]!, records[f]!.executionMs, modes[f]!.outside), record: records[f]! });
      const committed = files.slice(from, count).map((file, k) => ({ file, record: records[from + k]! }));
      reporting = reporting.then(() => this.#options.onCommit?.(committed));
      return reporting;
    };
    try {
      await this.#cancellable(async (asked) => {
        // Interrupted, yet the message goes on: the stop reached the server between two
        // statements, where it had nothing to stop. Ask again (quietly, one request at a time)
        // as records arrive.
        let asking: Promise<void> | undefined;
        await this.#conn.sendAll!(
          message.steps,
          (step, serverMs) => {
            if (asked() && !asking) asking = this.#conn.cancel!().catch(() => undefined).finally(() => (asking = undefined));
            recorded(step, serverMs);
          },
          recordMany,
        );
      });
      // A driver that did not report every record: the message ran whole, so they all are.
      while (applied < files.length) recorded(message.recordSteps[applied]!);
    } catch (error) {
      // The files whose record the server reported are applied and recorded; the error belongs to
      // the file of the failing step, whose statements before it ran (and it, when its record
      // failed), or were rolled back with its transaction. Files between the two (records
      // written in groups, whose group was not) ran whole without a row.
      const failing = Math.max(applied, message.owners[failedStep(error)]?.file ?? applied);
      const rolledBack = inTransaction ? await this.#rollbackAfter(files[failing]!, error) : false;
      await report(applied);
      const { executed, failed } = ranBeforeFailure(message, failing, failedStep(error), failedPart(error));
      throw this.#failure(files[failing]!, 'upgrade', error, failed, executed, rolledBack, inTransaction, [], recordMany ? files.slice(applied, failing) : undefined);
    }
    await report(files.length);
  }

  /**
   * ROLLBACK after `error`: whether the file's transaction is gone, or `unknown`. False (with a
   * warning) when the ROLLBACK fails. When the session was lost, the database discards its open
   * transaction: after an error the server reported (it ran nothing of the message after it),
   * that is the transaction's end; after the connection itself failed, its COMMIT may have reached
   * the server first, and only the tracking table (written in the same transaction) can tell.
   */
  async #rollbackAfter(file: MigrationFile, error: unknown): Promise<boolean | 'unknown'> {
    try {
      await this.#conn.rollback();
      return true;
    } catch (rollbackError) {
      if (isConnectionError(rollbackError)) {
        this.#log.debug(`${file.filename}: no ROLLBACK: the session was lost, and its open transaction with it`);
        return isConnectionError(error) ? 'unknown' : true;
      }
      this.#log.warn(`${file.filename}: ROLLBACK failed after an error`, { error: rollbackError });
      return false;
    }
  }

  /**
   * What a file changes in the session that must not outlast it: what its statements switch
   * ({@link Dialect.sessionSwitch}, put back by {@link Connection.sessionReset} after its last
   * statement), and the other settings they change and temporary objects they make
   * ({@link Dialect.sessionGuard}). Undefined for a file that changes nothing (applyAll asks for
   * every file of a batch: nothing is allocated then).
   */
  #sessionChanges(statements: readonly SqlStatement[]): SessionChanges | undefined {
    if (statements.length === 0) return undefined;
    const resets = this.#conn.sessionReset;
    const kindOf = this.#dialect.sessionSwitch;
    let kinds: Set<SessionSwitch> | undefined;
    if (resets !== undefined && kindOf !== undefined) {
      for (let i = 0; i < statements.length; i++) {
        const kind = kindOf(statements[i]!.text);
        if (kind !== undefined) (kinds ??= new Set()).add(kind);
      }
    }
    const guard = this.#dialect.sessionGuard?.(statements);
    if (kinds === undefined && guard === undefined) return undefined;
    return { resets: kinds === undefined ? [] : [...kinds].flatMap((kind) => resets![kind] ?? []), guard };
  }

  /**
   * The statements to run around a file with {@link #sessionChanges}: saving settings before its
   * first statement; setting them back, dropping its temporary objects, releasing its session
   * locks and switching back after its last (placed at those lines for messages). A guard that
   * reads the values itself (PostgreSQL, SQLite) reads them now; one that renews the session
   * (ClickHouse) has it renewed after the file.
   */
  async #guardStatements(changes: SessionChanges, statements: readonly SqlStatement[]): Promise<GuardStatements> {
    const guard = changes.guard;
    let save: readonly string[] = [];
    let restore: readonly string[] = [];
    if (guard !== undefined && 'capture' in guard) restore = (await guard.capture(this.#conn)).restore;
    else if (guard !== undefined && 'save' in guard) ({ save, restore } = guard);
    const first = statements[0]!;
    const last = statements[statements.length - 1]!;
    const at = (line: number, column: number, offset: number) => (text: string): SqlStatement => ({ text, line, column, offset, endOffset: offset });
    return {
      renewSession: guard !== undefined && 'renewSession' in guard,
      before: save.map(at(first.line, first.column, first.offset)),
      // Settings and temporary objects first: a switch back (USE, SET ROLE) may change where they are.
      after: [...restore, ...changes.resets].map(at(last.line, last.column, last.endOffset)),
    };
  }

  /** After a failure: the session switched back as it started (a reset that fails is only logged). */
  async #switchBack(file: MigrationFile, reset: readonly SqlStatement[]): Promise<void> {
    for (const statement of reset) {
      try {
        await this.#exec(statement.text);
      } catch (error) {
        this.#log.warn(`${file.filename}: could not switch the session back after the failure (${statement.text})`, { error });
      }
    }
  }

  /**
   * After a file that controls its own transactions failed: roll back the one it may have left
   * open (its statements after its last COMMIT), so that nothing mtool runs next (the lock's
   * release) lands inside it. Where none is open the database says so, which is not an error here.
   */
  async #endOpenTransaction(file: MigrationFile): Promise<boolean> {
    try {
      await this.#conn.rollback();
      return true;
    } catch (error) {
      this.#log.debug(`${file.filename}: ROLLBACK after the failure: ${error instanceof Error ? error.message : String(error)}`);
      return false;
    }
  }

  /**
   * Run `send` so that Ctrl-C / SIGTERM while it runs has the server stop the running statement
   * (the migration then rolls back now instead of when the statement would have ended).
   * `asked()` tells whether that happened; without a signal or a driver that can cancel, it never does.
   */
  async #cancellable(send: (asked: () => boolean) => Promise<void>): Promise<void> {
    const signal = this.#options.signal;
    if (!signal || !this.#conn.cancel) return send(() => false);
    const cancel = (): void => void this.#cancel();
    signal.addEventListener('abort', cancel, { once: true });
    try {
      await send(() => signal.aborted);
    } finally {
      signal.removeEventListener('abort', cancel);
    }
  }

  /** Commit the open group, if any (end of a run). */
  async finish(): Promise<void> {
    await this.#commitGroup();
  }

  /**
   * Record versioned files as applied without running them (`--baseline`): in one transaction
   * where the database has transactions, so a baseline stopped halfway (Ctrl-C, a lost
   * connection) records none of them; elsewhere (ClickHouse) those recorded before it stay.
   * Ctrl-C is let in before each record (a synchronous driver never yields on its own).
   * `onBaselined` gets each outcome once its record is kept: after the commit where there is a
   * transaction (a rolled-back record must not be reported as baselined), else as it is written.
   */
  async baselineAll(files: readonly MigrationFile[], onBaselined: (outcome: MigrationOutcome) => void): Promise<void> {
    const inTransaction = this.#dialect.capabilities.transactions;
    const stopIfAsked = async (): Promise<void> => {
      await yieldToEventLoop();
      const signal = this.#options.signal;
      if (signal?.aborted) {
        throw interruptedError(signal, this.#database, inTransaction ? 'the baseline was rolled back: nothing was recorded' : 'the migrations baselined before it stay recorded');
      }
    };
    const written: MigrationOutcome[] = [];
    if (inTransaction) await this.#conn.begin();
    try {
      for (const file of files) {
        await stopIfAsked();
        await this.#store.insert(this.#recordFor(file, 0));
        this.#log.info(`${file.filename}: baselined (recorded as applied, not executed)`);
        const outcome: MigrationOutcome = { filename: file.filename, version: file.version ?? null, type: file.kind, action: 'baselined', durationMs: 0 };
        if (inTransaction) written.push(outcome);
        else onBaselined(outcome);
      }
      if (inTransaction) {
        await stopIfAsked();
        await this.#conn.commit();
        for (const outcome of written) onBaselined(outcome);
      }
    } catch (error) {
      if (inTransaction) await this.#conn.rollback().catch((rollbackError: unknown) => this.#log.debug('ROLLBACK of the baseline failed', { error: rollbackError }));
      throw error;
    }
  }

  /** Run a file's rollback statements and remove its record. */
  async revert(step: RollbackStep): Promise<MigrationOutcome> {
    const { file, record } = step;
    const { durationMs, outside } = await this.#runUnit(file, file.rollback ?? [], 'rollback', () => ({ sql: this.#store.removeStatement(record) }));
    return { filename: file.filename, version: file.version ?? null, type: file.kind, action: 'rolled_back', durationMs, ...(outside ? { outsideTransaction: true } : {}) };
  }

  #recordFor(file: MigrationFile, executionMs: number): MigrationRecord {
    return {
      filename: file.filename,
      version: file.version ?? null,
      checksum: file.checksum,
      type: file.kind,
      description: file.description,
      appliedAt: new Date().toISOString(),
      executionMs,
      appliedBy: this.#options.appliedBy,
    };
  }

  async #cancel(): Promise<void> {
    // Said before asking: on ClickHouse the answer comes once the statement has stopped.
    this.#log.warn(`${this.#database}: interrupted: asking the server to stop the running statement`);
    try {
      await this.#conn.cancel!();
    } catch (error) {
      this.#log.warn(`${this.#database}: could not ask the server to stop the running statement`, { error });
    }
  }

  #checkAbort(): void {
    const signal = this.#options.signal;
    if (signal?.aborted) throw interruptedError(signal, this.#database);
  }

  /**
   * Run one file's statements and write its record: in a transaction of its own, in a savepoint of
   * the open group (`grouped`), or outside any transaction. Throws MigrationFailedError with the
   * file rolled back where the database allows it; a group is committed or rolled back before
   * anything is thrown, so no transaction stays open behind an error.
   */
  async #runUnit(
    file: MigrationFile,
    fileStatements: readonly SqlStatement[],
    direction: Direction,
    /** The tracking statement to run after the file's statements (and what to report once committed). */
    recordFor: (executionMs: number, executionMsSql?: string, appliedAtSql?: string) => { sql: string; member?: GroupMember },
    grouped = false,
    mode?: TransactionMode,
  ): Promise<{ durationMs: number; outside: boolean }> {
    const caps = this.#dialect.capabilities;
    const { useTransaction, outside, warning, ownTransactions } = mode ?? (await this.#transactionMode(file, fileStatements, direction));
    // A file that changes something in the session (its schema, role, settings, temporary tables) changes it back after its last statement.
    const changes = this.#sessionChanges(fileStatements);
    const guard = changes === undefined ? undefined : await this.#guardStatements(changes, fileStatements);
    const statements = guard === undefined ? fileStatements : [...guard.before, ...fileStatements, ...guard.after];
    /** mtool's own statements around the file: not the file's, so never listed as having run. */
    const own = guard === undefined ? undefined : new Set([...guard.before, ...guard.after]);
    if (warning) this.#log.warn(warning);
    const inSavepoint = useTransaction && grouped && caps.transactionalDdl && caps.savepoints;
    if (!inSavepoint) await this.#commitGroup();
    const label = direction === 'rollback' ? `rolling back ${file.filename}` : `applying ${file.filename}`;
    if (this.#options.verbose) this.#log.info(label);
    else this.#log.debug(label);

    const executed: ExecutedStatement[] = [];
    /** After a failure: what ran inside the file's own open transaction, rolled back with it. */
    let undone: ExecutedStatement[] = [];
    let current: SqlStatement | undefined;
    /** How many of `statements` (mtool's own around the file included) ran. */
    let ran = 0;
    let member: GroupMember | undefined;
    let result: { durationMs: number; outside: boolean };
    const started = performance.now();
    this.#checkAbort();
    if (inSavepoint) {
      if (!this.#group) {
        await this.#conn.begin();
        this.#group = { startedAt: started, members: [] };
      }
      await this.#exec(`SAVEPOINT ${SAVEPOINT}`);
    }
    // Where the driver can, the migration's BEGIN travels with its first statement and its
    // tracking row and COMMIT with its last: one round trip for a one-statement migration.
    const combine = this.#conn.send !== undefined && !inSavepoint && statements.length > 0;
    const ownTransaction = useTransaction && !inSavepoint;
    let begun = !ownTransaction;
    if (ownTransaction && !combine) {
      await this.#conn.begin();
      begun = true;
    }
    // A file in a transaction of its own sends its statements before the last (which carries the
    // record) several to a message where the driver takes them so ({@link Connection.sendAll}): a
    // data migration of thousands of INSERTs no longer waits a round trip for each. Not with
    // `--perf` (each statement's own time is logged) nor where a statement may leave work running.
    const chunked = combine && ownTransaction && this.#conn.sendAll !== undefined && !this.#options.perf && this.#dialect.backgroundWork === undefined;
    /** Statements `from` up to `end` (exclusive) ran: counted, and the file's own listed as run. */
    const ranTo = (end: number, from: number): void => {
      for (let j = from; j < end; j++) {
        ran++;
        if (!own?.has(statements[j]!)) executed.push({ line: statements[j]!.line, text: statements[j]!.text });
      }
    };
    try {
      for (let i = 0; i < statements.length; i++) {
        const statement = statements[i]!;
        this.#checkAbort();
        current = statement;
        const end = chunked ? statementMessageEnd(statements, i) : i;
        if (end - i > 1) {
          const steps: StatementStep[] = statements.slice(i, end).map((s, k) => ({ sql: s.text, begin: k === 0 && !begun }));
          begun = true;
          try {
            await this.#cancellable(() => this.#conn.sendAll!(steps));
          } catch (error) {
            // The server ran the message's statements before the failing one, and nothing after it.
            const failed = failedStep(error);
            ranTo(i + failed, i);
            current = statements[i + failed];
            throw error;
          }
          ranTo(end, i);
          i = end - 1;
          continue;
        }
        let step: StatementStep | undefined;
        if (combine) {
          const last = i === statements.length - 1;
          // The client's part of the execution time: everything before the last statement's message.
          const before = last ? Math.round(performance.now() - started) : 0;
          step = {
            sql: statement.text,
            begin: !begun,
            record: last
              ? (elapsedMsSql, nowSql) => {
                  const tracking = recordFor(before, `${before} + ${elapsedMsSql}`, nowSql);
                  member = tracking.member;
                  return tracking.sql;
                }
              : undefined,
            commit: last && ownTransaction,
          };
        }
        begun = true; // from here on a transaction is open, failed or not
        const background = await this.#execute(file, statement, step);
        ranTo(i + 1, i);
        // It ran; what it left running on the server is part of it (a failure there is its failure).
        if (background) await this.#awaitBackground(file, statement, background);
      }
      current = undefined;
      if (guard?.renewSession) await this.#conn.renewSession?.();
      const durationMs = performance.now() - started;
      if (combine) {
        // Recorded (and committed) with the last statement; the in-memory record carries the
        // duration the user is shown, the tracking row the server's.
        if (member) member.record.executionMs = durationMs;
      } else {
        const tracking = recordFor(durationMs);
        member = tracking.member;
        if (useTransaction) {
          // Let a pending SIGINT/SIGTERM handler run before the point of no return (synchronous
          // drivers such as better-sqlite3 never yield to the event loop otherwise).
          await yieldToEventLoop();
          this.#checkAbort();
        }
        await this.#exec(tracking.sql);
        if (inSavepoint) await this.#exec(`RELEASE SAVEPOINT ${SAVEPOINT}`);
        else if (useTransaction) await this.#conn.commit();
      }
      const done = `${direction === 'rollback' ? 'rolled back' : 'applied'} ${file.filename} in ${formatMs(durationMs)}`;
      if (this.#options.verbose) this.#log.info(done);
      else this.#log.debug(done);
      result = { durationMs, outside };
    } catch (error) {
      const part = failedPart(error);
      if (current && (part === 'record' || part === 'commit')) {
        // The statement ran; recording the migration (or committing it) failed.
        if (!own?.has(current)) executed.push({ line: current.line, text: current.text });
        current = undefined;
      }
      let rolledBack: boolean | 'unknown' = false;
      if (inSavepoint) {
        rolledBack = await this.#abandonSavepoint(file);
      } else if (useTransaction && begun) {
        const ended = await this.#rollbackAfter(file, error);
        // Without transactional DDL the rollback undid the file only if nothing committed it on
        // the way, the failing statement included (the server commits before running it).
        const committed = (s: { text: string }) => (this.#dialect.commitsImplicitly?.(s.text) ?? true) !== false;
        rolledBack = caps.transactionalDdl ? ended : ended === true && !statements.slice(0, ran).some(committed) && !(current !== undefined && committed(current));
      } else if (ownTransactions) {
        // What ran since the file's last unended BEGIN goes with that transaction, where DDL is
        // transactional; the rest of what ran stays.
        const open = unendedTransaction(executed);
        if ((await this.#endOpenTransaction(file)) && open && caps.transactionalDdl) undone = executed.splice(executed.indexOf(open));
      }
      // Before the lock's release, which looks for mtool's table where the session started.
      await this.#switchBack(file, guard?.after ?? []);
      if (guard?.renewSession) await this.#conn.renewSession?.().catch((error: unknown) => this.#log.warn(`${file.filename}: could not start a new session after the failure`, { error }));
      throw this.#failure(file, direction, error, current, executed, rolledBack, useTransaction, undone);
    }
    if (!inSavepoint) {
      if (member) await this.#options.onCommit?.([{ file: member.file, record: member.record }]);
    } else {
      if (member) this.#group!.members.push(member);
      if (performance.now() - this.#group!.startedAt >= this.#options.groupWindowMs!) await this.#commitGroup();
    }
    return result;
  }

  /**
   * Whether a file's statements run in a transaction of their own, and whether they run outside
   * one although the database has transactions (`outside`, and the warning to log when it runs).
   */
  async #transactionMode(file: MigrationFile, statements: readonly SqlStatement[], direction: Direction): Promise<TransactionMode> {
    const caps = this.#dialect.capabilities;
    if (!caps.transactions) return { useTransaction: false, outside: false };
    // A script with its own BEGIN ... COMMIT runs as written: inside one of mtool's transactions
    // SQLite refuses its BEGIN, and PostgreSQL's COMMIT would commit mtool's transaction halfway
    // through the file, which a failure after it could then no longer roll back.
    const own = firstTransactionControl(statements);
    if (own) {
      const warning =
        `${file.filename}: ${direction === 'rollback' ? 'rollback runs' : 'runs'} outside a transaction of mtool's: the file begins and ends transactions itself ` +
        `('${own.text}', line ${own.line}); if a statement fails, the transaction it is in is rolled back and what the file committed before it stays applied`;
      return { useTransaction: false, outside: true, warning, ownTransactions: true };
    }
    // Without transactional DDL, a transaction opened before a file whose first statement commits
    // implicitly (DDL, on MySQL and MariaDB) would end at once and protect nothing: opening it would
    // only cost two round trips (BEGIN, COMMIT) per file.
    if (!caps.transactionalDdl && statements.length > 0 && this.#dialect.commitsImplicitly?.(statements[0]!.text) === true) return { useTransaction: false, outside: false };
    const why = caps.transactionalDdl
      ? await noTransactionReason(file, statements, caps, () => (this.#serverVersion ??= this.#conn.serverVersion().then((raw) => this.#dialect.parseServerVersion(raw))))
      : file.directives.includes('no-transaction')
        ? { reason: 'the file declares `-- mtool: no-transaction`' }
        : undefined;
    if (!why) return { useTransaction: true, outside: false };
    const where = why.statement ? ` (line ${why.statement.line})` : '';
    const warning = `${file.filename}: ${direction === 'rollback' ? 'rollback runs' : 'runs'} outside a transaction: ${why.reason}${where}; if a statement fails, the statements before it stay applied`;
    return { useTransaction: false, outside: true, warning };
  }

  /**
   * After a failure inside the group: roll the file back to its savepoint and commit the
   * migrations before it. If that fails, the whole group is rolled back (none of it recorded).
   * @returns whether the failed file's changes are gone.
   */
  async #abandonSavepoint(file: MigrationFile): Promise<boolean> {
    try {
      await this.#exec(`ROLLBACK TO SAVEPOINT ${SAVEPOINT}`);
    } catch (rollbackError) {
      this.#log.warn(`${file.filename}: ROLLBACK TO SAVEPOINT failed after an error; rolling back the migrations grouped with it`, { error: rollbackError });
      const lost = this.#group?.members ?? [];
      this.#group = undefined;
      try {
        await this.#conn.rollback();
      } catch (error) {
        this.#log.warn(`${file.filename}: ROLLBACK failed after an error`, { error });
        return false;
      }
      if (lost.length > 0) this.#log.warn(`rolled back with it (not applied, not recorded): ${lost.map((m) => m.file.filename).join(', ')}`);
      return true;
    }
    try {
      await this.#commitGroup();
    } catch (error) {
      this.#log.warn(`committing the migrations grouped before ${file.filename} failed; run \`mtool history\` to see which of them are recorded`, { error });
    }
    return true;
  }

  /**
   * Commit the open group and report its migrations. When the COMMIT fails (a deferred constraint
   * checked only there, a busy database), the group is rolled back and its migrations are applied
   * again one transaction each, so the one that cannot commit fails alone, as without grouping.
   */
  async #commitGroup(): Promise<void> {
    const group = this.#group;
    if (!group) return;
    this.#group = undefined;
    try {
      await this.#conn.commit();
    } catch (error) {
      await this.#conn.rollback().catch(() => undefined);
      if (group.members.length === 0) throw error;
      this.#log.warn(
        `committing ${group.members.length} grouped migration(s) failed (${error instanceof Error ? error.message : String(error)}); applying them again one transaction each`,
      );
      for (const member of group.members) await this.#apply(member.file, member.existing, false);
      return;
    }
    if (group.members.length > 0) await this.#options.onCommit?.(group.members.map(({ file, record }) => ({ file, record })));
  }

  /** Run one statement for its effect, rows dropped: the driver's cheaper call where it has one ({@link Connection.exec}). */
  async #exec(sql: string): Promise<void> {
    if (this.#conn.exec) await this.#conn.exec(sql);
    else await this.#conn.query(sql);
  }

  /**
   * Run one statement, with what travels with it where the driver combines them ({@link StatementStep}).
   * @returns where the statement may leave work running on the server ({@link Dialect.backgroundWork}),
   *   the work that ran before it, for {@link #awaitBackground}.
   */
  async #execute(file: MigrationFile, statement: SqlStatement, step?: StatementStep): Promise<ReadonlySet<string> | undefined> {
    const started = this.#options.perf ? performance.now() : 0;
    const running = step === undefined && this.#dialect.backgroundWork?.mayStart(statement.text) ? await this.#dialect.backgroundWork.before(this.#conn, statement.text) : undefined;
    await this.#cancellable(async () => {
      if (step) await this.#conn.send!(step);
      else await this.#exec(statement.text);
    });
    if (this.#options.perf) {
      this.#log.info(`perf ${formatMs(performance.now() - started)} ${file.filename}:${statement.line} ${statementPreview(statement.text)}`);
    }
    return running;
  }

  /** Wait for the work a statement left running on the server (ClickHouse mutations); a run stopped meanwhile stops here. */
  async #awaitBackground(file: MigrationFile, statement: SqlStatement, running: ReadonlySet<string>): Promise<void> {
    const progress = (message: string): void => this.#log.info(`${file.filename}:${statement.line}: ${message}`);
    const signal = this.#options.signal;
    const started = performance.now();
    await this.#dialect.backgroundWork!.wait(this.#conn, running, { ...(signal ? { signal } : {}), progress, statement: statement.text });
    if (this.#options.perf) this.#log.info(`perf ${formatMs(performance.now() - started)} ${file.filename}:${statement.line} (the server's work it left running)`);
    this.#checkAbort();
  }

  #failure(
    file: MigrationFile,
    direction: Direction,
    error: unknown,
    statement: SqlStatement | undefined,
    executed: readonly ExecutedStatement[],
    /** `unknown`: the connection was lost, maybe after the transaction's COMMIT reached the server. */
    rolledBack: boolean | 'unknown',
    inTransaction: boolean,
    /** Statements that ran in the transaction the file itself had begun, rolled back with it. */
    undone: readonly ExecutedStatement[] = [],
    /** Recorded in groups: the migrations before it that ran whole but whose rows were not written. */
    unrecorded?: readonly MigrationFile[],
  ): MigrationFailedError {
    const what = direction === 'rollback' ? `the rollback of ${file.filename}` : `migration ${file.filename}`;
    const cause = error instanceof Error ? error.message : String(error);
    const line = statement?.line ?? 0;
    const head = statement ? `${file.filename}:${statement.line}: ${cause}` : `${file.filename}: ${cause}`;
    const undoneNote = undone.length === 0 ? '' : `the statements from line ${undone[0]!.line} on ran in the transaction the file had begun there and were rolled back with it`;
    let tail: string;
    if (rolledBack === 'unknown') {
      tail =
        `the connection was lost while ${what} ran: the database rolls its transaction back unless the COMMIT had reached it first. ` +
        `Run \`mtool status\` to see which: the transaction also held the tracking row, so ${
          direction === 'rollback'
            ? `if ${file.filename} is no longer recorded its rollback committed whole, and if it is still recorded its rollback left nothing`
            : 'a recorded migration committed whole and an unrecorded one left nothing'
        }.`;
    } else if (rolledBack) {
      tail =
        direction === 'rollback'
          ? `${what} was rolled back as a whole: none of its statements remain and ${file.filename} is still recorded as applied.`
          : `${what} was rolled back as a whole: none of its statements remain and it was not recorded.`;
    } else if (isConnectionError(error) && !inTransaction && direction === 'upgrade' && statement === undefined && executed.length > 0) {
      // Every statement ran and is kept (no transaction): only whether its tracking row was written is not known.
      const list = executed.map((s) => `line ${s.line}: ${statementPreview(s.text, 60)}`).join('; ');
      const record = file.kind === 'versioned' && file.version !== undefined ? `, then record it without running it again: \`mtool migrate --database ${this.#database} --baseline --to-version ${file.version}\`` : '';
      tail =
        `the connection was lost after every statement of ${what} had run (${list}), as its tracking row was written. ` +
        `Run \`mtool status\` before running the command again: if it shows ${file.filename} applied, the row was written; if pending, its statements ran all the same: check that they did what they say${record}.`;
    } else if (isConnectionError(error)) {
      // Outside a transaction nothing undoes what reached the server, and its answers were lost.
      const known = executed.length === 0 ? '' : ` (known to have run: ${executed.map((s) => `line ${s.line}: ${statementPreview(s.text, 60)}`).join('; ')})`;
      tail =
        `the connection was lost while ${what} ran, so how far the database got is not known here${known}. ` +
        (direction === 'rollback'
          ? this.#lostRollbackNote(file)
          : `Run \`mtool status\` before running the command again: ${
              unrecorded === undefined
                ? 'a migration the database finished is recorded'
                : 'a migration the database finished is recorded once the record of its group of migrations ran (mtool records them in groups here), so one may have finished without it'
            }; for one that is not recorded, inspect the database for what its statements did and repair it.`);
    } else if (executed.length === 0) {
      tail = undone.length === 0 ? `no statement of ${what} had run; the tracking table is unchanged.` : `none of the statements of ${what} remain: ${undoneNote}; the tracking table is unchanged.`;
    } else {
      const why = inTransaction
        ? `On ${this.#dialect.type}, DDL statements commit at once, so their effects may remain`
        : 'They ran outside a transaction, so their effects remain';
      const list = executed.map((s) => `line ${s.line}: ${statementPreview(s.text, 60)}`).join('; ');
      tail =
        `statements of ${what} that already ran: ${list}. ${why}${undone.length === 0 ? '' : ` (${undoneNote})`}: inspect the database manually and repair it before running the command again. ` +
        `The tracking table is unchanged.`;
    }
    if (unrecorded !== undefined && unrecorded.length > 0) tail = `${tail} ${this.#unrecordedNote(unrecorded, isConnectionError(error))}`;
    const hint = statement === undefined ? undefined : this.#dialect.failureHint?.(statement.text, error);
    if (hint !== undefined) tail = `${tail} ${hint}`;
    return new MigrationFailedError(`${head} — ${tail}`, { file: file.filename, line, rolledBack: rolledBack === true, executed: rolledBack === true ? [] : executed, database: this.#database, cause: error });
  }

  /**
   * What to do after the connection was lost during a rollback that ran outside a transaction:
   * its record is removed after its last statement, so a migration still recorded may be rolled
   * back in part, and running its rollback again would repeat the statements that already ran.
   */
  #lostRollbackNote(file: MigrationFile): string {
    const db = this.#database;
    return (
      `Run \`mtool status --database ${db}\` before rolling back again: if ${file.filename} is no longer recorded, the database finished its rollback. ` +
      `If it is still recorded, it may be partly rolled back (some of its rollback statements may have run): inspect the database for what they did ` +
      `and repair it before running \`mtool rollback\` again, which would run every one of them again.`
    );
  }

  /**
   * What to do about migrations that ran whole before a failure but have no row (their group's
   * record was not written). After a lost connection the database may have gone on and written it.
   */
  #unrecordedNote(unrecorded: readonly MigrationFile[], lost: boolean): string {
    const one = unrecorded.length === 1;
    const names = unrecorded.map((file) => file.filename).join(', ');
    const baseline = `mtool migrate --database ${this.#database} --baseline --to-version ${unrecorded[unrecorded.length - 1]!.version}`;
    return (
      `Before it, ${one ? `migration ${names} ran whole, but its tracking row was` : `migrations ${names} ran whole, but their tracking rows were`} not written ` +
      `(on ${this.#dialect.type} mtool records consecutive migrations in groups, and ${lost ? 'the connection was lost' : 'the session failed'} before this group's record): ` +
      `${lost ? `if \`mtool status\` shows ${one ? 'it' : 'them'} pending, ` : ''}check that ${one ? 'it' : 'they'} did what ${one ? 'it says' : 'they say'}, then record ${one ? 'it' : 'them'} without running ${one ? 'it' : 'them'} again: \`${baseline}\`.`
    );
  }
}

/** The outcome of an applied file (`outside`: it ran outside a transaction the database had). */
function appliedOutcome(file: MigrationFile, durationMs: number, outside: boolean): MigrationOutcome {
  return { filename: file.filename, version: file.version ?? null, type: file.kind, action: 'applied', durationMs, ...(outside ? { outsideTransaction: true } : {}) };
}
