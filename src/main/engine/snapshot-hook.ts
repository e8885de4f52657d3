import { performance } from 'node:perf_hooks';
import type { Connection, Dialect } from '../../dialects/types.js';
import type { MigrationFile } from '../../parser/migration-file.js';
import type { DatabaseEntry } from '../config/types.js';
import type { Logger } from '../log.js';
import type { SchemaWindow, WindowEntry } from '../snapshot/schema-window.js';
import type { QueuedSnapshot, SnapshotSink, WrittenListener } from '../snapshot/snapshot-queue.js';
import { deferredSnapshots, type DeferredSnapshotOptions } from './deferred-snapshot.js';
import { formatMs } from './format-ms.js';
import { reasonOf, snapshotsNotWritten } from './snapshot-failure.js';
import type { EngineHooks, HookContext } from './hooks.js';
import { loadSnapshotModules, migrationId, round, schemaReader, type SnapshotModules } from './snapshot-modules.js';

/** `root`, `databases`, `log` and `--defer-snapshots`' `tailMigrations`: see {@link DeferredSnapshotOptions}. */
export interface SnapshotHookOptions extends DeferredSnapshotOptions {
  /**
   * Batches whose snapshots will hold at least this many tables in all (see {@link THREAD_MIN_TABLES})
   * write them in a worker thread. `0`: always; `Infinity`: never.
   */
  threadMinTables?: number;
  /** The worker's entry (default: beside snapshot-thread.js); tests running the sources point it at tsc's output. */
  threadWorkerUrl?: URL;
}

/**
 * From how much snapshot text a batch's snapshots are written in a worker thread, counted in
 * tables over all its files: migrations left × (tables before the batch + half of them, for
 * tables the batch creates), about 50 MB of files. Starting the thread and handing it every
 * step costs more than it saves below that: on PostgreSQL (2 cores, `node bench/snapshot-thread.mjs`)
 * the thread took 1.15-1.38x the time of the migration thread up to 5,000 tables, 1.21-1.23x at
 * 10,000-26,000, 0.98x at 55,000 and 0.95x at 500,000 (1000 migrations creating a table each).
 */
export const THREAD_MIN_TABLES = 100_000;

/**
 * From how many migrations a batch with a snapshot after each says that `--defer-snapshots` would
 * write only the last. 1000 small migrations (259 MB of snapshots) took 1.06-1.2x as long with a
 * snapshot after each on PostgreSQL and MariaDB, where they run in runs, and 2.6x on SQLite, where
 * the writer waits for the group's commit (`node bench/snapshot-batch.mjs --n 1000 --reps 3`).
 */
export const LARGE_BATCH = 100;

/**
 * How many migrations may run together, sent in one message with no read between them (see
 * {@link EngineHooks.runLength}), when `remaining` are left: up to 100, a quarter of what is
 * left, at least 4. Reads (and so snapshot writes) wait for a run's end; shorter runs toward the
 * batch's end leave few snapshots to write after its last migration.
 */
export function runCap(remaining: number): number {
  return Math.min(RUN_MAX, Math.max(RUN_MIN, Math.ceil(remaining / 4)));
}
const RUN_MAX = 100;
const RUN_MIN = 4;

/** A queued snapshot as the hook keeps it: with its whole window entry (the migration file). */
interface Pending extends QueuedSnapshot {
  entry: WindowEntry;
}

/** What the hook keeps about one database during one batch. */
interface BatchState {
  /** The session the batch runs on: another connection is another batch. */
  conn: Connection;
  dialect: Dialect;
  entry: DatabaseEntry;
  log: Logger;
  modules: SnapshotModules;
  /** Made for the first snapshot handed to it ({@link queueFor}). */
  queue: SnapshotSink | undefined;
  /** Versioned migrations the batch meant to apply when it started. */
  remaining: number;
  /** Unset until the next migration reads the schema in full (at the start, and after a failed read). */
  window: SchemaWindow | undefined;
  /** Applied migrations not yet handed to the queue: waiting for their read or their commit, in order. */
  pending: Pending[];
  committed: WeakSet<MigrationFile>;
  /** Reads of windows that ended (a window keeps its own count). */
  reads: { count: number; ms: number };
}

/**
 * A window is read early, before a migration that does not need it, once the writer has nothing
 * left to write and the window is this many times older than its last read took (and at least
 * {@link EARLY_READ_MIN_MS}), or holds at least as many migrations as the batch has left:
 * snapshots then get written while migrations run, the reads stay a small share of the batch,
 * and few snapshots are left to write after its last migration.
 */
const EARLY_READ_FACTOR = 20;
const EARLY_READ_MIN_MS = 50;

