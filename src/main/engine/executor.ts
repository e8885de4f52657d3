import { performance } from 'node:perf_hooks';
import type { Connection, Dialect, ServerVersion } from '../../dialects/types.js';
import { MtoolError } from '../../errors.js';
import type { MigrationFile, SqlStatement } from '../../parser/migration-file.js';
import type { Logger } from '../log.js';
import { MigrationFailedError, statementPreview, type ExecutedStatement } from './migration-error.js';
import type { RollbackStep } from './planner.js';
import type { TrackingStore } from './tracking-store.js';
import { beginsWithImplicitCommit, noTransactionReason } from './transaction-mode.js';
import type { MigrationOutcome, MigrationRecord } from './types.js';

/** What a hook receives after versioned migrations were applied. */
export interface AfterMigrationEvent {
  database: string;
  conn: Connection;
  dialect: Dialect;
  file: MigrationFile;
  record: MigrationRecord;
}

export interface AfterBatchEvent {
  database: string;
  conn: Connection;
  dialect: Dialect;
  /** Versioned migrations applied in this run, in order (not baselined ones). */
  applied: { file: MigrationFile; record: MigrationRecord }[];
  /** `--defer-snapshots`: per-migration hooks were skipped; write the final state now. */
  deferred: boolean;
}

/**
 * Extension points of `migrate`, for the schema-snapshot and model-state writers (spec: a
 * snapshot after each versioned migration; with `--defer-snapshots` only after the batch).
 * A hook that throws logs a warning and does not fail the migration (spec: "write failure only
 * logs a warning"). Hooks run while the lock is held.
 */
export interface EngineHooks {
  /** After each applied versioned migration, unless `--defer-snapshots`. */
  afterVersionedMigration?(event: AfterMigrationEvent): Promise<void>;
  /** Once after a run that applied at least one versioned migration. */
  afterBatch?(event: AfterBatchEvent): Promise<void>;
}

export interface ExecutorOptions {
  /** Log each statement with its duration at INFO (`--perf`). */
  perf: boolean;
  /** Log each migration as it starts and ends at INFO (`--verbose`); DEBUG otherwise. */
  verbose: boolean;
  signal: AbortSignal | undefined;
  /** `user@host`, written to `applied_by`. */
  appliedBy: string;
}

type Direction = 'upgrade' | 'rollback';

