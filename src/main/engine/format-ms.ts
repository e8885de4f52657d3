/**
 * A duration for people: `0.42 ms`, `12.3 ms`, `1.52 s`. Whole milliseconds below a second are
 * what a server measured (a tracking row's `execution_ms`): shown whole, and 0 as `<1 ms`, not
 * with a precision the server did not have (a clock on this side never lands on a whole number).
 */
export function formatMs(ms: number): string {
  if (ms >= 1000) return `${(ms / 1000).toFixed(2)} s`;
  if (Number.isInteger(ms)) return ms === 0 ? '<1 ms' : `${ms} ms`;
  if (ms < 1) return `${ms.toFixed(2)} ms`;
  return `${ms.toFixed(1)} ms`;
}
