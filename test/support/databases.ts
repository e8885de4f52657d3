/**
 * Shared helpers for tests against real servers (DESIGN.md section 6).
 *
 * Servers come from `MTOOL_TEST_PG_URL`, `MTOOL_TEST_MYSQL_URL`, `MTOOL_TEST_CLICKHOUSE_URL`,
 * `MTOOL_TEST_REDIS_URL`, with loopback defaults. A test file asks for a server with
 * {@link serverStatus} at collection time (top-level await) and gates its suite on
 * `reachable`; when a server is down the helper prints one loud line and the suite is skipped,
 * except with `CI=true`, where an unreachable server throws so the file fails.
 *
 * Each test gets its own database with a random name ({@link createTestDatabase}, or the
 * `beforeAll`/`afterAll` pair {@link useTestDatabase}) and drops it afterwards, so files run in
 * parallel without seeing each other.
 *
 * @example
 *   const pg = await serverStatus('postgresql');
 *   describe.skipIf(!pg.reachable)('postgresql', () => {
 *     const db = useTestDatabase('postgresql');
 *     it('connects', async () => { const c = await connectTo('postgresql', db.url); ... });
 *   });
 */
import { randomBytes } from 'node:crypto';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll } from 'vitest';
import { getDialect } from '../../src/dialects/index.js';
import type { Connection, DatabaseType } from '../../src/dialects/types.js';

/** A server the test suite talks to. `mysql` is the MariaDB server, used for both MySQL types. */
export type TestServer = 'postgresql' | 'mysql' | 'clickhouse' | 'redis';

/** Server URLs from the environment, with the loopback defaults of the project's test machines. */
export const TEST_URLS: Readonly<Record<TestServer, string>> = {
  postgresql: process.env.MTOOL_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
  mysql: process.env.MTOOL_TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/',
  clickhouse: process.env.MTOOL_TEST_CLICKHOUSE_URL ?? 'http://127.0.0.1:8123',
  redis: process.env.MTOOL_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
};

const DEFAULT_PORTS: Readonly<Record<TestServer, number>> = { postgresql: 5432, mysql: 3306, clickhouse: 8123, redis: 6379 };
const ADMIN_TYPE: Readonly<Record<Exclude<TestServer, 'redis'>, DatabaseType>> = { postgresql: 'postgresql', mysql: 'mysql', clickhouse: 'clickhouse' };

export interface ServerStatus {
  server: TestServer;
  url: string;
  reachable: boolean;
  /** Why not, when unreachable. */
  reason?: string;
}

const statusCache = new Map<TestServer, Promise<ServerStatus>>();

/** True when tests must not skip (the CI job). */
export function inCi(): boolean {
  return process.env.CI === 'true' || process.env.CI === '1';
}

/**
 * Whether a server accepts TCP connections (checked once per process, 2 s timeout, no driver
 * loaded). Unreachable: a loud warning and `reachable: false`, or under `CI=true` a thrown error.
 */
export function serverStatus(server: TestServer): Promise<ServerStatus> {
  let status = statusCache.get(server);
  if (!status) {
    status = probe(server).then((s) => {
      if (!s.reachable) {
        const line = `${server} test server at ${hostPort(server).join(':')} is unreachable (${s.reason}); set ${envName(server)} to point at one`;
        if (inCi()) throw new Error(`CI=true: ${line}`);
        console.warn(`\n!!! SKIPPING ${server} tests: ${line}\n`);
      }
      return s;
    });
    statusCache.set(server, status);
  }
  return status;
}

function envName(server: TestServer): string {
  return { postgresql: 'MTOOL_TEST_PG_URL', mysql: 'MTOOL_TEST_MYSQL_URL', clickhouse: 'MTOOL_TEST_CLICKHOUSE_URL', redis: 'MTOOL_TEST_REDIS_URL' }[server];
}

function hostPort(server: TestServer): [string, number] {
  const url = new URL(TEST_URLS[server]);
  const host = url.hostname.replace(/^\[|\]$/g, '') || '127.0.0.1';
  return [host, url.port ? Number(url.port) : DEFAULT_PORTS[server]];
}

function probe(server: TestServer): Promise<ServerStatus> {
  const [host, port] = hostPort(server);
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (reachable: boolean, reason?: string) => {
      socket.destroy();
      resolve({ server, url: TEST_URLS[server], reachable, ...(reason ? { reason } : {}) });
    };
    socket.setTimeout(2000, () => done(false, 'timed out after 2 s'));
    socket.once('error', (e: NodeJS.ErrnoException) => done(false, e.code ?? e.message));
    socket.connect(port, host, () => done(true));
  });
}

