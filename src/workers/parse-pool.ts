import { availableParallelism } from 'node:os';
import type { Piscina as PiscinaPool } from 'piscina';
import { MtoolError, type ErrorCode, ERROR_CODES } from '../errors.js';
import { PARSED_FIELDS, type MigrationFile } from '../parser/migration-file.js';
import { unpackFiles, type ParseTask, type ParseTaskError, type ParseTaskResult } from './parse-task.js';

/**
 * The worker pool for large migration folders. Imported only by `loadMigrations` once a folder
 * crosses the threshold, so small runs never load piscina or start a thread. The pool is created
 * for one call and destroyed after it: a command parses its folders once.
 */

/** Files per task: large enough that messaging costs little, small enough to spread over threads. */
const BATCH = 250;

/** Parse the given files of one folder in worker threads; same order and result as the main-thread path. */
export async function parseInPool(input: ParseTask): Promise<MigrationFile[]> {
  const { Piscina } = await import('piscina');
  const threads = Math.max(1, Math.min(availableParallelism(), 8));
  const pool: PiscinaPool = new Piscina({
    // Beside this module in both built layouts: tsc's dist/workers/, and dist/cli/ where the CLI
    // bundle (scripts/bundle-cli.mjs) writes the worker entry next to the chunk holding this code.
    filename: new URL('./parse-worker.js', import.meta.url).href,
    minThreads: threads,
    maxThreads: threads,
    idleTimeout: 1000,
  });
  try {
    const size = Math.max(1, Math.min(BATCH, Math.ceil(input.filenames.length / threads)));
    const tasks: Promise<ParseTaskResult>[] = [];
    for (let start = 0; start < input.filenames.length; start += size) {
      const task: ParseTask = {
        dir: input.dir,
        database: input.database,
        dialect: input.dialect,
        filenames: input.filenames.slice(start, start + size),
        ...(input.contents ? { contents: input.contents.slice(start, start + size) } : {}),
      };
      tasks.push(pool.run(task) as Promise<ParseTaskResult>);
    }
    const results = await Promise.all(tasks);
    const files: MigrationFile[] = [];
    for (const result of results) {
      if (!result.ok) throw errorOf(result.error);
      const batch = unpackFiles(result.packed);
      for (const { index, error } of result.failed) raiseOnRead(batch[index]!, errorOf(error));
      for (const file of batch) files.push(file);
    }
    return files;
  } finally {
    await pool.destroy();
  }
}

function errorOf(error: ParseTaskError): MtoolError {
  const code = (error.code in ERROR_CODES ? error.code : 'MTOOL_INTERNAL') as ErrorCode;
  return new MtoolError(code, error.message, { database: error.database });
}

/** A file that did not parse: reading its statements raises its error, as a lazy file's parse would. */
function raiseOnRead(file: MigrationFile, error: MtoolError): void {
  for (const key of PARSED_FIELDS) {
    Object.defineProperty(file, key, {
      get() {
        throw error;
      },
      enumerable: true,
      configurable: false,
    });
  }
}
