import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Connection } from '../../src/dialects/types.js';
import { connectTo, serverStatus, useTestDatabase } from '../support/databases.js';

/**
 * A ClickHouse server runs a statement to its end whether or not its client still waits for the
 * answer: closing the HTTP request does not stop an `INSERT ... SELECT`. So a ClickHouse
 * connection stops a statement with `KILL QUERY` from a session of its own: `cancel()` when a run
 * is interrupted, `terminate()` (confirming it no longer runs) before the lock may go, and by
 * itself when a statement's answer was lost (the request timed out). Against the 18.16 server
 * over HTTP and a current ClickHouse in process (chdb, where the statement would otherwise go
 * on computing on its thread until the process exits).
 */
const ch = await serverStatus('clickhouse');

/**
 * An INSERT that writes its one row only at its end, several seconds in on either engine (the
 * filter keeps the engine from skipping the numbers), with a marker to find it in system.processes.
 */
function longInsert(count: number): { sql: string; marker: string } {
  const marker = `m${randomBytes(6).toString('hex')}`;
  return { sql: `INSERT INTO t SELECT number, '${marker}' FROM numbers(${count}) WHERE number % ${count} = ${count - 1}`, marker };
}

async function running(conn: Connection, marker: string): Promise<number> {
  const { rows } = await conn.query(`SELECT count() AS n FROM system.processes WHERE position(query, '${marker}') > 0 AND position(query, 'system.processes') = 0`);
  return Number(rows[0]?.n);
}

async function until(what: string, check: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

interface Engine {
  label: string;
  skip: boolean;
  url(): string;
  /** Numbers the engine reads in well over ten seconds. */
  count: number;
}

// Its hooks only where the server is up: they would fail this file's in-process runs too.
const db = ch.reachable ? useTestDatabase('clickhouse') : undefined;
const httpUrl = (): string => db!.url;
const ENGINES: Engine[] = [
  { label: 'clickhouse 18.16 over HTTP', skip: !ch.reachable, url: httpUrl, count: 12_000_000_000 },
  { label: 'clickhouse in process (chdb)', skip: false, url: () => 'chdb://:memory:', count: 30_000_000_000 },
];

for (const engine of ENGINES) {
  describe.skipIf(engine.skip)(`stopping a statement on ${engine.label}`, () => {
    async function withTable(body: (conn: Connection, watcher: Connection) => Promise<void>): Promise<void> {
      const conn = await connectTo('clickhouse', engine.url(), { databaseName: 'app' });
      const watcher = await connectTo('clickhouse', engine.url(), { databaseName: 'app' });
      try {
        await conn.query('DROP TABLE IF EXISTS t');
        await conn.query('CREATE TABLE t (n UInt64, s String) ENGINE = MergeTree ORDER BY n');
        await body(conn, watcher);
      } finally {
        await conn.close();
        await watcher.close();
      }
    }

    it('cancel() asks the engine to stop the running statement: it fails at once with QUERY_WAS_CANCELLED and writes nothing', async () => {
      await withTable(async (conn, watcher) => {
        const { sql, marker } = longInsert(engine.count);
        const started = Date.now();
        const statement = conn.query(sql).then(
          () => undefined,
          (e: unknown) => e,
        );
        await until('the statement to run', async () => (await running(watcher, marker)) > 0);
        await conn.cancel!();
        const error = await statement;
        expect(error).toMatchObject({ code: 'MTOOL_DATABASE', serverCode: 394 });
        expect(Date.now() - started).toBeLessThan(8_000);
        expect((await conn.query('SELECT count() AS n FROM t')).rows[0]!.n).toBe('0');
      });
    });

    it('terminate() stops the running statement and returns once the engine no longer runs it', async () => {
      await withTable(async (conn, watcher) => {
        const { sql, marker } = longInsert(engine.count);
        const statement = conn.query(sql).then(
          () => undefined,
          (e: unknown) => e,
        );
        await until('the statement to run', async () => (await running(watcher, marker)) > 0);
        await conn.terminate!();
        // Settled by then: its answer (cancelled) has come.
        const outcome = await Promise.race([statement, new Promise((r) => setTimeout(r, 0, 'pending'))]);
        expect(outcome).toMatchObject({ serverCode: 394 });
        expect((await conn.query('SELECT count() AS n FROM t')).rows[0]!.n).toBe('0');
      });
    });

    it('cancel() and terminate() do nothing when no statement runs', async () => {
      await withTable(async (conn) => {
        await conn.query('SELECT 1');
        await conn.cancel!();
        await conn.terminate!();
        expect((await conn.query('SELECT count() AS n FROM t')).rows[0]!.n).toBe('0');
      });
    });
  });
}

describe.skipIf(!ch.reachable)('a statement whose answer is lost on clickhouse 18.16', () => {
  it('is stopped on the server (the request timed out at receive_timeout): it does not run on and write after the error', async () => {
    const url = new URL(httpUrl());
    url.searchParams.set('receive_timeout', '2');
    const conn = await connectTo('clickhouse', url.toString(), { databaseName: 'app' });
    const watcher = await connectTo('clickhouse', httpUrl(), { databaseName: 'app' });
    try {
      await conn.query('DROP TABLE IF EXISTS t');
      await conn.query('CREATE TABLE t (n UInt64, s String) ENGINE = MergeTree ORDER BY n');
      const { sql, marker } = longInsert(ENGINES[0]!.count);
      const error = await conn.query(sql).catch((e: unknown) => e);
      expect(await running(watcher, marker)).toBe(0);
      expect(error).toMatchObject({ code: 'MTOOL_CONNECTION' });
      expect((error as Error).message).toMatch(/the statement was stopped on the server \(KILL QUERY\)/);
      // The connection goes on.
      expect((await conn.query('SELECT count() AS n FROM t')).rows[0]!.n).toBe('0');
    } finally {
      await conn.close();
      await watcher.close();
    }
  });
});