/**
 * `migrate`'s schema snapshots (spec "Schema snapshot"): after each applied versioned migration
 * the live schema (tracking tables left out) is written as
 * `.mtool/schemas/<db>__<NNNN>_<desc>.schema.json`; with `--defer-snapshots` only once, for the
 * last migration of the batch. The engine never calls these hooks on `--dry-run` or for
 * repeatable migrations, and turns a thrown error into a warning (the migration stays applied).
 *
 * A batch is a pipeline (engine hook order: before, after, commit; afterBatch at the end):
 * - reads: the schema is read in full before the first migration; after that a
 *   {@link SchemaWindow} re-reads only the tables migrations touched (ddl-targets.ts; anything not
 *   recognised is read in full), lazily, one introspection for many migrations;
 * - runs: where the executor sends migrations together (PostgreSQL, MySQL, MariaDB), `runLength`
 *   lets the migrations up to the next one that needs a read first go in one message
 *   ({@link SchemaWindow.runnable}, at most {@link runCap}): between them nothing is read;
 * - commits: a snapshot is queued only once its migration is committed (SQLite groups several
 *   migrations into one transaction; a group rolled back never gets snapshots);
 * - writes: a {@link SnapshotQueue} writes the files in the background while the next migrations
 *   run, with one fsync for the batch (see its durability policy); `afterBatch` waits for it and
 *   throws when a snapshot could not be read or written.
 * Logs per file `snapshot written in N ms` at DEBUG (`introspection`: how its schema was found:
 * `full`, `partial` or `none`) and one INFO line per batch with the count, bytes and times.
 * The deferred snapshot and the reads that start before it: deferred-snapshot.ts.
 * @example await engine.migrate(entry, ctx, { hooks: snapshotHooks({ root, databases: config.databases, log }) })
 */
