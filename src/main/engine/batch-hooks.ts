import { performance } from 'node:perf_hooks';
import { isMtoolError } from '../../errors.js';
import type { MigrationFile } from '../../parser/migration-file.js';
import type { DatabaseSession } from './database-session.js';
import { formatMs } from './format-ms.js';
import type { AppliedMigration, EngineHooks, HookContext } from './hooks.js';
import type { MigrationRecord } from './types.js';

/** What a warning says of a hook that failed before its migrations ran: they are not applied yet. */
const BEFORE = 'the migrations are run all the same';

/**
 * Calls one `migrate` batch's {@link EngineHooks} in the order hooks.ts promises, and keeps the
 * versioned migrations committed so far. A hook that throws only warns (spec: a snapshot write
 * failure only logs a warning); the migration stays applied.
 *
 * The executor reports commits as they happen ({@link committed}), which can be before the
 * after-migration hook of the migration it committed; {@link flushCommits} hands them to
 * `afterCommit` between migrations, after that hook.
 */
export class BatchHooks {
  readonly #session: DatabaseSession;
  readonly #hooks: EngineHooks | undefined;
  readonly #deferred: boolean;
  readonly #context: HookContext;
  /** Per-migration hooks run (not with `--defer-snapshots`). */
  readonly #perMigration: boolean;
  /** Committed, not yet handed to `afterCommit`. */
  #unreported: AppliedMigration[] = [];
  /** Versioned migrations committed in this batch, in order. */
  readonly applied: AppliedMigration[] = [];
  /** `beforeTail` was called: commits go to `tailCommitted` as they come, and `afterBatch` is due. */
  #tailStarted = false;

  constructor(session: DatabaseSession, hooks: EngineHooks | undefined, deferred: boolean) {
    this.#session = session;
    this.#hooks = hooks;
    this.#deferred = deferred;
    this.#perMigration = hooks !== undefined && !deferred;
    this.#context = { database: session.entry.name, conn: session.conn, dialect: session.dialect };
  }

  /** Whether hooks run before and after each versioned migration (then nothing may run two migrations together). */
  get perMigration(): boolean {
    return this.#perMigration;
  }

  /** For the executor's `onCommit`: migrations whose transaction committed. */
  readonly committed = async (migrations: readonly AppliedMigration[]): Promise<void> => {
    this.#unreported.push(...migrations);
    if (!this.#tailStarted || !this.#hooks?.tailCommitted) return;
    const versioned = migrations.filter((m) => m.file.kind === 'versioned');
    if (versioned.length === 0) return;
    try {
      this.#hooks.tailCommitted({ ...this.#context, committed: versioned });
    } catch (error) {
      this.#session.log.warn('tail-commit hook failed; the migrations themselves are applied and recorded', { error });
    }
  };

  /**
   * Where in `files` (the batch's versioned migrations) the engine calls {@link beforeTail}:
   * undefined when the hooks have no use for it or migrations do not commit one by one.
   */
  tailStart(files: readonly MigrationFile[], commitsEach: boolean): number | undefined {
    if (!this.#deferred || !commitsEach || !this.#hooks?.beforeTail || !this.#hooks.tailSize || files.length === 0) return undefined;
    const size = this.#hooks.tailSize(this.#context.dialect);
    return size > 0 ? Math.max(0, files.length - size) : undefined;
  }

  /** `beforeTail` for the batch's last versioned migrations; a hook that throws only warns. */
  async beforeTail(pending: readonly MigrationFile[]): Promise<void> {
    const hook = this.#hooks?.beforeTail?.bind(this.#hooks);
    if (!hook) return;
    this.#tailStarted = true;
    await this.#run('before-tail hook', () => hook({ ...this.#context, pending, connectOptions: this.#session.connectOptions }), false, BEFORE);
  }

  /** `remaining`: versioned migrations of the batch from this one on, this one included. */
  async before(file: MigrationFile, remaining: number): Promise<void> {
    const hook = this.#perMigration ? this.#hooks?.beforeVersionedMigration?.bind(this.#hooks) : undefined;
    if (hook) await this.#run(`before-migration hook for ${file.filename}`, () => hook({ ...this.#context, file, remaining }), false, BEFORE);
  }

  /**
   * Before the next versioned migrations where the executor sends several in one message: how many
   * of `pending` run together ({@link EngineHooks.runLength}), or undefined when the hooks run
   * before each one alone ({@link before}). A hook that throws warns; one migration runs then.
   */
  async runLength(pending: readonly MigrationFile[], remaining: number): Promise<number | undefined> {
    const hook = this.#perMigration ? this.#hooks?.runLength?.bind(this.#hooks) : undefined;
    if (!hook || pending.length === 0) return undefined;
    let length = 1;
    await this.#run(`before-migration hook for ${pending[0]!.filename}`, async () => {
      length = await hook({ ...this.#context, pending, remaining });
    }, false, BEFORE);
    return Math.min(pending.length, Math.max(1, Math.floor(length) || 1));
  }

  async after(file: MigrationFile, record: MigrationRecord): Promise<void> {
    const hook = this.#perMigration ? this.#hooks?.afterVersionedMigration?.bind(this.#hooks) : undefined;
    if (hook) await this.#run(`after-migration hook for ${file.filename}`, () => hook({ ...this.#context, file, record }), false);
  }

  /** Hand the versioned migrations committed since the last call to `afterCommit`. */
  async flushCommits(): Promise<void> {
    const versioned = this.#unreported.splice(0).filter((c) => c.file.kind === 'versioned');
    this.applied.push(...versioned);
    const hook = this.#perMigration ? this.#hooks?.afterCommit?.bind(this.#hooks) : undefined;
    if (hook && versioned.length > 0) await this.#run('after-commit hook', () => hook({ ...this.#context, committed: versioned }), false);
  }

  /** `afterBatch`, when at least one versioned migration was committed (also after a failure) or the tail began. */
  async end(failed: boolean): Promise<void> {
    await this.flushCommits();
    const hook = this.#hooks?.afterBatch?.bind(this.#hooks);
    if (hook && (this.applied.length > 0 || this.#tailStarted)) {
      // Timed where it wrote something: with nothing applied it only ends what beforeTail began.
      await this.#run('after-batch hook', () => hook({ ...this.#context, applied: this.applied, deferred: this.#deferred, failed }), this.applied.length > 0);
    }
  }

  /** `stands`: what the warning says of the migrations the hook is about ({@link BEFORE} for one that runs before them). */
  async #run(name: string, hook: () => Promise<void>, logTime: boolean, stands = 'the migration itself is applied and recorded'): Promise<void> {
    const started = performance.now();
    try {
      await hook();
      if (logTime) this.#session.log.info(`${name} in ${formatMs(performance.now() - started)}`);
    } catch (error) {
      // Snapshots not written: their error says which, why and what to do (snapshot-failure.ts),
      // the migrations being applied included; any other failure of a hook gets the general line.
      if (isMtoolError(error) && error.code === 'MTOOL_SNAPSHOT') this.#session.log.warn(error.message);
      else this.#session.log.warn(`${name} failed; ${stands}`, { error });
    }
  }
}
