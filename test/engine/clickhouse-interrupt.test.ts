import { randomBytes } from 'node:crypto';
import { createServer, request, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import type { Connection } from '../../src/dialects/types.js';
import { connectTo } from '../support/databases.js';
import { TestProject, explain, migration } from './support/project.js';
import { start, waitFor } from './support/running.js';
import { TARGETS, provision, targetReachable, type ProvisionedDatabase } from './support/targets.js';

/**
 * Ctrl-C during a long ClickHouse migration statement. A ClickHouse server runs a statement to
 * its end whether or not its client is still there, so the run stops it (`KILL QUERY` by its
 * query_id, from a second session) and releases the lock only once it no longer runs: a run
 * interrupted, its migration not recorded and the lock INACTIVE, must not be followed by the
 * statement completing on the server (a re-run would apply it twice). When the statement cannot
 * be stopped, the lock stays ACTIVE and the warning says it may still complete.
 */
const clickhouse = TARGETS.find((t) => t.type === 'clickhouse')!;
const reachable = await targetReachable(clickhouse);

/** A statement that writes its one row at its end, after well over ten seconds, with a marker to find it by. */
function longInsert(count: number): { sql: string; marker: string } {
  const marker = `m${randomBytes(6).toString('hex')}`;
  return { sql: `INSERT INTO t SELECT number, '${marker}' FROM numbers(${count}) WHERE number % ${count} = ${count - 1}`, marker };
}
const CREATE_T = 'CREATE TABLE t (n UInt64, s String) ENGINE = MergeTree ORDER BY n';

async function running(conn: Connection, marker: string): Promise<number> {
  const { rows } = await conn.query(`SELECT count() AS n FROM system.processes WHERE position(query, '${marker}') > 0 AND position(query, 'system.processes') = 0`);
  return Number(rows[0]?.n);
}

/**
 * An HTTP proxy in front of the ClickHouse server that refuses every `KILL QUERY` (as for a user
 * not allowed to kill): the statement cannot be stopped.
 */
async function refusingKill(target: string): Promise<{ port: number; close(): Promise<void> }> {
  const upstream = new URL(target);
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (/^\s*KILL\s+QUERY/i.test(body.toString('utf8')) || /query=KILL/i.test(req.url ?? '')) {
        res.writeHead(500, { 'Content-Type': 'text/plain', 'X-ClickHouse-Exception-Code': '497' });
        res.end('Code: 497, e.displayText() = DB::Exception: test proxy: KILL QUERY refused, e.what() = DB::Exception\n');
        return;
      }
      const forward = request(
        { host: upstream.hostname, port: Number(upstream.port || 8123), method: req.method, path: req.url, headers: { ...req.headers, host: upstream.host } },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      forward.on('error', () => res.destroy());
      res.on('close', () => forward.destroy());
      forward.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return {
    port: address.port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

let db: ProvisionedDatabase | undefined;
let project: TestProject | undefined;
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
  await project?.dispose();
  await db?.drop();
  project = undefined;
  db = undefined;
});

async function interrupt(p: TestProject, ready: () => Promise<boolean>): Promise<{ code: number | null; stderr: string; ms: number }> {
  const run = start(p, ['migrate', '--verbose']);
  await waitFor('the long migration to start', () => run.stderr().includes('applying app__0002_long.sql'));
  await waitFor('the long statement to run', ready);
  const sent = Date.now();
  run.child.kill('SIGINT');
  const exit = await run.exit;
  return { code: exit.code, stderr: run.stderr(), ms: Date.now() - sent };
}

describe.skipIf(!reachable)('Ctrl-C during a long statement on clickhouse 18.16', () => {
  it('stops the statement on the server before the lock goes: nothing of it lands after the run ends', async () => {
    db = await provision(clickhouse);
    const watcher = await connectTo('clickhouse', db.url);
    cleanups.push(() => watcher.close());
    project = await TestProject.create([{ name: 'app', type: 'clickhouse', url: db.url }]);
    const { sql, marker } = longInsert(12_000_000_000);
    await project.write('app__0001_t.sql', migration([CREATE_T]));
    await project.write('app__0002_long.sql', migration([sql]));

    const result = await interrupt(project, async () => (await running(watcher, marker)) > 0);
    expect(result.code, result.stderr).toBe(130);
    expect(result.stderr).toMatch(/app__0002_long\.sql:2: clickhouse \(app\): Query was cancelled/);
    expect(result.stderr).not.toMatch(/discarded by the database when this process exits/);
    expect(result.ms).toBeLessThan(10_000);
    // The server runs it no more: its row can never land behind the run's back.
    expect(await running(watcher, marker)).toBe(0);
    expect(Number((await watcher.query('SELECT count() AS n FROM t')).rows[0]!.n)).toBe(0);

    const { data } = await project.json(['status']);
    expect(data.databases.app.lock_active).toBe(false);
    expect(data.databases.app.migrations.map((m: { state: string }) => m.state)).toEqual(['applied', 'pending']);
  }, 60_000);

  it('keeps the lock ACTIVE and says the statement may still complete when the server refuses to stop it', async () => {
    db = await provision(clickhouse);
    const watcher = await connectTo('clickhouse', db.url);
    cleanups.push(() => watcher.close());
    const proxy = await refusingKill(db.url);
    cleanups.push(() => proxy.close());
    const viaProxy = new URL(db.url);
    viaProxy.host = `127.0.0.1:${proxy.port}`;
    project = await TestProject.create([{ name: 'app', type: 'clickhouse', url: viaProxy.toString() }]);
    const { sql, marker } = longInsert(12_000_000_000);
    // Stopped by the test once it has seen what it needs.
    cleanups.push(() => watcher.query(`KILL QUERY WHERE position(query, '${marker}') > 0 SYNC`).then(() => undefined));
    await project.write('app__0001_t.sql', migration([CREATE_T]));
    await project.write('app__0002_long.sql', migration([sql]));

    const result = await interrupt(project, async () => (await running(watcher, marker)) > 0);
    expect(result.code, result.stderr).toBe(130);
    expect(result.stderr).toMatch(/could not be stopped on the server: it may still complete; the lock stays ACTIVE/);
    expect(result.stderr).not.toMatch(/lock released from a second connection/);
    expect(await running(watcher, marker)).toBe(1);

    const lock = await project.run(['lock-status']);
    expect(lock.stdout, explain(lock)).toMatch(/Migration lock: ACTIVE/);
  }, 60_000);
});

describe.skipIf(!reachable)('Ctrl-C while the server takes a while to stop a statement (clickhouse 18.16)', () => {
  it('tells the lock state as it is: no "stays ACTIVE" for a lock the run released, no raw driver error', async () => {
    // Cancelled only between blocks of 2 s: the run ends on its own just as its cleanup, past its
    // grace period, asks the server to stop the statement again, on a connection being closed.
    for (const afterMs of [50, 150, 250]) {
      db = await provision(clickhouse);
      project = await TestProject.create([{ name: 'app', type: 'clickhouse', url: db.url }]);
      await project.write('app__0001_t.sql', migration([CREATE_T]));
      await project.write('app__0002_long.sql', migration(['SELECT sleep(2) FROM system.numbers LIMIT 4 SETTINGS max_block_size = 1']));
      let applying = 0;
      const result = await interrupt(project, async () => Date.now() - (applying ||= Date.now()) > afterMs);
      expect(result.code, result.stderr).toBe(130);
      expect(result.stderr).not.toMatch(/ClickHouseError|socket hang up/);
      const lock = await project.run(['lock-status']);
      const saidActive = /the lock stays ACTIVE/.test(result.stderr) && !/the migration lock was released, no `mtool unlock` needed/.test(result.stderr);
      expect(lock.stdout.split('\n')[0], `${explain(lock)}\n--- migrate stderr\n${result.stderr}`).toBe(saidActive ? 'Migration lock: ACTIVE' : 'Migration lock: INACTIVE');
      // The statement could be stopped: the lock must be free.
      expect(saidActive, result.stderr).toBe(false);
      await project.dispose();
      await db.drop();
      project = undefined;
      db = undefined;
    }
  }, 90_000);
});

describe('Ctrl-C during a long statement on a current clickhouse in process (chdb)', () => {
  it('stops the statement in the engine (KILL QUERY from a second session), releases the lock and exits at once', async () => {
    project = await TestProject.create([{ name: 'app', type: 'clickhouse', url: 'chdb:///chdata' }]);
    const { sql } = longInsert(60_000_000_000);
    await project.write('app__0001_t.sql', migration([CREATE_T]));
    await project.write('app__0002_long.sql', migration([sql]));

    // No view into the process's engine from here: the statement runs once its file is applying.
    let applying = 0;
    const result = await interrupt(project, async () => Date.now() - (applying ||= Date.now()) > 1000);
    expect(result.code, result.stderr).toBe(130);
    expect(result.stderr).toMatch(/app__0002_long\.sql:2: clickhouse \(app\): Query was cancelled/);
    expect(result.stderr).not.toMatch(/lock released from a second connection/);
    expect(result.ms).toBeLessThan(5_000);

    const { data } = await project.json(['status']);
    expect(data.databases.app.lock_active).toBe(false);
    expect(data.databases.app.migrations.map((m: { state: string }) => m.state)).toEqual(['applied', 'pending']);
  }, 60_000);
});
