/**
 * Which part of a combined migration message ({@link import('./types.js').Connection.send}) an error
 * came from, kept beside the error instead of on it, so every driver's error class stays as it is.
 */
import type { StepPart } from './types.js';

const failedParts = new WeakMap<object, StepPart>();

/** Mark a driver's error from {@link Connection.send} with the part that failed. */
export function markFailedPart<T>(error: T, part: StepPart): T {
  if (typeof error === 'object' && error !== null) failedParts.set(error, part);
  return error;
}

/** The part of a {@link Connection.send} step an error came from; `statement` for any other error. */
export function failedPart(error: unknown): StepPart {
  return (typeof error === 'object' && error !== null && failedParts.get(error)) || 'statement';
}

/** Run one part of a step sent on its own, marking what it throws as that part's failure. */
export async function inPart<T>(part: StepPart, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw markFailedPart(error, part);
  }
}
