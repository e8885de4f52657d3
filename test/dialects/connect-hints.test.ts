import { describe, expect, it } from 'vitest';
import type { DatabaseType } from '../../src/dialects/types.js';
import { connectTo, serverStatus, TEST_URLS, withDatabase, type TestServer } from '../support/databases.js';

/**
 * A connection that fails says what to do about its cause, told from the server's own error: the
 * server not reached (host and port), the URL's database missing (the statement that creates it),
 * or the login refused (user, password, and what else admits a login there). Against the real
 * servers, whose codes these are.
 */
interface Case {
  server: Exclude<TestServer, 'redis'>;
  type: DatabaseType;
  product: string;
  /** The server's URL with another user and password. */
  withLogin(url: string): string;
  createDatabase: string;
  loginRules: RegExp;
}

const login = (user: string) => (url: string) => url.replace(/^(\w+:\/\/)(?:[^@/]*@)?/, `$1${user}:Wr0ngPa55@`);

const CASES: Case[] = [
  { server: 'postgresql', type: 'postgresql', product: 'PostgreSQL', withLogin: login('mtool_no_such_role'), createDatabase: 'CREATE DATABASE "mtool_no_such_db"', loginRules: /and the server's pg_hba\.conf rules/ },
  { server: 'mysql', type: 'mariadb', product: 'MariaDB', withLogin: login('mtool_no_such_user'), createDatabase: 'CREATE DATABASE `mtool_no_such_db`', loginRules: /and the account's host part/ },
  { server: 'mysql', type: 'mysql', product: 'MySQL', withLogin: login('mtool_no_such_user'), createDatabase: 'CREATE DATABASE `mtool_no_such_db`', loginRules: /and the account's host part/ },
  { server: 'clickhouse', type: 'clickhouse', product: 'ClickHouse', withLogin: login('mtool_no_such_user'), createDatabase: 'CREATE DATABASE `mtool_no_such_db`', loginRules: /in the URL$/ },
];

const failure = (type: DatabaseType, url: string) => connectTo(type, url, { databaseName: 'app' }).then(
  async (conn) => {
    await conn.close();
    throw new Error(`connected to ${type} at ${url}`);
  },
  (e: unknown) => e as Error & { code?: string },
);

for (const c of CASES) {
  const { reachable } = await serverStatus(c.server);
  describe.skipIf(!reachable)(`a failed connection to ${c.type} says what to do`, () => {
    const server = TEST_URLS[c.server];

    it('a database that does not exist: create it, with the statement', async () => {
      const error = await failure(c.type, withDatabase(server, 'mtool_no_such_db'));
      expect(error.code).toBe('MTOOL_CONNECTION');
      expect(error.message).toMatch(new RegExp(`^${c.type} \\(app\\): .*mtool_no_such_db.*; create the database first \\(${c.createDatabase.replace(/[()]/g, '\\$&')}\\) or correct its name in the URL$`));
    });

    it('a refused login: the user and password, and what else admits one; never the password', async () => {
      const error = await failure(c.type, c.withLogin(withDatabase(server, c.type === 'clickhouse' ? 'default' : 'test')));
      expect(error.code).toBe('MTOOL_CONNECTION');
      expect(error.message).toMatch(/; check the user and password in the URL/);
      expect(error.message).toMatch(c.loginRules);
      expect(`${error.message} ${error.stack} ${String(error.cause)}`).not.toContain('Wr0ngPa55');
    });

    it('no server at the host and port: names them', async () => {
      const error = await failure(c.type, withDatabase(server, 'test').replace(/:\d+\//, ':1/'));
      expect(error.code).toBe('MTOOL_CONNECTION');
      expect(error.message).toMatch(new RegExp(`; check that ${c.product} is running and accepts connections at 127\\.0\\.0\\.1:1 \\(the URL's host and port\\)$`));
    });
  });
}

for (const type of ['mariadb', 'mysql'] as const) {
  const { reachable } = await serverStatus('mysql');
  describe.skipIf(!reachable)(`${type}: a user who may not use the URL's database`, () => {
    it('is told the database is missing or not granted (the server says the same of both), never the password', async () => {
      const admin = await connectTo(type, TEST_URLS.mysql, { databaseName: 'admin' });
      const user = `mtool_hint_${process.pid}`;
      try {
        await admin.query(`CREATE USER '${user}'@'%' IDENTIFIED BY 'Rig8tPa55'`);
        const url = withDatabase(TEST_URLS.mysql, 'mtool_no_such_db').replace(/^(\w+:\/\/)(?:[^@/]*@)?/, `$1${user}:Rig8tPa55@`);
        const error = await failure(type, url);
        expect(error.code).toBe('MTOOL_CONNECTION');
        expect(error.message).toMatch(/; the user and password were accepted, but the database is missing or the user may not use it: create it \(CREATE DATABASE `mtool_no_such_db`\) or give the user its rights \(GRANT ALL ON `mtool_no_such_db`\.\* TO 'mtool_hint_\d+'@'%'\), or correct its name in the URL$/);
        expect(`${error.message} ${error.stack} ${String(error.cause)}`).not.toContain('Rig8tPa55');
      } finally {
        await admin.query(`DROP USER IF EXISTS '${user}'@'%'`);
        await admin.close();
      }
    });
  });
}
