/**
 * MySQL / MariaDB places that take only a plain string literal (COMMENT, ENUM members), and
 * spatial indexes, which take no prefix length although the server reports one: introspected
 * from a real server, rendered, and run in an empty database.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { mysqlPlainString } from '../../src/dialects/mysql/quoting.js';
import { renderMysqlTable } from '../../src/dialects/mysql/renderer.js';
import type { Connection, DatabaseType } from '../../src/dialects/types.js';
import { getDialect } from '../../src/dialects/index.js';
import { col, compileModels, table } from '../../src/schema/index.js';
import { connectTo, randomName, serverStatus, TEST_URLS, withDatabase } from '../support/databases.js';
import { canon, execAll, introspect, render } from './round-trip.js';

const server = await serverStatus('mysql');

const BACKSLASHES = [
  // In the default sql_mode `\\` is one backslash and `\0` a NUL.
  String.raw`CREATE TABLE t (
     id INT PRIMARY KEY,
     c INT COMMENT 'a\\b''q\0z',
     e ENUM('x\\y', 'p''q') DEFAULT 'x\\y',
     v VARCHAR(10) DEFAULT 'd\\e'
   ) COMMENT = 'x\\y'`,
];

const SPATIAL = ['CREATE TABLE s (pt POINT NOT NULL, name VARCHAR(40), SPATIAL INDEX sp (pt), INDEX ix_name (name(10)))'];

describe('mysqlPlainString', () => {
  it('escapes backslash and NUL the way the default sql_mode reads them, and doubles quotes', () => {
    expect(mysqlPlainString(String.raw`a\b's`)).toBe(String.raw`'a\\b''s'`);
    expect(mysqlPlainString('nul\0end')).toBe(String.raw`'nul\0end'`);
    expect(mysqlPlainString('plain')).toBe("'plain'");
  });
});

for (const type of ['mysql', 'mariadb'] as const satisfies readonly DatabaseType[]) {
  describe.skipIf(!server.reachable)(`${type}: comments, enum members and spatial indexes survive a render (MariaDB server)`, () => {
    const fresh = freshDatabases(type);

    it('writes a comment or enum member holding a backslash as a plain literal the server accepts, with the same text', async () => {
      const source = await fresh();
      await execAll(source, BACKSLASHES);
      const ir = await introspect(source);
      const t = ir.tables.t!;
      expect(t.comment).toBe('x\\y');
      expect(t.columns.c!.comment).toBe("a\\b'q\0z");
      expect(t.columns.e).toMatchObject({ enum_values: ['x\\y', "p'q"], default: { kind: 'literal', value: 'x\\y' } });
      expect(t.columns.v!.default).toEqual({ kind: 'literal', value: 'd\\e' });

      const statements = renderMysqlTable(ir, 't');
      expect(statements[0]).toContain(String.raw`COMMENT 'a\\b''q\0z'`);
      expect(statements[0]).toContain(String.raw`) COMMENT='x\\y'`);
      const target = await fresh();
      await execAll(target, statements);
      expect(canon(await introspect(target))).toBe(canon(ir));
    });

    it('writes the enum members and comments of models with a backslash as plain literals', async () => {
      const models = table('m', { id: col.integer().primaryKey(), kind: col.enum(['a\\b', 'c']).comment('back\\slash') }, { comment: 'x\\y' });
      const compiled = compileModels([models], { dialect: type });
      const conn = await fresh();
      await execAll(conn, await render(type, compiled));
      expect(canon(await introspect(conn))).toBe(canon(compiled));
    });

    it('reads a spatial index without the prefix length the server reports, and renders one it accepts', async () => {
      const source = await fresh();
      await execAll(source, SPATIAL);
      const ir = await introspect(source);
      expect(ir.indexes['s.sp']).toMatchObject({ using: 'spatial', columns: ['pt'] });
      expect(ir.indexes['s.sp']!.attrs?.prefix_lengths).toBeUndefined();
      // A real prefix is still read.
      expect(ir.indexes['s.ix_name']!.attrs).toEqual({ prefix_lengths: { name: 10 } });
      const statements = renderMysqlTable(ir, 's');
      expect(statements).toContain('CREATE SPATIAL INDEX `sp` ON `s` (`pt`)');
      const target = await fresh();
      await execAll(target, statements);
      expect(canon(await introspect(target))).toBe(canon(ir));
    });

    it('renders no prefix length for a spatial index even when a stored schema carries one', async () => {
      const source = await fresh();
      await execAll(source, SPATIAL);
      const ir = await introspect(source);
      ir.indexes['s.sp']!.attrs = { prefix_lengths: { pt: 32 } };
      expect(renderMysqlTable(ir, 's')).toContain('CREATE SPATIAL INDEX `sp` ON `s` (`pt`)');
    });
  });
}

/**
 * For the enclosing describe: a function opening a connection (as `type`) to a new database named
 * `fix_intro_<random>` at each call; every one is closed and dropped after the tests.
 */
function freshDatabases(type: DatabaseType): () => Promise<Connection> {
  const names: string[] = [];
  const conns: Connection[] = [];
  const admin = async (sql: string) => {
    const conn = await connectTo('mysql', TEST_URLS.mysql, { databaseName: 'mysql-admin' });
    try {
      await conn.query(sql);
    } finally {
      await conn.close();
    }
  };
  afterAll(async () => {
    for (const c of conns) await c.close();
    for (const name of names) await admin(`DROP DATABASE IF EXISTS \`${name}\``);
    await getDialect(type).dispose();
  });
  return async () => {
    const name = randomName('fix_intro');
    await admin(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
    names.push(name);
    const conn = await connectTo(type, withDatabase(TEST_URLS.mysql, name));
    conns.push(conn);
    return conn;
  };
}
