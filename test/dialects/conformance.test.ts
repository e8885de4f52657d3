import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MtoolError } from '../../src/errors.js';
import { getDialect } from '../../src/dialects/index.js';
import type { Connection, DatabaseType, SqlValue } from '../../src/dialects/types.js';
import { connectTo } from '../support/databases.js';
import { TARGETS, available, type OpenedTarget } from './targets.js';

/** Column types for the typed-rows table, per dialect. */
const TYPED_TABLE: Record<DatabaseType, (name: string) => string> = {
  postgresql: (t) => `CREATE TABLE ${t} (i integer, b bigint, s text, n text, f boolean, d date)`,
  mysql: (t) => `CREATE TABLE ${t} (i INT, b BIGINT, s TEXT, n TEXT, f BOOLEAN, d DATE)`,
  mariadb: (t) => `CREATE TABLE ${t} (i INT, b BIGINT, s TEXT, n TEXT, f BOOLEAN, d DATE)`,
  sqlite: (t) => `CREATE TABLE ${t} (i INTEGER, b INTEGER, s TEXT, n TEXT, f BOOLEAN, d DATE)`,
  clickhouse: (t) => `CREATE TABLE ${t} (i Int32, b Int64, s String, n Nullable(String), f UInt8, d Date) ENGINE = Memory`,
};

const COUNTER_TABLE: Record<DatabaseType, (name: string) => string> = {
  postgresql: (t) => `CREATE TABLE ${t} (id integer)`,
  mysql: (t) => `CREATE TABLE ${t} (id INT) ENGINE = InnoDB`,
  mariadb: (t) => `CREATE TABLE ${t} (id INT) ENGINE = InnoDB`,
  sqlite: (t) => `CREATE TABLE ${t} (id INTEGER)`,
  clickhouse: (t) => `CREATE TABLE ${t} (id Int32) ENGINE = Memory`,
};

/** Identifiers that break naive quoting: quotes of every dialect, unicode, spaces, keywords. */
const TRICKY_IDENTIFIERS = ['plain', 'select', 'we"ird', 'back`tick', "it's", 'sp ace', 'ünïcødé', '日本語', 'a\\b', 'mixed"`\'\\all'];

