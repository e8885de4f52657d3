import { interruptedError, isConnectionError, isMtoolError } from '../../errors.js';
import { isChdbUrl } from '../../dialects/clickhouse/chdb-url.js';
import type { DatabaseEntry } from '../config/types.js';
import { LOG_LEVELS, loggingSettings, type Logger } from '../log.js';

/** At most this many databases are worked on at once under `--all`. */
const DATABASE_CONCURRENCY = 4;

/** What happened on one database of a (possibly multi-database) run. */
export type DatabaseRun<T> =
  | { entry: DatabaseEntry; status: 'ok'; value: T }
  | { entry: DatabaseEntry; status: 'skipped'; reason: string }
  | { entry: DatabaseEntry; status: 'failed'; error: unknown };

export interface RunManyOptions {
  /** `--all`: failures are collected per database instead of thrown. */
  all: boolean;
  /** Global `--disable-skip`: unreachable `skipIfMissing` databases fail like any other. */
  disableSkip: boolean;
  log: Logger;
  concurrency?: number;
  /** Ctrl-C / SIGTERM: databases not started yet are not started. */
  signal?: AbortSignal;
}

/**
 * Run `fn` on each database with bounded parallelism (chdb databases one after another: see
 * {@link lanesOf}). One database failing neither stops nor touches the others (each has its own
 * connection, lock and transactions). An unreachable
 * database marked `skipIfMissing` is skipped under `--all` unless `--disable-skip`.
 *
 * Without `--all` (one database) a failure is returned unlogged and never skipped: the command
 * shows what it has (a run's migrations before the failure, the JSON document) and then fails
 * with that error ({@link failureToRaise}), which the CLI writes with its own exit code.
 */
export async function runOnDatabases<T>(entries: readonly DatabaseEntry[], options: RunManyOptions, fn: (entry: DatabaseEntry) => Promise<T>): Promise<DatabaseRun<T>[]> {
  if (!options.all) {
    const out: DatabaseRun<T>[] = [];
    for (const entry of entries) {
      try {
        out.push({ entry, status: 'ok', value: await fn(entry) });
      } catch (error) {
        out.push({ entry, status: 'failed', error });
        break;
      }
    }
    return out;
  }
  const results: DatabaseRun<T>[] = new Array(entries.length);
  const runOne = async (index: number): Promise<void> => {
    const entry = entries[index];
    if (options.signal?.aborted) {
      results[index] = { entry, status: 'failed', error: interruptedError(options.signal, entry.name, 'nothing was done on this database') };
      return;
    }
    try {
      results[index] = { entry, status: 'ok', value: await fn(entry) };
    } catch (error) {
      const log = options.log.child({ db_name: entry.name, db_type: entry.type });
      if (entry.skipIfMissing && !options.disableSkip && isConnectionError(error)) {
        log.warn(`skipped: optional database is unreachable (skipIfMissing; --disable-skip makes this an error): ${error.message}`);
        results[index] = { entry, status: 'skipped', reason: error.message };
      } else {
        // The stack at debug, as a one-database command's closing error record carries it (spec: `exception`).
        const debug = LOG_LEVELS[loggingSettings().level] <= LOG_LEVELS.debug;
        log.error(error instanceof Error ? error.message : String(error), {
          code: isMtoolError(error) ? error.code : undefined,
          exception: debug && error instanceof Error ? error : undefined,
        });
        results[index] = { entry, status: 'failed', error };
      }
    }
  };
  const lanes = lanesOf(entries);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < lanes.length) {
      for (const index of lanes[next++]) await runOne(index);
    }
  };
  const width = Math.max(1, Math.min(options.concurrency ?? DATABASE_CONCURRENCY, lanes.length));
  await Promise.all(Array.from({ length: width }, worker));
  return results;
}

/**
 * The databases' indexes grouped into lanes: the lanes run side by side, a lane's databases one
 * after another. Each database is a lane of its own, except those on an in-process chdb engine:
 * libchdb binds one data folder per process, so two of them on different folders cannot be open
 * at once. They share one lane, placed where the first of them stands; each one's run has closed
 * its connections (and so freed the folder) before the next one's opens.
 */
function lanesOf(entries: readonly DatabaseEntry[]): number[][] {
  const lanes: number[][] = [];
  let inProcess: number[] | undefined;
  entries.forEach((entry, index) => {
    if (!runsInProcess(entry)) {
      lanes.push([index]);
    } else if (inProcess) {
      inProcess.push(index);
    } else {
      inProcess = [index];
      lanes.push(inProcess);
    }
  });
  return lanes;
}

/** A ClickHouse database on the in-process chdb engine (`chdb://` URL) rather than a server. */
function runsInProcess(entry: DatabaseEntry): boolean {
  return entry.type === 'clickhouse' && isChdbUrl(entry.url);
}

/** The error a run on one database (no `--all`) failed with: the command fails with it. */
export function failureToRaise(runs: readonly DatabaseRun<unknown>[], all: boolean): unknown {
  if (all) return undefined;
  const failed = runs.find((r) => r.status === 'failed');
  return failed?.status === 'failed' ? failed.error : undefined;
}

/** Exit code of a multi-database run: 1 if any failed, else 3 if any was skipped, else 0. */
export function exitCodeOf(runs: readonly DatabaseRun<unknown>[]): number {
  if (runs.some((r) => r.status === 'failed')) return 1;
  if (runs.some((r) => r.status === 'skipped')) return 3;
  return 0;
}

/** `3 databases: 2 ok, 1 skipped (analytics), 0 failed`. */
export function summaryLine(runs: readonly DatabaseRun<unknown>[]): string {
  const names = (status: DatabaseRun<unknown>['status']) => runs.filter((r) => r.status === status).map((r) => r.entry.name);
  const skipped = names('skipped');
  const failed = names('failed');
  return (
    `${runs.length} database${runs.length === 1 ? '' : 's'}: ${names('ok').length} ok, ` +
    `${skipped.length} skipped${skipped.length ? ` (${skipped.join(', ')})` : ''}, ` +
    `${failed.length} failed${failed.length ? ` (${failed.join(', ')})` : ''}`
  );
}

/** Message of a failure for output (errors are already scrubbed by the dialects). */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
