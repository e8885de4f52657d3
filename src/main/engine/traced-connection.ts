import { performance } from 'node:perf_hooks';
import type { Connection, QueryResult } from '../../dialects/types.js';
import type { Logger } from '../log.js';
import { formatMs } from './executor.js';

/**
 * Wrap a connection so that, at log level trace, every statement it runs (migration SQL,
 * tracking rows, the lock, BEGIN/COMMIT) is logged as `SQL (<duration>): <statement>`
 * (spec: Log records). Returns the connection itself when trace is off, so normal runs pay nothing.
 */
export function tracedConnection(conn: Connection, log: Logger): Connection {
  if (!log.isEnabled('trace')) return conn;
  const run = async (sql: string, op: () => Promise<QueryResult | void>): Promise<QueryResult | void> => {
    const started = performance.now();
    try {
      const result = await op();
      log.trace(`SQL (${formatMs(performance.now() - started)}): ${sql}`);
      return result;
    } catch (error) {
      log.trace(`SQL (${formatMs(performance.now() - started)}, failed): ${sql}`);
      throw error;
    }
  };
  return {
    type: conn.type,
    databaseName: conn.databaseName,
    query: (sql) => run(sql, () => conn.query(sql)) as Promise<QueryResult>,
    begin: () => run('BEGIN', () => conn.begin()) as Promise<void>,
    commit: () => run('COMMIT', () => conn.commit()) as Promise<void>,
    rollback: () => run('ROLLBACK', () => conn.rollback()) as Promise<void>,
    serverVersion: () => conn.serverVersion(),
    ...(conn.cancel ? { cancel: () => conn.cancel!() } : {}),
    close: () => conn.close(),
  };
}
