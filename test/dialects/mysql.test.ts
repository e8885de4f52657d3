import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { getDialect } from '../../src/dialects/index.js';
import { mariadbFlavour, mysqlFlavour } from '../../src/dialects/mysql/flavour.js';
import { MysqlError } from '../../src/dialects/mysql/mysql-error.js';
import { mysqlQuoting } from '../../src/dialects/mysql/quoting.js';
import { connectTo, serverStatus, useTestDatabase } from '../support/databases.js';

const mysql = await serverStatus('mysql');

describe('mysql quoting and flavours', () => {
  it('never writes a backslash escape, so sql_mode cannot change a literal', () => {
    expect(mysqlQuoting.literal("it's")).toBe("'it''s'");
    expect(mysqlQuoting.literal('a\\b')).toBe("_utf8mb4 X'615c62'");
    expect(mysqlQuoting.ident('back`tick')).toBe('`back``tick`');
    expect(mysqlQuoting.literal(new Date('2024-02-29T12:34:56.789Z'))).toBe("'2024-02-29 12:34:56.789'");
    expect(() => mysqlQuoting.literal(Number.POSITIVE_INFINITY)).toThrow(/no literal for Infinity/);
  });

  it("adds what to do to an error whose text does not say it (a statement over max_allowed_packet)", () => {
    const ctx = { type: 'mariadb' as const, databaseName: 'shop', secrets: [] };
    const tooLarge = Object.assign(new Error("Got a packet bigger than 'max_allowed_packet' bytes"), { errno: 1153, code: 'ER_NET_PACKET_TOO_LARGE' });
    expect(new MysqlError('MTOOL_DATABASE', ctx, tooLarge).message).toBe(
      "mariadb (shop): Got a packet bigger than 'max_allowed_packet' bytes; the statement is larger than the server's max_allowed_packet: split it (several INSERTs of fewer rows each) or raise max_allowed_packet on the server",
    );
    const readOnly = Object.assign(new Error('The MariaDB server is running with the --read-only option so it cannot execute this statement'), { errno: 1290 });
    expect(new MysqlError('MTOOL_DATABASE', ctx, readOnly).message).toMatch(/--read-only option .*; the server runs with an option that refuses this statement \(read_only on a replica, most often\): point the URL at the primary$/);
    const other = Object.assign(new Error('Table x already exists'), { errno: 1050 });
    expect(new MysqlError('MTOOL_DATABASE', ctx, other).message).toBe('mariadb (shop): Table x already exists');
  });

  it('parses MySQL and MariaDB version strings in their flavour', () => {
    expect(mysqlFlavour.parseServerVersion('8.0.36')).toMatchObject({ major: 8, minor: 0, patch: 36, product: 'mysql' });
    expect(mariadbFlavour.parseServerVersion('5.5.5-10.11.6-MariaDB-0+deb12u1')).toMatchObject({ major: 10, minor: 11, patch: 6, product: 'mariadb' });
    // A `mysql` database served by MariaDB says so.
    expect(mysqlFlavour.parseServerVersion('10.11.19-MariaDB')).toMatchObject({ major: 10, product: 'mariadb' });
  });

  it('keeps flavour differences in capabilities, not in the dialect name', () => {
    expect(getDialect('mysql').capabilities).toMatchObject({ transactionalDdl: false, returning: false, sequences: false });
    expect(getDialect('mariadb').capabilities).toMatchObject({ transactionalDdl: false, returning: true, sequences: true });
    expect(getDialect('mariadb').quote).toBe(getDialect('mysql').quote);
  });
});

describe.skipIf(!mysql.reachable)('mysql/mariadb sessions', () => {
  const db = useTestDatabase('mysql');

  it('round-trips strings under NO_BACKSLASH_ESCAPES and the default sql_mode alike', async () => {
    const conn = await connectTo('mariadb', db.url);
    try {
      for (const mode of ['default', 'no-backslash-escapes']) {
        if (mode === 'no-backslash-escapes') await conn.query("SET SESSION sql_mode = CONCAT(@@sql_mode, ',NO_BACKSLASH_ESCAPES')");
        await fc.assert(
          fc.asyncProperty(fc.string({ unit: 'binary', maxLength: 30 }), async (s) => {
            const { rows } = await conn.query(`SELECT ${mysqlQuoting.literal(`\\${s}'\\`)} AS v`);
            expect(rows[0]!.v).toBe(`\\${s}'\\`);
          }),
          { numRuns: 30 },
        );
      }
      expect((await conn.query('SELECT @@SESSION.sql_mode AS m')).rows[0]!.m).toContain('NO_BACKSLASH_ESCAPES');
    } finally {
      await conn.close();
    }
  });

  it('applies the charset option and reports affected rows', async () => {
    const conn = await connectTo('mysql', `${db.url}?charset=utf8mb4`);
    try {
      expect((await conn.query('SELECT @@character_set_client AS c')).rows[0]!.c).toBe('utf8mb4');
      await conn.query('CREATE TABLE r (id INT)');
      expect((await conn.query('INSERT INTO r VALUES (1), (2), (3)')).rowCount).toBe(3);
      expect((await conn.query('UPDATE r SET id = id + 1 WHERE id > 1')).rowCount).toBe(2);
    } finally {
      await conn.close();
    }
  });

  it('wraps statement errors with errno and SQLSTATE', async () => {
    const conn = await connectTo('mariadb', db.url, { databaseName: 'shop' });
    try {
      const error = await conn.query('SELECT * FROM missing').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(MysqlError);
      expect(error).toMatchObject({ code: 'MTOOL_DATABASE', errno: 1146, sqlState: '42S02' });
      expect((error as Error).message).toMatch(/^mariadb \(shop\): Table '.*\.missing' doesn't exist$/);
    } finally {
      await conn.close();
    }
  });

  it('fails a wrong password as MTOOL_CONNECTION without showing the password', async () => {
    const url = db.url.replace('root@', 'root:Wr0ng%40pass@');
    const error = await connectTo('mysql', url, { databaseName: 'shop' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'MTOOL_CONNECTION', database: 'shop' });
    expect((error as Error).message).toMatch(/^mysql \(shop\): Access denied/);
    const shown = `${(error as Error).message} ${(error as Error).stack} ${String((error as Error).cause)}`;
    expect(shown).not.toContain('Wr0ng');
  });

  it('names a missing ssl_ca file', async () => {
    const error = await connectTo('mysql', `${db.url}?ssl_ca=ca.pem`, { root: '/tmp/mtool-root' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'MTOOL_URL' });
    expect((error as Error).message).toContain("ssl_ca file '/tmp/mtool-root/ca.pem' (ENOENT)");
  });
});
