/**
 * Which part of a combined migration message ({@link import('./types.js').Connection.send},
 * {@link import('./types.js').Connection.sendAll}) an error came from, and which of the message's
 * steps, kept beside the error instead of on it, so every driver's error class stays as it is.
 */
import type { StepPart } from './types.js';

const failures = new WeakMap<object, { part: StepPart; step: number }>();

/** Mark a driver's error from {@link Connection.send} with the part that failed (of step `step` in a {@link Connection.sendAll} message). */
export function markFailedPart<T>(error: T, part: StepPart, step = 0): T {
  if (typeof error === 'object' && error !== null) failures.set(error, { part, step });
  return error;
}

/** The part of a {@link Connection.send} step an error came from; `statement` for any other error. */
export function failedPart(error: unknown): StepPart {
  return (typeof error === 'object' && error !== null && failures.get(error)?.part) || 'statement';
}

/** The index of the step an error of {@link Connection.sendAll} came from; 0 for any other error. */
export function failedStep(error: unknown): number {
  return (typeof error === 'object' && error !== null && failures.get(error)?.step) || 0;
}

/** Run one part of a step sent on its own, marking what it throws as that part's failure. */
export async function inPart<T>(part: StepPart, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw markFailedPart(error, part);
  }
}
