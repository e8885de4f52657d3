import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { SnapshotQueue } from './snapshot-queue.js';
import { errorData, type FromSnapshotWorker, type SnapshotWorkerInit, type ToSnapshotWorker, type WrittenFile } from './snapshot-thread-protocol.js';
import { SnapshotWriter } from './snapshot-writer.js';

/**
 * The snapshot writer's thread (started by snapshot-thread.ts): one {@link SnapshotQueue} of one
 * database's batch, writing with blocking calls, so the layout, hashing and file writes of a
 * large batch run beside the migrations instead of between them.
 */
function serve(port: NonNullable<typeof parentPort>, init: SnapshotWorkerInit): void {
  const post = (message: FromSnapshotWorker) => port.postMessage(message);
  const writer = new SnapshotWriter(init.root, init.databaseName, init.databaseType, {
    blockingWrites: true,
    log: { warn: (message) => post({ type: 'warn', message }) },
  });
  let received = 0;
  let written: WrittenFile[] = [];
  const flush = () => {
    if (written.length > 0) post({ type: 'written', files: written });
    written = [];
  };
  const queue = new SnapshotQueue(
    writer,
    (item, file) => {
      written.push({ filename: item.entry.file.filename, ...file });
      if (written.length >= WRITTEN_GROUP) flush();
    },
    () => {
      flush();
      post({ type: 'idle', received });
    },
  );
  port.on('message', (message: ToSnapshotWorker) => {
    if (message.type === 'push') {
      received++;
      queue.push(message.item);
      return;
    }
    void queue.finish().then((summary) => {
      flush();
      post({
        type: 'finished',
        written: summary.written,
        bytes: summary.bytes,
        elapsedMs: summary.elapsedMs,
        failures: summary.failures.map((f) => ({ filename: f.filename, error: errorData(f.error) })),
      });
    });
  });
}

/**
 * Snapshots can wait; the migrations cannot: on Linux this thread lowers its own scheduling
 * priority (nice is per thread there; `/proc/thread-self` names this thread's id), so on a busy
 * machine the database server and the migration thread get the cores first and the snapshots use
 * what is left. Elsewhere, or when refused, it runs at normal priority.
 */
function yieldToMigrations(): void {
  if (process.platform !== 'linux') return;
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isInteger(tid) && tid > 0 && tid !== process.pid) setPriority(tid, NICE);
  } catch {
    // No /proc, or not allowed: normal priority.
  }
}
const NICE = 10;
/** Written files per message (and whatever is written when the queue runs dry or finishes). */
const WRITTEN_GROUP = 32;

if (parentPort) {
  yieldToMigrations();
  serve(parentPort, workerData as SnapshotWorkerInit);
}
