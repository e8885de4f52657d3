import { describe, expect, it } from 'vitest';
import { getDialect } from '../../src/dialects/index.js';
import { ddlSyntax, migrationEffect } from '../../src/main/engine/ddl-targets.js';
import { emptySchema } from '../../src/schema/ir.js';
import { explain, migration, projectPerTest } from './support/project.js';
import { TARGETS, queryOnce, rowCount, targetReachable, tableExistsAt } from './support/targets.js';

const MIB = 1024 * 1024;

/** A multi-row INSERT into big (id, body) of about `size` characters, and its number of rows. */
function bulkInsert(size: number): { sql: string; rows: number } {
  const rows: string[] = [];
  let length = 0;
  while (length < size) {
    rows.push(`(${rows.length + 1}, 'row ${rows.length + 1} ${'x'.repeat(60)}')`);
    length += rows[rows.length - 1]!.length + 1;
  }
  return { sql: `INSERT INTO big (id, body) VALUES ${rows.join(',')}`, rows: rows.length };
}

/**
 * MySQL and MariaDB: a migration whose statements are each small but add up to more than the
 * server's max_allowed_packet. It used to go to the server whole as one multi-statement message,
 * which the server refused as one packet ("Got a packet bigger than 'max_allowed_packet'",
 * blamed on its first statement, advising to split a statement that was small already).
 */
for (const target of TARGETS.filter((t) => t.type === 'mysql' || t.type === 'mariadb')) {
  const reachable = await targetReachable(target);
  describe.skipIf(!reachable)(`a migration larger than max_allowed_packet on ${target.id}`, () => {
    const fresh = projectPerTest(target);

    it('applies a file of small statements that add up to more than the packet, as the client would', async () => {
      const project = await fresh.create();
      const [{ bytes }] = (await queryOnce(target, fresh.db.url, 'SELECT @@max_allowed_packet AS bytes')) as [{ bytes: unknown }];
      // Statements of just under 1 MiB each, together one MiB more than the server takes in one packet.
      const count = Math.ceil(Number(bytes) / MIB) + 1;
      const body = 'x'.repeat(MIB - 100);
      const inserts = Array.from({ length: count }, (_, i) => `INSERT INTO big (id, body) VALUES (${i + 1}, '${body}')`);
      await project.write('app__0001_big.sql', migration(['CREATE TABLE big (id int primary key, body longtext)', ...inserts], ['DROP TABLE big']));
      // A small migration before it, which is sent together with others where it can be.
      await project.write('app__0002_after.sql', migration(['CREATE TABLE after_big (id int)'], ['DROP TABLE after_big']));

      const result = await project.run(['migrate']);
      expect(result.code, explain(result)).toBe(0);
      expect(await rowCount(target, fresh.db.url, 'big')).toBe(count);
      expect(await tableExistsAt(target, fresh.db.url, 'after_big')).toBe(true);
      const { data } = await project.json(['status']);
      expect(data.databases.app.migrations.map((m: { state: string }) => m.state)).toEqual(['applied', 'applied']);
    });
  });
}

/**
 * ClickHouse parses at most max_query_size bytes of a statement (256 KiB by default); an INSERT's
 * VALUES data past it is read as data. mtool sends statements as the HTTP request's body.
 */
const clickhouse = TARGETS.find((t) => t.type === 'clickhouse')!;
describe.skipIf(!(await targetReachable(clickhouse)))(`statements over max_query_size on ${clickhouse.id}`, () => {
  const fresh = projectPerTest(clickhouse);
  /** A CREATE TABLE of about 330 KB: its text is all statement, nothing of it data. */
  const wideTable = (name: string) =>
    `CREATE TABLE ${name} (id UInt32, ${Array.from({ length: 6000 }, (_, i) => `column_with_a_rather_long_name_${i} UInt32`).join(', ')}) ENGINE = MergeTree ORDER BY id`;

  it('applies an INSERT of several MB, its VALUES past max_query_size', async () => {
    const project = await fresh.create();
    const insert = bulkInsert(3 * MIB);
    await project.write('app__0001_bulk.sql', migration(['CREATE TABLE big (id UInt32, body String) ENGINE = MergeTree ORDER BY id', insert.sql], ['DROP TABLE big']));
    const result = await project.run(['migrate']);
    expect(result.code, explain(result)).toBe(0);
    expect(await rowCount(clickhouse, fresh.db.url, 'big')).toBe(insert.rows);
  });

  it('says, for a statement over max_query_size, which setting limits it and how to raise it in the file; with that, it applies', async () => {
    const project = await fresh.create();
    await project.write('app__0001_wide.sql', migration([wideTable('wide')], ['DROP TABLE wide']));
    const failed = await project.run(['migrate']);
    expect(failed.code, explain(failed)).toBe(1);
    expect(failed.stderr).toMatch(/error: app__0001_wide\.sql:2: clickhouse \(app\): .*Max query size exceeded/);
    expect(failed.stderr).toContain('no statement of migration app__0001_wide.sql had run; the tracking table is unchanged.');
    expect(failed.stderr).toContain("The statement is longer than the server's max_query_size");
    expect(failed.stderr).toContain('put `SET max_query_size = <bytes>;` before it in the migration file');
    expect((await project.json(['status'])).data.databases.app.migrations[0].state).toBe('pending');

    // What the hint says works.
    await project.write('app__0001_wide.sql', migration(['SET max_query_size = 1048576', wideTable('wide')], ['DROP TABLE wide']));
    const applied = await project.run(['migrate']);
    expect(applied.code, explain(applied)).toBe(0);
    expect(await tableExistsAt(clickhouse, fresh.db.url, 'wide')).toBe(true);
  });
});

/**
 * The snapshot after a migration re-reads only the tables its statements touch, which it finds
 * by tokenizing them, before the migration runs, on the main thread. For a data load of 100 MB
 * that took seconds and over a gigabyte of memory (300 MB: over a minute, 3.5 GB): past a bound,
 * the migration is read in full after it instead.
 */
describe('what a very large migration touches', () => {
  const syntax = ddlSyntax(getDialect('postgresql'));

  it('is not read past 8 MiB of SQL: the schema is read in full after it', () => {
    const effect = migrationEffect(['CREATE TABLE big (id int, body text)', bulkInsert(9 * MIB).sql], syntax, emptySchema());
    expect(effect.kind).toBe('full');
    expect(effect.kind === 'full' && effect.reason).toMatch(/^its statements hold 9\.0 MiB of SQL/);
  });

  it('is still read below that', () => {
    const effect = migrationEffect(['CREATE TABLE big (id int, body text)', bulkInsert(7 * MIB).sql], syntax, emptySchema());
    expect(effect).toEqual({ kind: 'partial', tables: ['big'], enums: false });
  });
});
