/**
 * QA of connection URLs as users write them (helper: urls), against the real servers: a URL
 * that cannot work is refused with what to write instead, and a failed connection that one of
 * the URL's own options explains names that option.
 */
import { existsSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { parseConnectionUrl } from '../../src/net/connection-url.js';
import { runMtool } from '../support/cli.js';
import { connectTo, createTestDatabase, serverStatus, TEST_URLS, withDatabase, type TestDatabase } from '../support/databases.js';
import { IMPORT, project } from './project.js';

const MIGRATION = '-- upgrade\nCREATE TABLE t1 (id int);\n-- rollback\nDROP TABLE t1;\n';

/** A project whose one database `app` reads its type and URL from the environment (T, U). */
function envProject(): Promise<string> {
  const body = "databaseConfig({ databaseName: 'app', default: true, databaseType: process.env.T as never, databaseUrl: env('U') });\n";
  return project({ 'mtool.config.ts': IMPORT + body, 'migrations/app/app__0001_one.sql': MIGRATION });
}

/** The error a connection attempt fails with. */
async function connectFailure(type: 'postgresql', url: string): Promise<Error & { code?: string }> {
  try {
    const conn = await connectTo(type, url, { databaseName: 'app' });
    await conn.close();
  } catch (e) {
    return e as Error & { code?: string };
  }
  throw new Error(`connected to ${type} at ${url}`);
}

const mysql = await serverStatus('mysql');

describe.skipIf(!mysql.reachable)('a MySQL or MariaDB URL without a database', () => {
  const dbs: TestDatabase[] = [];
  afterAll(async () => {
    for (const db of dbs) await db.drop();
  });

  it('is refused (exit 2) by every command instead of showing a migrated database as all pending', async () => {
    const db = await createTestDatabase('mysql');
    dbs.push(db);
    const dir = await envProject();
    const migrated = await runMtool(['migrate'], { cwd: dir, env: { T: 'mariadb', U: db.url } });
    expect(migrated.code, migrated.stderr).toBe(0);

    const server = withDatabase(TEST_URLS.mysql, '');
    for (const [type, url] of [['mariadb', server], ['mysql', server.replace(/\/$/, '')], ['mysql', `${server}?charset=utf8mb4`]] as const) {
      for (const args of [['status'], ['history'], ['lock-status'], ['migrate'], ['config']]) {
        const result = await runMtool(args, { cwd: dir, env: { T: type, U: url } });
        const what = `${args.join(' ')} ${type} ${url}`;
        expect(result.stderr, what).toMatch(
          new RegExp(`^error: Database 'app': databaseUrl: the URL names no database, and ${type === 'mysql' ? 'MySQL' : 'MariaDB'} has no default one to keep mtool's tables in; put the database name in the URL path \\(mysql://user@host:3306/<database>\\)$`, 'm'),
        );
        expect(result.code, what).toBe(2);
        expect(result.stdout, what).not.toMatch(/pending|INACTIVE/);
      }
    }
  });
});

/** The MariaDB test server's Unix socket, when it has one on this machine. */
async function mysqlSocket(): Promise<string | undefined> {
  const conn = await connectTo('mysql', TEST_URLS.mysql);
  try {
    const socket = (await conn.query('SELECT @@socket AS socket')).rows[0]?.socket;
    return typeof socket === 'string' && existsSync(socket) ? socket : undefined;
  } finally {
    await conn.close();
  }
}

const socket = mysql.reachable ? await mysqlSocket() : undefined;

describe.skipIf(socket === undefined)('a MariaDB Unix socket, as the URL host', () => {
  const dbs: TestDatabase[] = [];
  afterAll(async () => {
    for (const db of dbs) await db.drop();
  });

  it('migrate and status connect through it', async () => {
    const db = await createTestDatabase('mysql');
    dbs.push(db);
    const dir = await envProject();
    const url = `mysql://root@${encodeURIComponent(socket!)}/${db.name}`;
    const migrated = await runMtool(['migrate'], { cwd: dir, env: { T: 'mariadb', U: url } });
    expect(migrated.stderr).not.toMatch(/error/);
    expect(migrated.code).toBe(0);
    const status = await runMtool(['status'], { cwd: dir, env: { T: 'mariadb', U: url } });
    expect(status.stdout).toMatch(/^app \(mariadb\): 1 applied, 0 pending, at version 0001$/m);
    // Over TCP, the same database.
    const tcp = await runMtool(['status'], { cwd: dir, env: { T: 'mariadb', U: db.url } });
    expect(tcp.stdout).toMatch(/^app \(mariadb\): 1 applied, 0 pending, at version 0001$/m);
  });
});

describe("another tool's socket option", () => {
  it('is refused with the URL form mtool takes for a Unix socket', () => {
    const message = (url: string, type: 'postgresql' | 'mysql' | 'mariadb') => {
      try {
        parseConnectionUrl(url, type, 'app');
      } catch (e) {
        return (e as Error & { code: string }).code + ' ' + (e as Error).message;
      }
      throw new Error(`accepted ${url}`);
    };
    expect(message('postgresql:///app?host=/var/run/postgresql', 'postgresql')).toMatch(
      /^MTOOL_URL Database 'app': unknown URL option 'host' for databaseType 'postgresql'; allowed: .*; for a Unix socket, write the socket's folder, percent-encoded, as the URL's host: postgresql:\/\/user@%2Fvar%2Frun%2Fpostgresql\/db$/,
    );
    for (const option of ['socket', 'unix_socket']) {
      expect(message(`mysql://root@localhost/app?${option}=/run/mysqld/mysqld.sock`, 'mariadb')).toMatch(
        new RegExp(`^MTOOL_URL Database 'app': unknown URL option '${option}' for databaseType 'mariadb'; allowed: .*; for a Unix socket, write the socket's path, percent-encoded, as the URL's host: mysql://user@%2Frun%2Fmysqld%2Fmysqld\\.sock/db$`),
      );
    }
    // Other unknown options keep the plain message.
    expect(message('postgresql://h/app?sslmod=require', 'postgresql')).not.toMatch(/Unix socket/);
  });
});

const pg = await serverStatus('postgresql');
const redis = await serverStatus('redis');

/** Whether the PostgreSQL test server offers TLS (the sslmode case needs one that does not). */
async function pgHasSsl(): Promise<boolean> {
  const conn = await connectTo('postgresql', TEST_URLS.postgresql);
  try {
    return (await conn.query('SHOW ssl')).rows[0]?.ssl === 'on';
  } finally {
    await conn.close();
  }
}

describe.skipIf(!pg.reachable || (await pgHasSsl()))('sslmode that demands TLS of a PostgreSQL server without it', () => {
  it('names the sslmode and what to change', async () => {
    for (const mode of ['require', 'verify-ca', 'verify-full']) {
      const error = await connectFailure('postgresql', `${TEST_URLS.postgresql}?sslmode=${mode}`);
      expect(error.code).toBe('MTOOL_CONNECTION');
      expect(error.message).toMatch(
        new RegExp(`^postgresql \\(app\\): The server does not support SSL connections; the URL's sslmode=${mode} requires TLS, which the server at 127\\.0\\.0\\.1:5432 does not offer: turn ssl on in the server's configuration, or use sslmode=prefer \\(TLS when offered\\) or sslmode=disable$`),
      );
    }
  });
});

describe.skipIf(!redis.reachable)('a PostgreSQL URL whose port is another service (Redis)', () => {
  const port = new URL(TEST_URLS.redis).port || '6379';
  const url = (query: string) => `postgresql://postgres@127.0.0.1:${port}/app?sslmode=disable&${query}`;

  it('connect_timeout: says no PostgreSQL answered there within it', async () => {
    const error = await connectFailure('postgresql', url('connect_timeout=1'));
    expect(error.code).toBe('MTOOL_CONNECTION');
    expect(error.message).toBe(
      `postgresql (app): timeout expired; no PostgreSQL answer from 127.0.0.1:${port} within 1 s (the URL's connect_timeout): check that the URL's host and port are PostgreSQL's and not another service's, or raise connect_timeout for a slow network`,
    );
  });

  it('without connect_timeout, pool_timeout bounds the wait, and is named', async () => {
    const error = await connectFailure('postgresql', url('pool_timeout=1'));
    expect(error.code).toBe('MTOOL_CONNECTION');
    expect(error.message).toBe(
      `postgresql (app): Connection terminated due to connection timeout; no PostgreSQL answer from 127.0.0.1:${port} within 1 s (the URL's pool_timeout): check that the URL's host and port are PostgreSQL's and not another service's, or raise pool_timeout for a slow network`,
    );
  });
});
