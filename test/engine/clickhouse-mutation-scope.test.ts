import { describe, expect, it } from 'vitest';
import { clickhouseMutations } from '../../src/dialects/clickhouse/mutations.js';
import type { Connection } from '../../src/dialects/types.js';
import { connectTo, createTestDatabase, randomName, serverStatus } from '../support/databases.js';

/**
 * After an `ALTER TABLE` a migration waits for the mutations it started (clickhouse-mutations
 * tests the whole run). The wait must not take another client's mutation for its own: one
 * started meanwhile on another table, of this database or another, is not waited for.
 */
const ch = await serverStatus('clickhouse');

const ENGINES = [
  { label: 'clickhouse 18.16 over HTTP', skip: !ch.reachable, server: true },
  { label: 'clickhouse in process (chdb)', skip: false, server: false },
];

/** Several seconds of mutation: five blocks of 65536 rows, two seconds each. */
async function slowTable(conn: Connection, name: string): Promise<void> {
  await conn.query(`CREATE TABLE ${name} (id UInt32, v String) ENGINE = MergeTree ORDER BY id`);
  await conn.query(`INSERT INTO ${name} SELECT toUInt32(number), 'a' FROM numbers(300000)`);
}
const slowUpdate = (name: string): string => `ALTER TABLE ${name} UPDATE v = concat('z', toString(sleep(2))) WHERE 1`;

async function notDone(conn: Connection, database: string, table: string): Promise<number> {
  const { rows } = await conn.query(`SELECT count() AS n FROM system.mutations WHERE database = '${database}' AND table = '${table}' AND is_done = 0`);
  return Number(rows[0]?.n);
}

for (const engine of ENGINES) {
  describe.skipIf(engine.skip)(`the mutation wait on ${engine.label}`, () => {
    it("waits for its own table's mutation only, not for one another client starts meanwhile on another table", async () => {
      const ours = engine.server ? await createTestDatabase('clickhouse') : undefined;
      const theirs = engine.server ? await createTestDatabase('clickhouse') : undefined;
      const url = ours?.url ?? 'chdb://:memory:';
      const conn = await connectTo('clickhouse', url, { databaseName: 'app' });
      const other = await connectTo('clickhouse', url, { databaseName: 'other' });
      try {
        const database = String((await conn.query('SELECT currentDatabase() AS d')).rows[0]!.d);
        const elsewhere = theirs?.name ?? randomName('other_db');
        if (!theirs) await other.query(`CREATE DATABASE ${elsewhere}`);
        // The other client's mutations run in the background, as a server's do by default.
        if (!engine.server) await other.query('SET mutations_sync = 0');
        await conn.query('CREATE TABLE t (id UInt32, v String) ENGINE = MergeTree ORDER BY id');
        await conn.query("INSERT INTO t VALUES (1, 'a')");
        await slowTable(other, `${database}.u`);
        await slowTable(other, `${elsewhere}.w`);

        const statement = "ALTER TABLE t UPDATE v = 'b' WHERE 1";
        const running = await clickhouseMutations.before(conn, statement);
        await other.query(slowUpdate(`${database}.u`));
        await other.query(slowUpdate(`${elsewhere}.w`));
        await conn.query(statement);
        const started = Date.now();
        await clickhouseMutations.wait(conn, running, { progress: () => undefined, statement });
        const waited = Date.now() - started;

        expect(await notDone(conn, database, 'u')).toBe(1);
        expect(await notDone(conn, elsewhere, 'w')).toBe(1);
        expect(waited).toBeLessThan(3_000);
        expect((await conn.query("SELECT count() AS n FROM t WHERE v = 'b'")).rows[0]!.n).toBe('1');
      } finally {
        await conn.close();
        await other.close();
        await ours?.drop();
        await theirs?.drop();
      }
    }, 60_000);
  });
}