for (const target of TARGETS) {
  const runs = await available(target);
  describe.skipIf(!runs)(`dialect conformance: ${target.label}`, () => {
    const dialect = getDialect(target.type);
    const q = dialect.quote;
    let opened: OpenedTarget;
    let conn: Connection;

    beforeAll(async () => {
      opened = await target.open();
      conn = await connectTo(target.type, opened.url, { databaseName: 'conformance', root: opened.root });
    });
    afterAll(async () => {
      await conn?.close();
      await dialect.dispose();
      await opened?.cleanup();
    });

    it('connects and reports a parseable server version', async () => {
      const raw = await conn.serverVersion();
      const version = dialect.parseServerVersion(raw);
      expect(version.major).toBeGreaterThan(0);
      expect(version.raw).toBe(raw);
      expect(conn.type).toBe(target.type);
      expect(conn.databaseName).toBe('conformance');
    });

    it('returns typed rows: ints as numbers, 64-bit ints as exact strings, text, NULL, booleans, dates as text', async () => {
      const table = q.ident('typed_rows');
      await conn.query(TYPED_TABLE[target.type](table));
      const values: SqlValue[] = [7, 9007199254740993n, "it's a \\ ünï 😀 \"q\"", null, true, '2024-02-29'];
      const inserted = await conn.query(`INSERT INTO ${table} (i, b, s, n, f, d) VALUES (${values.map((v) => q.literal(v)).join(', ')})`);
      if (target.type !== 'clickhouse') expect(inserted.rowCount).toBe(1);
      const { rows } = await conn.query(`SELECT i, b, s, n, f, d FROM ${table}`);
      expect(rows).toHaveLength(1);
      const row = rows[0]!;
      expect(row.i).toBe(7);
      // Beyond 2^53: a number would have been rounded to ...992.
      expect(row.b).toBe('9007199254740993');
      expect(row.s).toBe(values[2]);
      expect(row.n).toBeNull();
      // Native booleans only on PostgreSQL; elsewhere the stored 1.
      expect(row.f).toBe(target.type === 'postgresql' ? true : 1);
      expect(row.d).toBe('2024-02-29');
    });

    it('round-trips any string through literal() exactly', async () => {
      // PostgreSQL text cannot hold NUL (literal() refuses it, tested below).
      const text = fc.string({ unit: 'binary', maxLength: 40 }).filter((s) => target.type !== 'postgresql' || !s.includes('\0'));
      await fc.assert(
        fc.asyncProperty(fc.array(text, { minLength: 1, maxLength: 8 }), async (strings) => {
          const select = strings.map((s, i) => `${q.literal(s)} AS ${q.ident(`v${i}`)}`).join(', ');
          const { rows } = await conn.query(`SELECT ${select}`);
          strings.forEach((s, i) => expect(rows[0]![`v${i}`]).toBe(s));
        }),
        { numRuns: 40 },
      );
    });

    it('round-trips bytes, bigints, negative and fractional numbers through literal()', async () => {
      const cases: [SqlValue, (v: unknown) => void][] = [
        [new Uint8Array([0, 1, 39, 92, 255]), (v) => expect(Buffer.from(v as Uint8Array)).toEqual(Buffer.from([0, 1, 39, 92, 255]))],
        [-12345678901234n, (v) => expect(String(v)).toBe('-12345678901234')],
        [-2.5, (v) => expect(Number(v)).toBe(-2.5)],
      ];
      for (const [value, check] of cases) {
        // ClickHouse String bytes come back as JSON text, not bytes: checked through hex() below.
        if (value instanceof Uint8Array && target.type === 'clickhouse') continue;
        const { rows } = await conn.query(`SELECT ${q.literal(value)} AS v`);
        check(rows[0]!.v);
      }
      if (target.type === 'clickhouse') {
        const { rows } = await conn.query(`SELECT hex(${q.literal(new Uint8Array([0, 1, 39, 92, 255]))}) AS v`);
        expect(rows[0]!.v).toBe('0001275CFF');
      }
    });

    it('quotes identifiers with quotes, backticks, backslashes and unicode', async () => {
      const select = TRICKY_IDENTIFIERS.map((name, i) => `${i + 1} AS ${q.ident(name)}`).join(', ');
      const { rows } = await conn.query(`SELECT ${select}`);
      expect(Object.keys(rows[0]!).sort()).toEqual([...TRICKY_IDENTIFIERS].sort());
      TRICKY_IDENTIFIERS.forEach((name, i) => expect(Number(rows[0]![name])).toBe(i + 1));
      // And as a real table and column name.
      const table = q.ident('t "`\' ü');
      await conn.query(`${COUNTER_TABLE[target.type](table).replace('(id ', `(${q.ident('c"`\'ol')} `)}`);
      await conn.query(`INSERT INTO ${table} (${q.ident('c"`\'ol')}) VALUES (5)`);
      const { rows: back } = await conn.query(`SELECT ${q.ident('c"`\'ol')} AS v FROM ${table}`);
      expect(Number(back[0]!.v)).toBe(5);
    });

    it.runIf(dialect.capabilities.transactions)('commits and rolls back', async () => {
      const table = q.ident('tx_rows');
      await conn.query(COUNTER_TABLE[target.type](table));
      await conn.begin();
      await conn.query(`INSERT INTO ${table} (id) VALUES (1)`);
      await conn.rollback();
      expect(Number((await conn.query(`SELECT COUNT(*) AS n FROM ${table}`)).rows[0]!.n)).toBe(0);
      await conn.begin();
      await conn.query(`INSERT INTO ${table} (id) VALUES (2)`);
      await conn.commit();
      expect(Number((await conn.query(`SELECT COUNT(*) AS n FROM ${table}`)).rows[0]!.n)).toBe(1);
    });

    it.runIf(dialect.capabilities.transactionalDdl)('rolls back DDL with the transaction', async () => {
      await conn.begin();
      await conn.query(COUNTER_TABLE[target.type](q.ident('ddl_rolled_back')));
      await conn.rollback();
      await expect(conn.query(`SELECT * FROM ${q.ident('ddl_rolled_back')}`)).rejects.toMatchObject({ code: 'MTOOL_DATABASE' });
    });

    it.runIf(!dialect.capabilities.transactions)('treats begin/rollback as no-ops: statements apply at once', async () => {
      const table = q.ident('no_tx_rows');
      await conn.query(COUNTER_TABLE[target.type](table));
      await conn.begin();
      await conn.query(`INSERT INTO ${table} (id) VALUES (1)`);
      await conn.rollback();
      expect(Number((await conn.query(`SELECT count() AS n FROM ${table}`)).rows[0]!.n)).toBe(1);
    });

    it('wraps a failing statement as MTOOL_DATABASE naming the dialect and database', async () => {
      const error = await conn.query('SELECT * FROM no_such_table_xyz').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(MtoolError);
      expect(error).toMatchObject({ code: 'MTOOL_DATABASE', database: 'conformance' });
      expect((error as Error).message.startsWith(`${target.type} (conformance): `)).toBe(true);
      expect((error as Error).message).toContain('no_such_table_xyz');
      expect((error as Error).cause).toBeDefined();
    });
  });
}
