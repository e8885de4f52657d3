import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { disposeDialects, getDialect } from '../../src/dialects/index.js';
import { sqliteDialect } from '../../src/dialects/sqlite/dialect.js';
import type { Connection } from '../../src/dialects/types.js';
import { TrackingStore } from '../../src/main/engine/tracking-store.js';
import type { MigrationRecord, TrackedMigration } from '../../src/main/engine/types.js';
import { connectTo } from '../support/databases.js';
import { TARGETS, provision, targetReachable, type ProvisionedDatabase } from './support/targets.js';

/** The same connection without `queryArrays`: the store reads objects through `query`, as a driver without arrays does. */
function withoutArrays(conn: Connection): Connection {
  return {
    type: conn.type,
    databaseName: conn.databaseName,
    query: (sql) => conn.query(sql),
    begin: () => conn.begin(),
    commit: () => conn.commit(),
    rollback: () => conn.rollback(),
    serverVersion: () => conn.serverVersion(),
    close: () => conn.close(),
  };
}

const RECORDS: MigrationRecord[] = [
  { filename: 'app__0002_b.sql', version: '0002', checksum: 'b'.repeat(64), type: 'versioned', description: 'b', appliedAt: '2026-11-21T08:30:00.123Z', executionMs: 12, appliedBy: 'me@host' },
  { filename: 'app__0001_a.sql', version: '0001', checksum: 'a'.repeat(64), type: 'versioned', description: 'a', appliedAt: '2026-02-28T23:59:59.999Z', executionMs: 0, appliedBy: 'me@host' },
  { filename: 'RA__views.sql', version: null, checksum: 'c'.repeat(64), type: 'repeatable_always', description: 'views', appliedAt: '2026-01-31T00:00:00.000Z', executionMs: 9_007_199_254, appliedBy: '' },
  { filename: 'ROC__funcs.sql', version: null, checksum: 'd'.repeat(64), type: 'repeatable_on_change', description: 'funcs', appliedAt: '2026-12-31T12:00:00.000Z', executionMs: 3, appliedBy: 'you@there' },
];

describe('TrackingStore.records on SQLite', () => {
  let conn: Connection;
  beforeEach(async () => {
    conn = await connectTo('sqlite', 'sqlite:///:memory:');
  });
  afterEach(async () => {
    await conn.close();
  });

  it('reads the same records through queryArrays as through query, sorted versioned first', async () => {
    expect(conn.queryArrays).toBeTypeOf('function');
    const store = new TrackingStore(conn, sqliteDialect, await sqliteDialect.tracking(), '_mtool_migrations');
    await store.ensureTables();
    for (const record of RECORDS) await store.insert(record);
    // A timestamp that is not in toISOString form, as a hand edit or an older writer may leave.
    await conn.query(`UPDATE _mtool_migrations SET applied_at = '2026-04-31 10:00:00' WHERE filename = 'ROC__funcs.sql'`);

    const viaArrays = await store.records();
    const viaObjects = await new TrackingStore(withoutArrays(conn), sqliteDialect, await sqliteDialect.tracking(), '_mtool_migrations').records();
    expect(viaArrays).toEqual(viaObjects);
    expect(viaArrays.map((r) => r.filename)).toEqual(['app__0001_a.sql', 'app__0002_b.sql', 'RA__views.sql', 'ROC__funcs.sql']);
    expect(viaArrays[0]).toEqual(RECORDS[1]);
    expect(viaArrays[2]).toEqual(RECORDS[2]);
    expect(viaArrays[3].appliedAt).toBe('2026-05-01T10:00:00.000Z');

    // What planning reads: the same rows in the same order, four fields each, with or without arrays.
    const key = ({ filename, version, checksum, type }: MigrationRecord) => ({ filename, version, checksum, type });
    expect(await store.tracked()).toEqual(viaArrays.map(key));
    expect(await new TrackingStore(withoutArrays(conn), sqliteDialect, await sqliteDialect.tracking(), '_mtool_migrations').tracked()).toEqual(viaObjects.map(key));
  });

  it('gives queryArrays rows the values query gives, and wraps its errors', async () => {
    await conn.query('CREATE TABLE t (a INTEGER, b TEXT, c REAL, d BLOB)');
    await conn.query("INSERT INTO t VALUES (1, 'x', 1.5, X'00ff'), (9007199254740993, NULL, -2.25, NULL)");
    const { rows } = await conn.query('SELECT a, b, c, d FROM t ORDER BY rowid');
    const arrays = await conn.queryArrays!('SELECT a, b, c, d FROM t ORDER BY rowid');
    expect(arrays).toEqual(rows.map((r) => [r.a, r.b, r.c, r.d]));
    expect(arrays[0][0]).toBe(1);
    expect(arrays[1][0]).toBe('9007199254740993');
    await expect(conn.queryArrays!('SELECT nope FROM t')).rejects.toMatchObject({ code: 'MTOOL_DATABASE' });
  });
});

/**
 * Planning reads only what it needs (`tracked`: filename, version, checksum, type), as arrays where
 * the driver gives them: the same rows as the whole records on every dialect, and a driver's
 * `queryArrays` gives the values its `query` gives.
 */
for (const target of TARGETS) {
  const reachable = await targetReachable(target);
  describe.skipIf(!reachable)(`TrackingStore.tracked on ${target.id}`, () => {
    let db: ProvisionedDatabase;
    let conn: Connection;
    beforeEach(async () => {
      db = await provision(target);
      conn = await connectTo(target.type, db.url);
    });
    afterEach(async () => {
      await conn.close();
      await db.drop();
    });
    afterAll(() => disposeDialects());

    it('reads the four planning fields of every record, in records order, with or without arrays', async () => {
      const dialect = getDialect(target.type);
      const store = new TrackingStore(conn, dialect, await dialect.tracking(), '_mtool_migrations');
      await store.ensureTables();
      for (const record of RECORDS) await store.insert({ ...record, executionMs: Math.min(record.executionMs, 1000) });
      const key = ({ filename, version, checksum, type }: TrackedMigration) => ({ filename, version, checksum, type });
      const records = await store.records();
      expect(records.map((r) => r.filename)).toEqual(['app__0001_a.sql', 'app__0002_b.sql', 'RA__views.sql', 'ROC__funcs.sql']);
      expect((await store.tracked()).map(key)).toEqual(records.map(key));
      expect((await new TrackingStore(withoutArrays(conn), dialect, await dialect.tracking(), '_mtool_migrations').tracked()).map(key)).toEqual(records.map(key));
    });

    it.skipIf(target.type === 'clickhouse')('gives queryArrays rows the values query gives, and wraps its errors', async () => {
      expect(conn.queryArrays).toBeTypeOf('function');
      await conn.query('CREATE TABLE qa (a integer, b varchar(10), c decimal(10,2), d bigint)');
      await conn.query("INSERT INTO qa VALUES (1, 'x', 1.50, 9007199254740993)");
      await conn.query('INSERT INTO qa VALUES (2, NULL, -2.25, NULL)');
      const { rows } = await conn.query('SELECT a, b, c, d FROM qa ORDER BY a');
      const arrays = await conn.queryArrays!('SELECT a, b, c, d FROM qa ORDER BY a');
      expect(arrays).toEqual(rows.map((r) => [r.a, r.b, r.c, r.d]));
      expect(String(arrays[0]![3])).toBe('9007199254740993');
      await expect(conn.queryArrays!('SELECT nope FROM qa')).rejects.toMatchObject({ code: 'MTOOL_DATABASE' });
    });
  });
}
