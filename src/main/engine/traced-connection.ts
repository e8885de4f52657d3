import { performance } from 'node:perf_hooks';
import type { Connection } from '../../dialects/types.js';
import type { Logger } from '../log.js';
import { formatMs } from './format-ms.js';

/**
 * Wrap a connection so that, at log level trace, every statement it runs (migration SQL,
 * tracking rows, the lock, BEGIN/COMMIT) is logged as `SQL (<duration>): <statement>`
 * (spec: Log records). Returns the connection itself when trace is off, so normal runs pay nothing.
 * Every connection a migrate, rollback or downgrade opens goes through here, second ones too
 * (the schema read ahead of the last migrations, the lock released from another session).
 */
export function tracedConnection(conn: Connection, log: Logger): Connection {
  if (!log.isEnabled('trace')) return conn;
  const run = async <T>(sql: string, op: () => Promise<T>): Promise<T> => {
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
    query: (sql) => run(sql, () => conn.query(sql)),
    begin: () => run('BEGIN', () => conn.begin()),
    commit: () => run('COMMIT', () => conn.commit()),
    rollback: () => run('ROLLBACK', () => conn.rollback()),
    ...(conn.beginSnapshot ? { beginSnapshot: () => run('BEGIN (read-only snapshot)', () => conn.beginSnapshot!()) } : {}),
    ...(conn.exec ? { exec: (sql: string) => run(sql, () => conn.exec!(sql)) } : {}),
    ...(conn.sessionReset !== undefined ? { sessionReset: conn.sessionReset } : {}),
    ...(conn.queryMany ? { queryMany: (statements: readonly string[]) => run(statements.join(';\n'), () => conn.queryMany!(statements)) } : {}),
    ...(conn.queryArrays ? { queryArrays: (sql: string) => run(sql, () => conn.queryArrays!(sql)) } : {}),
    ...(conn.serverSession !== undefined ? { serverSession: conn.serverSession } : {}),
    serverVersion: () => conn.serverVersion(),
    ...(conn.cancel ? { cancel: () => conn.cancel!() } : {}),
    ...(conn.terminate ? { terminate: () => conn.terminate!() } : {}),
    ...(conn.renewSession ? { renewSession: () => conn.renewSession!() } : {}),
    ...(conn.statementLimitBytes ? { statementLimitBytes: () => conn.statementLimitBytes!() } : {}),
    close: () => conn.close(),
  };
}
