import type { DatabaseType } from '../../dialects/types.js';
import type { QueuedSnapshot } from './snapshot-queue.js';

/** The worker's `workerData`: whose snapshots it writes, and where. */
export interface SnapshotWorkerInit {
  root: string;
  databaseName: string;
  databaseType: DatabaseType;
}

/** Messages to the worker. */
export type ToSnapshotWorker = { type: 'push'; item: QueuedSnapshot } | { type: 'finish' };

/** An error as it crosses the thread boundary. */
export interface ErrorData {
  message: string;
  code?: string;
}

/** One file the worker wrote. */
export interface WrittenFile {
  filename: string;
  path: string;
  bytes: number;
  ms: number;
}

/** Messages from the worker. */
export type FromSnapshotWorker =
  /** Files written since the last such message (sent in groups: a message per file costs more than the file's bookkeeping). */
  | { type: 'written'; files: WrittenFile[] }
  /** Its queue ran dry after `received` pushes. */
  | { type: 'idle'; received: number }
  | { type: 'warn'; message: string }
  | { type: 'finished'; written: number; bytes: number; elapsedMs: number; failures: { filename: string; error: ErrorData }[] };

export function errorData(error: unknown): ErrorData {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return typeof code === 'string' ? { message: error.message, code } : { message: error.message };
  }
  return { message: String(error) };
}
