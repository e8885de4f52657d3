import { MtoolConfigError } from '../errors.js';

/**
 * Reject unknown option keys when a model is defined (spec: MtoolConfigError for invalid Meta
 * attributes at import time), suggesting the closest known key.
 * @example checkOptions("table 'users'", { pg_schema: 'app' }, ['pgSchema']) // throws: table 'users': unknown option 'pg_schema' (did you mean 'pgSchema'?)
 */
export function checkOptions(owner: string, options: unknown, allowed: readonly string[]): void {
  if (options === undefined) return;
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new MtoolConfigError(`${owner}: options must be an object, got ${describe(options)}`);
  }
  for (const key of Object.keys(options)) {
    if (allowed.includes(key)) continue;
    const hint = suggest(key, allowed);
    throw new MtoolConfigError(
      `${owner}: unknown option '${key}'${hint ? ` (did you mean '${hint}'?)` : ''}; known options: ${allowed.join(', ')}`,
    );
  }
}

/** Closest known key: same letters ignoring case and `_`, or within a small edit distance. */
export function suggest(key: string, allowed: readonly string[]): string | undefined {
  const flat = (s: string) => s.replace(/[_-]/g, '').toLowerCase();
  const exact = allowed.find((a) => flat(a) === flat(key));
  if (exact) return exact;
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of allowed) {
    const d = distance(flat(key), flat(candidate));
    if (d < bestDistance) {
      bestDistance = d;
      best = candidate;
    }
  }
  return bestDistance <= Math.max(2, Math.floor(key.length / 3)) ? best : undefined;
}

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0] as number;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const current = row[j] as number;
      row[j] = Math.min((row[j] as number) + 1, (row[j - 1] as number) + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = current;
    }
  }
  return row[b.length] as number;
}

export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `'${value}'`;
  return typeof value === 'object' ? 'an object' : `${typeof value} ${String(value)}`;
}

/** Throw unless `value` is a positive integer (lengths, precisions). */
export function checkPositiveInt(owner: string, what: string, value: unknown, allowZero = false): void {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < (allowZero ? 0 : 1)) {
    throw new MtoolConfigError(`${owner}: ${what} must be a ${allowZero ? 'non-negative' : 'positive'} integer, got ${describe(value)}`);
  }
}

/** Throw unless `value` is a non-empty string. */
export function checkName(owner: string, what: string, value: unknown): asserts value is string {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new MtoolConfigError(`${owner}: ${what} must be a non-empty string, got ${describe(value)}`);
  }
}
