import type { CommandResult } from './commands/command.js';

/**
 * The one renderer of command results: `--json` prints `result.data` as a single JSON document,
 * otherwise (or when the command chose its format itself: `ownFormat`) the command's own text. Both end with exactly one newline.
 * No `data` (a command that failed before it had anything to show): nothing.
 */
export function renderResult(result: CommandResult, json: boolean): string {
  const body = json && !result.ownFormat ? (result.data === undefined ? '' : JSON.stringify(result.data, null, 2)) : result.text();
  if (body === '') return '';
  return body.endsWith('\n') ? body : `${body}\n`;
}

/** A display value for text output: lists joined, missing values as `-`. */
export function displayValue(value: unknown): string {
  if (value === undefined || value === null || value === '') return '-';
  if (Array.isArray(value)) return value.length === 0 ? '-' : value.map(displayValue).join(', ');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/**
 * A plain left-aligned table with a header row, columns two spaces apart.
 * @example formatTable([{ name: 'app', type: 'sqlite' }], ['name', 'type'])
 */
export function formatTable(rows: readonly Record<string, unknown>[], columns: readonly string[], headers?: readonly string[]): string {
  const head = headers ?? columns.map((c) => c.toUpperCase());
  const cells = rows.map((row) => columns.map((c) => displayValue(row[c])));
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((r) => r[i].length)));
  const line = (values: readonly string[]) => values.map((v, i) => (i === values.length - 1 ? v : v.padEnd(widths[i]))).join('  ');
  return [line(head), ...cells.map(line)].join('\n');
}

/** `key: value` lines with the keys aligned, for one record. */
export function formatRecord(record: Record<string, unknown>, labels?: Record<string, string>): string {
  const keys = Object.keys(record);
  const names = keys.map((k) => labels?.[k] ?? k);
  const width = Math.max(0, ...names.map((n) => n.length)) + 1;
  return keys.map((k, i) => `${`${names[i]}:`.padEnd(width)} ${displayValue(record[k])}`).join('\n');
}
