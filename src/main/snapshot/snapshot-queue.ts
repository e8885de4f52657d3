import { dirname } from 'node:path';
import { performance } from 'node:perf_hooks';
import { syncPath } from '../fs/atomic-write.js';
import type { WindowEntry } from './schema-window.js';
import type { SnapshotWriter, StagedSnapshot } from './snapshot-writer.js';

/** One committed migration whose snapshot is to be written. */
export interface QueuedSnapshot {
  /** Its window entry, once read: the step from the previous snapshot (and the start schema, if first). */
  entry: SnapshotSource;
  migrationId: string;
  appliedAt: Date;
}

/** What the queue uses of a {@link WindowEntry}: plain data, so it can cross to a worker thread. */
export type SnapshotSource = Pick<WindowEntry, 'kind' | 'start' | 'step'> & { file: { filename: string } };

/** A writer of a batch's snapshots: {@link SnapshotQueue} on this thread, or one in a worker thread (snapshot-thread.ts). */
export interface SnapshotSink {
  /** Nothing is being written. */
  readonly idle: boolean;
  /** Queue a snapshot (committed, its step read); returns at once. */
  push(item: QueuedSnapshot): void;
  /** Wait for every queued write, then make the last file and the folder durable. */
  finish(): Promise<QueueSummary>;
}

/** What a batch of writes did, for the caller's log. */
export interface QueueSummary {
  written: number;
  bytes: number;
  /** From the first write's start to the end of {@link SnapshotQueue.finish}. */
  elapsedMs: number;
  /** Per failed snapshot: its migration file and the error. */
  failures: { filename: string; error: unknown }[];
}

/** Each written file, as it is written (the per-file DEBUG line). */
export type WrittenListener = (item: QueuedSnapshot, written: { path: string; bytes: number; ms: number }) => void;

/**
 * Writes the snapshots of one database's batch in the background, in the order they are pushed
 * (the `previous_checksum` chain), while the following migrations run: `push` returns at once;
 * the writer applies each entry's step to the schema of the snapshot before it
 * (SnapshotWriter.stageStep) just before its file is written, so waiting snapshots cost no memory beyond
 * their steps.
 *
 * Durability policy of a batch: every file is atomic (temp file, verify, rename), but only the
 * last file written is fsynced, with one fsync of the folder after it, in {@link finish}. A
 * crash of the process at any moment leaves whole files (and temp files, which readers ignore).
 * A power loss may leave an intermediate snapshot empty or truncated: readers reject a file whose
 * JSON or checksum fails (`readSnapshot`), `findLatestSnapshot` falls back to the previous intact
 * one, and the next writer chains past it. Once `finish` returns, the last snapshot (what
 * `make-migrations` reads) is on disk. Thousands of fsyncs per batch would cost more than the
 * migrations they describe.
 * @example const q = new SnapshotQueue(writer); q.push({ entry, migrationId, appliedAt }); const summary = await q.finish();
 */
export class SnapshotQueue implements SnapshotSink {
  readonly #writer: SnapshotWriter;
  readonly #onWritten: WrittenListener | undefined;
  readonly #onIdle: (() => void) | undefined;
  #items: QueuedSnapshot[] = [];
  #running: Promise<void> | undefined;
  #lastPath: string | undefined;
  #startedAt: number | undefined;
  #written = 0;
  #bytes = 0;
  #failures: { filename: string; error: unknown }[] = [];

  /** `onIdle`: called each time the queue runs dry (every pushed snapshot written or failed). */
  constructor(writer: SnapshotWriter, onWritten?: WrittenListener, onIdle?: () => void) {
    this.#writer = writer;
    this.#onWritten = onWritten;
    this.#onIdle = onIdle;
  }

  /** Nothing is being written. */
  get idle(): boolean {
    return this.#running === undefined;
  }

  /** Queue a snapshot; the first entry, and any after a window restarted, carries its `start` schema. */
  push(item: QueuedSnapshot): void {
    this.#items.push(item);
    this.#startedAt ??= performance.now();
    this.#kick();
  }

  /** Start draining unless a drain runs (one that is ending starts again if items came in meanwhile). */
  #kick(): void {
    if (this.#running || this.#items.length === 0) return;
    this.#running = this.#drain()
      // Every write's failure is caught where it happens; this is only a last guard against an
      // unhandled rejection ending the process.
      .catch((error: unknown) => void this.#failures.push({ filename: '(snapshot queue)', error }))
      .finally(() => {
        this.#running = undefined;
        this.#kick();
        if (!this.#running) this.#onIdle?.();
      });
  }

  /** Wait for every queued write, then make the last file and the folder durable. */
  async finish(): Promise<QueueSummary> {
    while (this.#running) await this.#running;
    if (this.#lastPath) {
      try {
        await syncPath(this.#lastPath, 'file');
        await syncPath(dirname(this.#lastPath), 'folder');
      } catch (error) {
        this.#failures.push({ filename: this.#lastPath, error });
      }
    }
    return {
      written: this.#written,
      bytes: this.#bytes,
      elapsedMs: this.#startedAt === undefined ? 0 : performance.now() - this.#startedAt,
      failures: this.#failures,
    };
  }

  /**
   * Stage each snapshot (layout and hash, on this thread) while the file before it is written (in
   * the thread pool): one file under way at a time besides the one being staged.
   */
  async #drain(): Promise<void> {
    let writing: InFlight | undefined;
    for (let item = this.#items.shift(); item; item = this.#items.shift()) {
      const started = performance.now();
      let staging: InFlight | undefined;
      try {
        const step = item.entry.step;
        if (!step) throw new Error(`internal: snapshot of ${item.entry.file.filename} queued without its step`);
        const staged = await this.#writer.stageStep(
          { migrationId: item.migrationId, appliedAt: item.appliedAt, step, ...(item.entry.start ? { start: item.entry.start } : {}) },
          { sync: false },
        );
        staging = { item, started, staged };
      } catch (error) {
        this.#failures.push({ filename: item.entry.file.filename, error });
      }
      if (writing) await this.#settle(writing, staging);
      writing = staging;
    }
    if (writing) await this.#settle(writing, undefined);
  }

  /** Wait for `done`'s file; when it failed and `next` chained to it, stage `next` again. */
  async #settle(done: InFlight, next: InFlight | undefined): Promise<void> {
    const error = await done.staged.written;
    if (error === undefined) {
      this.#written++;
      this.#bytes += done.staged.bytes;
      this.#lastPath = done.staged.path;
      this.#onWritten?.(done.item, { path: done.staged.path, bytes: done.staged.bytes, ms: performance.now() - done.started });
      return;
    }
    this.#failures.push({ filename: done.item.entry.file.filename, error });
    if (next && next.staged.previous === done.staged.checksum) {
      await next.staged.written;
      try {
        // The writer's last staged schema is `next`'s: at most one file is under way besides it.
        next.staged = await this.#writer.restage({ migrationId: next.item.migrationId, appliedAt: next.item.appliedAt }, { sync: false });
      } catch (restageError) {
        // Its first write (chained to the lost file) stays; say why the chain is broken.
        this.#failures.push({ filename: next.item.entry.file.filename, error: restageError });
      }
    }
  }
}

/** A staged snapshot whose file is being written. */
interface InFlight {
  item: QueuedSnapshot;
  started: number;
  staged: StagedSnapshot;
}