const nextImmediate = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
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

  constructor(conn: Connection, dialect: Dialect, store: TrackingStore, log: Logger, database: string, options: ExecutorOptions) {
    this.#conn = conn;
    this.#dialect = dialect;
    this.#store = store;
    this.#log = log;
    this.#database = database;
    this.#options = options;
  }

  /** Run a file's upgrade statements and record it (insert, or update the row of a re-run repeatable). */
  async apply(file: MigrationFile, existing?: MigrationRecord): Promise<{ outcome: MigrationOutcome; record: MigrationRecord }> {
    let record: MigrationRecord | undefined;
    const { durationMs, outside } = await this.#runUnit(file, file.upgrade, 'upgrade', async (ms) => {
      record = this.#recordFor(file, ms);
      if (existing) await this.#store.update(record);
      else await this.#store.insert(record);
    });
    return {
      outcome: { filename: file.filename, version: file.version ?? null, type: file.kind, action: 'applied', durationMs, ...(outside ? { outsideTransaction: true } : {}) },
      record: record as MigrationRecord,
    };
  }

  /** Record a versioned file as applied without running it (`--baseline`). */
  async baseline(file: MigrationFile): Promise<MigrationOutcome> {
    await this.#store.insert(this.#recordFor(file, 0));
    this.#log.info(`${file.filename}: baselined (recorded as applied, not executed)`);
    return { filename: file.filename, version: file.version ?? null, type: file.kind, action: 'baselined', durationMs: 0 };
  }

  /** Run a file's rollback statements and remove its record. */
  async revert(step: RollbackStep): Promise<MigrationOutcome> {
    const { file, record } = step;
    const { durationMs, outside } = await this.#runUnit(file, file.rollback ?? [], 'rollback', () => this.#store.remove(record));
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

  #checkAbort(): void {
    const signal = this.#options.signal;
    if (signal?.aborted) {
      const reason = signal.reason instanceof Error ? signal.reason.message : String(signal.reason ?? 'interrupted');
      throw new MtoolError('MTOOL_MIGRATION_FAILED', `interrupted (${reason})`, { database: this.#database });
    }
  }

  async #runUnit(
    file: MigrationFile,
    statements: readonly SqlStatement[],
    direction: Direction,
    writeRecord: (executionMs: number) => Promise<void>,
  ): Promise<{ durationMs: number; outside: boolean }> {
    const caps = this.#dialect.capabilities;
    // Without transactional DDL, a file starting with DDL would end its own transaction at once.
    let useTransaction = caps.transactions && (caps.transactionalDdl || !beginsWithImplicitCommit(statements));
    let outside = false;
    if (useTransaction) {
      const why = caps.transactionalDdl
        ? await noTransactionReason(file, statements, caps, () => (this.#serverVersion ??= this.#conn.serverVersion().then((raw) => this.#dialect.parseServerVersion(raw))))
        : file.directives.includes('no-transaction')
          ? { reason: 'the file declares `-- mtool: no-transaction`' }
          : undefined;
      if (why) {
        useTransaction = false;
        outside = true;
        const where = why.statement ? ` (line ${why.statement.line})` : '';
        this.#log.warn(
          `${file.filename}: ${direction === 'rollback' ? 'rollback runs' : 'runs'} outside a transaction: ${why.reason}${where}; if a statement fails, the statements before it stay applied`,
        );
      }
    }
    const label = direction === 'rollback' ? `rolling back ${file.filename}` : `applying ${file.filename}`;
    if (this.#options.verbose) this.#log.info(label);
    else this.#log.debug(label);

    const executed: ExecutedStatement[] = [];
    let current: SqlStatement | undefined;
    const started = performance.now();
    this.#checkAbort();
    if (useTransaction) await this.#conn.begin();
    try {
      for (const statement of statements) {
        this.#checkAbort();
        current = statement;
        await this.#execute(file, statement);
        executed.push({ line: statement.line, text: statement.text });
      }
      current = undefined;
      const durationMs = performance.now() - started;
      await writeRecord(durationMs);
      if (useTransaction) {
        // Let a pending SIGINT/SIGTERM handler run before the point of no return (synchronous
        // drivers such as better-sqlite3 never yield to the event loop otherwise).
        await yieldToEventLoop();
        this.#checkAbort();
        await this.#conn.commit();
      }
      const done = `${direction === 'rollback' ? 'rolled back' : 'applied'} ${file.filename} in ${formatMs(durationMs)}`;
      if (this.#options.verbose) this.#log.info(done);
      else this.#log.debug(done);
      return { durationMs, outside };
    } catch (error) {
      let rolledBack = false;
      if (useTransaction) {
        try {
          await this.#conn.rollback();
          rolledBack = caps.transactionalDdl;
        } catch (rollbackError) {
          this.#log.warn(`${file.filename}: ROLLBACK failed after an error`, { error: rollbackError });
        }
      }
      throw this.#failure(file, direction, error, current, executed, rolledBack, useTransaction);
    }
  }

  async #execute(file: MigrationFile, statement: SqlStatement): Promise<void> {
    const started = this.#options.perf ? performance.now() : 0;
    await this.#conn.query(statement.text);
    if (this.#options.perf) {
      this.#log.info(`perf ${formatMs(performance.now() - started)} ${file.filename}:${statement.line} ${statementPreview(statement.text)}`);
    }
  }

  #failure(
    file: MigrationFile,
    direction: Direction,
    error: unknown,
    statement: SqlStatement | undefined,
    executed: readonly ExecutedStatement[],
    rolledBack: boolean,
    inTransaction: boolean,
  ): MigrationFailedError {
    const what = direction === 'rollback' ? `the rollback of ${file.filename}` : `migration ${file.filename}`;
    const cause = error instanceof Error ? error.message : String(error);
    const line = statement?.line ?? 0;
    const head = statement ? `${file.filename}:${statement.line}: ${cause}` : `${file.filename}: ${cause}`;
    let tail: string;
    if (rolledBack) {
      tail = `${what} was rolled back as a whole: none of its statements remain and it was not ${direction === 'rollback' ? 'unrecorded' : 'recorded'}.`;
    } else if (executed.length === 0) {
      tail = `no statement of ${what} had run; the tracking table is unchanged.`;
    } else {
      const why = inTransaction
        ? `${this.#dialect.type} commits DDL statements at once, so their effects may remain`
        : 'they ran outside a transaction, so their effects remain';
      const list = executed.map((s) => `line ${s.line}: ${statementPreview(s.text, 60)}`).join('; ');
      tail =
        `statements of ${what} that already ran: ${list}. ${why}: inspect the database manually and repair it before running the command again. ` +
        `The tracking table is unchanged.`;
    }
    return new MigrationFailedError(`${head} — ${tail}`, { file: file.filename, line, rolledBack, executed: rolledBack ? [] : executed, database: this.#database, cause: error });
  }
}

/** `0.42 ms`, `12.3 ms`, `1.52 s`. */
export function formatMs(ms: number): string {
  if (ms < 1) return `${ms.toFixed(2)} ms`;
  if (ms < 1000) return `${ms.toFixed(1)} ms`;
  return `${(ms / 1000).toFixed(2)} s`;
}
