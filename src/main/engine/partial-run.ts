import type { RunResult } from './types.js';

/**
 * What a `migrate`, `rollback` or `downgrade` completed before it failed, kept beside the error
 * it failed with (the error itself stays the one the database or the engine raised), so the
 * output can say what this run changed as well as why it stopped.
 */
const completed = new WeakMap<object, RunResult>();

/** Keep `result` (the migrations done before the failure) for `error`. */
export function noteCompleted(error: unknown, result: RunResult): void {
  if (typeof error === 'object' && error !== null && result.outcomes.length > 0) completed.set(error, result);
}

/**
 * The migrations a failed run completed before `error`, when there were any.
 * @example completedBefore(run.error)?.outcomes.map((o) => o.filename)
 */
export function completedBefore(error: unknown): RunResult | undefined {
  return typeof error === 'object' && error !== null ? completed.get(error) : undefined;
}
