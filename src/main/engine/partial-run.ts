import type { RunResult } from './types.js';

/**
 * What a `migrate`, `rollback` or `downgrade` completed before it failed, kept beside the error
 * it failed with (the error itself stays the one the database or the engine raised), so the
 * output can say what this run changed as well as why it stopped.
 */
const completed = new WeakMap<object, RunResult>();

/**
 * Keep `result` (the migrations done before the failure, none when the first one failed, and the
 * version the database is left at) for `error`.
 */
export function noteCompleted(error: unknown, result: RunResult): void {
  if (typeof error === 'object' && error !== null) completed.set(error, result);
}

/**
 * What a failed run completed before `error` (possibly nothing), when it got as far as running.
 * @example completedBefore(run.error)?.outcomes.map((o) => o.filename)
 */
export function completedBefore(error: unknown): RunResult | undefined {
  return typeof error === 'object' && error !== null ? completed.get(error) : undefined;
}
