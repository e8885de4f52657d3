import type { SplitDialect } from '../dialects/types.js';

/** One batch of migration files for a worker: read (unless contents are given) and parse. */
export interface ParseTask {
  dir: string;
  database: string;
  dialect: SplitDialect;
  filenames: string[];
  /** File bytes already read on the main thread, same order as `filenames`. */
  contents?: Uint8Array[];
}

/** An MtoolError crossing the thread boundary (structured clone drops custom fields). */
export interface ParseTaskError {
  code: string;
  message: string;
  database: string | undefined;
}

export type ParseTaskResult =
  | { ok: true; files: import('../parser/migration-file.js').MigrationFile[] }
  | { ok: false; error: ParseTaskError };
