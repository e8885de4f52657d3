import type { QueryResult, Row } from '../types.js';

/**
 * How a ClickHouse connection reaches an engine: the HTTP interface of a server
 * (`http-transport.ts`) or an in-process chdb engine (`chdb-transport.ts`). A transport throws
 * the engine's own errors; the connection wraps them.
 */
export interface ClickHouseTransport {
  /** Run one statement and return its rows (none for statements without output). */
  exec(sql: string): Promise<QueryResult>;
  /** Go on in a new session: what `SET` and temporary tables left in the old one is gone. */
  renewSession?(): Promise<void>;
  /**
   * Ask the engine, from a session of its own, to stop the statement {@link exec} runs now
   * (`KILL QUERY`); it then fails with QUERY_WAS_CANCELLED. Does nothing when none runs.
   */
  cancel?(): Promise<void>;
  /**
   * Stop the last statement sent, running or not (its answer may have been lost), and wait until
   * the engine no longer runs it ({@link stopStatement}).
   * @throws when that cannot be confirmed: the statement may still complete.
   */
  terminate?(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Rows of a `FORMAT JSON` response. 64-bit integers arrive quoted (the server's default
 * `output_format_json_quote_64bit_integers=1`), so they stay exact strings. An empty body
 * (DDL, INSERT) has no rows; a body in another format (the statement named its own `FORMAT`)
 * is not mtool's to interpret and yields no rows either.
 */
export function rowsFromJson(body: string): Row[] {
  const text = body.trim();
  if (!text.startsWith('{')) return [];
  const parsed = JSON.parse(text) as { data?: unknown };
  return Array.isArray(parsed.data) ? (parsed.data as Row[]) : [];
}