/** A random identifier-safe name: `mtool_t_` + 12 hex digits. */
export function randomName(prefix = 'mtool_t'): string {
  return `${prefix}_${randomBytes(6).toString('hex')}`;
}

/** The server URL with its path set to `database` (options kept). */
export function withDatabase(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

/** Open a connection through mtool's own dialect (the code under test doubles as the fixture). */
export function connectTo(type: DatabaseType, url: string, options: { databaseName?: string; pgSchema?: string; root?: string } = {}): Promise<Connection> {
  return getDialect(type).connect({ databaseName: options.databaseName ?? 'test', url, root: options.root ?? tmpdir(), ...(options.pgSchema ? { pgSchema: options.pgSchema } : {}) });
}

export interface TestDatabase {
  /** The database's random name. */
  readonly name: string;
  /** URL of the server with this database selected. */
  readonly url: string;
  /** Drop the database (idempotent). */
  drop(): Promise<void>;
}

/**
 * Create a database with a random name on a test server and return its URL.
 * PostgreSQL: `CREATE DATABASE`; MariaDB: `CREATE DATABASE … utf8mb4`; ClickHouse: `CREATE DATABASE`.
 */
export async function createTestDatabase(server: Exclude<TestServer, 'redis'>): Promise<TestDatabase> {
  const type = ADMIN_TYPE[server];
  const dialect = getDialect(type);
  const name = randomName();
  const q = dialect.quote.ident(name);
  await admin(server, server === 'mysql' ? `CREATE DATABASE ${q} CHARACTER SET utf8mb4 COLLATE utf8mb4_bin` : `CREATE DATABASE ${q}`);
  let dropped = false;
  return {
    name,
    url: withDatabase(TEST_URLS[server], name),
    async drop() {
      if (dropped) return;
      dropped = true;
      // FORCE ends sessions still open on it (pooled ones included); PostgreSQL 13+.
      await admin(server, server === 'postgresql' ? `DROP DATABASE IF EXISTS ${q} WITH (FORCE)` : `DROP DATABASE IF EXISTS ${q}`);
    },
  };
}

async function admin(server: Exclude<TestServer, 'redis'>, sql: string): Promise<void> {
  const connection = await connectTo(ADMIN_TYPE[server], TEST_URLS[server], { databaseName: `${server}-admin` });
  try {
    await connection.query(sql);
  } finally {
    await connection.close();
  }
}

/**
 * Register `beforeAll`/`afterAll` hooks that create a random database for the enclosing
 * `describe` and drop it after. Read `url`/`name` inside tests (not at collection time).
 */
export function useTestDatabase(server: Exclude<TestServer, 'redis'>): { readonly url: string; readonly name: string } {
  let db: TestDatabase | undefined;
  beforeAll(async () => {
    db = await createTestDatabase(server);
  });
  afterAll(async () => {
    await db?.drop();
  });
  return {
    get url() {
      if (!db) throw new Error('useTestDatabase: the database exists only inside tests (after beforeAll)');
      return db.url;
    },
    get name() {
      if (!db) throw new Error('useTestDatabase: the database exists only inside tests (after beforeAll)');
      return db.name;
    },
  };
}

/**
 * For the enclosing `describe`: a function opening a connection (as `type`, default the server's
 * own type) to a new random database on `server` at each call, and an `afterAll` hook closing
 * every such connection, dropping every such database, then releasing what the dialect shares
 * between connections (PostgreSQL's pools), in that order.
 * @example const fresh = useFreshConnections('mysql', 'mariadb'); it('...', async () => { const conn = await fresh(); ... });
 */
export function useFreshConnections(server: Exclude<TestServer, 'redis'>, type: DatabaseType = ADMIN_TYPE[server]): () => Promise<Connection> {
  const dbs: TestDatabase[] = [];
  const conns: Connection[] = [];
  afterAll(async () => {
    for (const c of conns) await c.close();
    for (const d of dbs) await d.drop();
    await getDialect(type).dispose();
  });
  return async () => {
    const db = await createTestDatabase(server);
    dbs.push(db);
    const conn = await connectTo(type, db.url);
    conns.push(conn);
    return conn;
  };
}