export function snapshotHooks(options: SnapshotHookOptions): EngineHooks {
  const states = new Map<string, BatchState>();
  const deferred = deferredSnapshots(options);
  const entryOf = (database: string) => options.databases.find((d) => d.name === database);
  const logFor = (entry: DatabaseEntry) => options.log.child({ db_name: entry.name, db_type: entry.type });

  const stateFor = async (event: HookContext, remaining: number): Promise<BatchState | undefined> => {
    const current = states.get(event.database);
    if (current?.conn === event.conn) return current;
    const entry = entryOf(event.database);
    if (!entry) return undefined;
    // Loaded here, not at the top: a migrate that applies nothing must not pay for them.
    const modules = await loadSnapshotModules();
    const log = logFor(entry);
    const state: BatchState = { conn: event.conn, dialect: event.dialect, entry, log, modules, queue: undefined, remaining, window: undefined, pending: [], committed: new WeakSet(), reads: { count: 0, ms: 0 } };
    states.set(event.database, state);
    if (remaining >= LARGE_BATCH) {
      log.info(`${remaining} migrations to apply, each followed by a snapshot of the whole schema (the files add up to that many times its size); \`--defer-snapshots\` writes only the last one`);
    }
    return state;
  };

  const openWindow = (state: BatchState): Promise<SchemaWindow> => {
    const { modules, dialect, conn } = state;
    const reader = schemaReader(dialect, conn, modules, state.entry, state.log);
    return modules.SchemaWindow.open(reader, modules.targets, modules.targets.ddlSyntax(dialect));
  };

  /**
   * The batch's writer, made for its first snapshot, whose start schema tells how big the files
   * will be: a worker thread for much text (see {@link THREAD_MIN_TABLES}), else this thread.
   */
  const queueFor = (state: BatchState, first: Pending): SnapshotSink => {
    const { modules, entry, log } = state;
    const written: WrittenListener = (item, file) => log.debug(`snapshot written in ${formatMs(file.ms)}`, { file: file.path, bytes: file.bytes, introspection: item.entry.kind });
    const tables = Object.keys(first.entry.start?.tables ?? {}).length;
    const threaded =
      state.remaining * (tables + state.remaining / 2) >= (options.threadMinTables ?? THREAD_MIN_TABLES)
        ? modules.ThreadedSnapshotQueue.start({ root: options.root, databaseName: entry.name, databaseType: entry.type }, { warn: (message) => log.warn(message), written }, options.threadWorkerUrl)
        : undefined;
    return threaded ?? new modules.SnapshotQueue(new modules.SnapshotWriter(options.root, entry.name, entry.type), written);
  };

  /** Hand the queue every leading snapshot that is both read and committed. */
  const release = (state: BatchState): void => {
    while (state.pending[0]?.entry.step && state.committed.has(state.pending[0].entry.file)) {
      const next = state.pending.shift()!;
      state.queue ??= queueFor(state, next);
      state.queue.push(next);
    }
  };

  /**
   * After a failed read the window's state is unknown: the snapshots still waiting for a read (and
   * those after them, which build on theirs) are given up; the next migration reads in full.
   */
  const giveUp = (state: BatchState, error: unknown): never => {
    const window = state.window;
    if (window) {
      state.reads.count += window.reads.count;
      state.reads.ms += window.reads.ms;
    }
    state.window = undefined;
    const at = state.pending.findIndex((p) => !p.entry.step);
    const lost = at < 0 ? [] : state.pending.splice(at);
    if (lost.length > 0) state.log.warn(`schema snapshots not written (the schema read failed): ${lost.map((p) => p.entry.file.filename).join(', ')}`);
    throw error;
  };

  /**
   * What comes before a migration (or a run of them): the window opened (a full read) when there
   * is none, an early read when it is due, and the migration planned (a read first when it needs one).
   */
  const before = async (state: BatchState, file: MigrationFile, remaining: number): Promise<SchemaWindow> => {
    if (!state.window) state.window = await openWindow(state);
    const window = state.window;
    const oldest = window.oldest;
    const due = window.age >= Math.max(EARLY_READ_MIN_MS, EARLY_READ_FACTOR * window.reads.lastMs) || window.waiting >= remaining;
    if (oldest && due && (state.queue?.idle ?? true) && state.committed.has(oldest.file)) {
      await window.flush();
      release(state);
    }
    await window.before(file);
    release(state);
    return window;
  };

  return {
    tailSize: deferred.tailSize,
    beforeTail: deferred.beforeTail,
    tailCommitted: deferred.tailCommitted,

    async beforeVersionedMigration(event) {
      if (event.file.version === undefined) return;
      const state = await stateFor(event, event.remaining);
      if (!state) return;
      try {
        await before(state, event.file, event.remaining);
      } catch (error) {
        giveUp(state, error);
      }
    },

    async runLength(event) {
      const first = event.pending[0];
      if (first?.version === undefined) return 1;
      const state = await stateFor(event, event.remaining);
      if (!state) return event.pending.length;
      try {
        const window = await before(state, first, event.remaining);
        return window.runnable(event.pending, runCap(event.remaining));
      } catch (error) {
        return giveUp(state, error);
      }
    },

    async afterVersionedMigration(event) {
      if (event.file.version === undefined) return;
      const state = states.get(event.database);
      // No window: the hook before this migration failed and said so.
      if (state?.conn !== event.conn || !state.window) return;
      let entry: WindowEntry;
      try {
        entry = await state.window.after(event.file);
      } catch (error) {
        return giveUp(state, error);
      }
      state.pending.push({ entry, migrationId: migrationId(state.entry, event.file), appliedAt: appliedAt(event.record.appliedAt) });
      release(state);
    },

    async afterCommit(event) {
      const state = states.get(event.database);
      if (state?.conn !== event.conn) return;
      for (const c of event.committed) state.committed.add(c.file);
      release(state);
    },

    async afterBatch(event) {
      const state = states.get(event.database);
      states.delete(event.database);
      if (event.deferred) return deferred.write(event);
      if (state?.conn !== event.conn) return;
      let readError: unknown;
      try {
        await state.window?.flush();
      } catch (error) {
        readError = error;
      }
      if (state.window) {
        state.reads.count += state.window.reads.count;
        state.reads.ms += state.window.reads.ms;
      }
      for (const a of event.applied) state.committed.add(a.file);
      release(state);
      // What is left was not committed (rolled back with a failed migration's group) or not read.
      const unwritten = state.pending.filter((p) => state.committed.has(p.entry.file)).map((p) => p.entry.file.filename);
      const waitStart = performance.now();
      const summary = state.queue ? await state.queue.finish() : { written: 0, bytes: 0, elapsedMs: 0, failures: [] };
      const waitMs = performance.now() - waitStart;
      state.log.info(`${summary.written} snapshot${summary.written === 1 ? '' : 's'} written (${megabytes(summary.bytes)}) in ${formatMs(summary.elapsedMs)}; migrate waited ${formatMs(waitMs)} for them`, {
        count: summary.written,
        bytes: summary.bytes,
        write_ms: round(summary.elapsedMs),
        wait_ms: round(waitMs),
        reads: state.reads.count,
        read_ms: round(state.reads.ms),
        writer: state.queue instanceof state.modules.ThreadedSnapshotQueue ? 'thread' : 'main',
      });
      const failed = [
        ...summary.failures.map((f) => ({ filename: f.filename, reason: reasonOf(f.error) })),
        ...unwritten.map((filename) => ({ filename, reason: readError !== undefined ? `reading the schema failed: ${reasonOf(readError)}` : 'its schema was not read' })),
      ];
      if (readError !== undefined && failed.length === 0) failed.push({ filename: '(the last migrations)', reason: `reading the schema failed: ${reasonOf(readError)}` });
      if (failed.length > 0) throw snapshotsNotWritten(state.modules.snapshotDir(options.root), state.entry.name, failed, readError ?? summary.failures[0]?.error, summary.failures.length > 0);
    },
  };
}

/** The tracking row's time, when it reads as one; else now. */
function appliedAt(text: string): Date {
  const at = new Date(text);
  return Number.isNaN(at.getTime()) ? new Date() : at;
}

function megabytes(bytes: number): string {
  return bytes >= 1e6 ? `${(bytes / 1e6).toFixed(1)} MB` : `${(bytes / 1e3).toFixed(1)} kB`;
}
