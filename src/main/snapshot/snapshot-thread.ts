import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { QueuedSnapshot, QueueSummary, SnapshotSink, WrittenListener } from './snapshot-queue.js';
import type { FromSnapshotWorker, SnapshotWorkerInit, ToSnapshotWorker } from './snapshot-thread-protocol.js';

/** Where the worker's entry is: beside this module, in tsc's output and in the CLI bundle alike. */
export const SNAPSHOT_WORKER_URL = new URL('./snapshot-worker.js', import.meta.url);

/**
 * A batch's snapshots written by a worker thread (snapshot-worker.ts): the same queue, writer
 * and durability policy as {@link SnapshotQueue} on this thread, but the layout, hashing and
 * file writes of each snapshot (a large batch writes hundreds of megabytes) no longer hold up the
 * migrations: they run on another core. Items cross as plain data (structured clone): each
 * migration's schema step, and the schema before the first one.
 *
 * A thread costs tens of milliseconds to start, so snapshot-hook.ts uses one only for batches
 * large enough to gain from it. If the thread dies, every snapshot it had not written is reported
 * as a failure of {@link finish}, like a failed write.
 * @example const q = ThreadedSnapshotQueue.start({ root, databaseName, databaseType }, { warn }); q.push(item); await q.finish();
 */
export class ThreadedSnapshotQueue implements SnapshotSink {
  readonly #worker: Worker;
  readonly #onWritten: WrittenListener | undefined;
  readonly #warn: (message: string) => void;
  /** Pushed and not yet reported written, by file name (unique in a batch). */
  readonly #unwritten = new Map<string, QueuedSnapshot>();
  #pushed = 0;
  /** Pushes the worker had handled when it last ran dry. */
  #drained = 0;
  #startedAt: number | undefined;
  #written = 0;
  #bytes = 0;
  #crash: unknown;
  #summary: QueueSummary | undefined;
  #done: ((summary: QueueSummary) => void) | undefined;
  #finishing: Promise<QueueSummary> | undefined;

  private constructor(worker: Worker, listeners: { warn: (message: string) => void; written?: WrittenListener }) {
    this.#worker = worker;
    this.#warn = listeners.warn;
    this.#onWritten = listeners.written;
    worker.on('message', (message: FromSnapshotWorker) => this.#receive(message));
    worker.on('error', (error) => this.#died(error));
    worker.on('exit', (code) => this.#died(new Error(`the snapshot writer thread exited with code ${code}`)));
  }

  /**
   * Start the thread, or `undefined` when its entry file is not there (running from the
   * TypeScript sources, where only tsc's output or the bundle has it): the caller then writes on
   * its own thread.
   */
  static start(init: SnapshotWorkerInit, listeners: { warn: (message: string) => void; written?: WrittenListener }, workerUrl: URL = SNAPSHOT_WORKER_URL): ThreadedSnapshotQueue | undefined {
    if (!existsSync(fileURLToPath(workerUrl))) return undefined;
    return new ThreadedSnapshotQueue(new Worker(workerUrl, { workerData: init }), listeners);
  }

  get idle(): boolean {
    return this.#drained === this.#pushed || this.#crash !== undefined;
  }

  push(item: QueuedSnapshot): void {
    this.#startedAt ??= performance.now();
    const filename = item.entry.file.filename;
    this.#unwritten.set(filename, item);
    if (this.#crash !== undefined) return;
    this.#pushed++;
    // Only what the writer reads crosses: not the parsed migration file.
    const plain: QueuedSnapshot = {
      entry: { file: { filename }, kind: item.entry.kind, ...(item.entry.start ? { start: item.entry.start } : {}), ...(item.entry.step ? { step: item.entry.step } : {}) },
      migrationId: item.migrationId,
      appliedAt: item.appliedAt,
    };
    this.#post({ type: 'push', item: plain });
  }

  finish(): Promise<QueueSummary> {
    this.#finishing ??= new Promise<QueueSummary>((resolve) => {
      this.#done = resolve;
      if (this.#crash !== undefined) this.#settle();
      else this.#post({ type: 'finish' });
    }).finally(() => void this.#worker.terminate());
    return this.#finishing;
  }

  #post(message: ToSnapshotWorker): void {
    try {
      this.#worker.postMessage(message);
    } catch (error) {
      // A schema that cannot be cloned (it never should: the IR is plain data).
      this.#died(error);
    }
  }

  #receive(message: FromSnapshotWorker): void {
    switch (message.type) {
      case 'written':
        for (const file of message.files) {
          const item = this.#unwritten.get(file.filename);
          this.#unwritten.delete(file.filename);
          this.#written++;
          this.#bytes += file.bytes;
          if (item) this.#onWritten?.(item, { path: file.path, bytes: file.bytes, ms: file.ms });
        }
        return;
      case 'idle':
        this.#drained = message.received;
        return;
      case 'warn':
        this.#warn(message.message);
        return;
      case 'finished':
        this.#summary = {
          written: message.written,
          bytes: message.bytes,
          elapsedMs: this.#startedAt === undefined ? 0 : performance.now() - this.#startedAt,
          failures: message.failures.map((f) => ({ filename: f.filename, error: Object.assign(new Error(f.error.message), f.error.code ? { code: f.error.code } : {}) })),
        };
        this.#settle();
        return;
    }
  }

  /** The thread is gone before it reported its summary: what it did not write failed. */
  #died(error: unknown): void {
    if (this.#summary || this.#crash !== undefined) return;
    this.#crash = error;
    if (this.#done) this.#settle();
  }

  #settle(): void {
    if (!this.#done) return;
    const summary = this.#summary ?? {
      written: this.#written,
      bytes: this.#bytes,
      elapsedMs: this.#startedAt === undefined ? 0 : performance.now() - this.#startedAt,
      failures:
        this.#unwritten.size > 0
          ? [...this.#unwritten.keys()].map((filename) => ({ filename, error: this.#crash }))
          : // Every file was written; the folder's final sync may not have happened.
            [{ filename: '(snapshot writer thread)', error: this.#crash }],
    };
    this.#done(summary);
    this.#done = undefined;
  }
}
