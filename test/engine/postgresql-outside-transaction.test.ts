import { describe, expect, it } from 'vitest';
import { getDialect } from '../../src/dialects/index.js';
import { parseMigrationFile } from '../../src/parser/migration-file.js';
import { noTransactionReason } from '../../src/main/engine/transaction-mode.js';
import { explain, migration, projectOn } from './support/project.js';
import { TARGETS, queryOnce, targetReachable } from './support/targets.js';

/**
 * PostgreSQL refuses more statements inside a transaction block than CREATE INDEX CONCURRENTLY
 * and VACUUM: each of these must be found, and its file run outside a transaction with a
 * warning, instead of failing with "cannot run inside a transaction block".
 */
const pg = TARGETS.find((t) => t.id === 'postgresql')!;

describe.skipIf(!(await targetReachable(pg)))('statements PostgreSQL refuses inside a transaction block', () => {
  const app = projectOn(pg);

  it('DETACH PARTITION CONCURRENTLY, REINDEX SCHEMA and CLUSTER without a table run outside one', async () => {
    const { db, project } = app;
    await project.write(
      'app__0001_parts.sql',
      migration(['CREATE TABLE pt (id integer) PARTITION BY RANGE (id)', 'CREATE TABLE pt1 PARTITION OF pt FOR VALUES FROM (0) TO (10)'], ['DROP TABLE pt']),
    );
    await project.write('app__0002_detach.sql', migration(['ALTER TABLE pt DETACH PARTITION pt1 CONCURRENTLY'], ['ALTER TABLE pt ATTACH PARTITION pt1 FOR VALUES FROM (0) TO (10)']));
    await project.write('app__0003_reindex.sql', migration(['REINDEX SCHEMA public'], ['SELECT 1']));
    await project.write('app__0004_cluster.sql', migration(['CLUSTER'], ['SELECT 1']));
    const result = await project.run(['migrate']);
    expect(result.code, explain(result)).toBe(0);
    expect(result.stderr).toContain('app__0002_detach.sql: runs outside a transaction: ALTER TABLE ... DETACH PARTITION ... CONCURRENTLY cannot run inside a transaction (line 2)');
    expect(result.stderr).toContain('app__0003_reindex.sql: runs outside a transaction: REINDEX SCHEMA/DATABASE/SYSTEM cannot run inside a transaction (line 2)');
    expect(result.stderr).toContain('app__0004_cluster.sql: runs outside a transaction: CLUSTER without a table cannot run inside a transaction (line 2)');
    expect(await queryOnce(pg, db.url, "SELECT count(*)::int AS n FROM pg_inherits WHERE inhparent = 'pt'::regclass")).toEqual([{ n: 0 }]);
    expect(await queryOnce(pg, db.url, 'SELECT count(*)::int AS n FROM _mtool_migrations')).toEqual([{ n: 4 }]);

    const back = await project.run(['rollback', '--count', '3']);
    expect(back.code, explain(back)).toBe(0);
    expect(await queryOnce(pg, db.url, "SELECT count(*)::int AS n FROM pg_inherits WHERE inhparent = 'pt'::regclass")).toEqual([{ n: 1 }]);
  });

  it('a CLUSTER of one table stays inside the transaction (only the whole-database form is refused there)', async () => {
    const { project } = app;
    await project.write('app__0005_one.sql', migration(['CREATE TABLE c (id integer PRIMARY KEY)', 'CLUSTER c USING c_pkey'], ['DROP TABLE c']));
    const result = await project.run(['migrate']);
    expect(result.code, explain(result)).toBe(0);
    expect(result.stderr).not.toContain('app__0005_one.sql: runs outside a transaction');
  });
});

describe('which PostgreSQL statements run outside a transaction (those a test cannot run on the one server)', () => {
  const reasonFor = async (sql: string) => {
    const file = parseMigrationFile({ filename: 'app__0001_x.sql', path: 'app__0001_x.sql', content: `-- upgrade\n${sql};\n`, database: 'app', dialect: 'postgresql' });
    const version = async () => ({ major: 15, minor: 0, raw: '15.0' }) as never;
    return (await noTransactionReason(file, file.upgrade, getDialect('postgresql').capabilities, version))?.reason;
  };

  it.each([
    ['ALTER DATABASE other SET TABLESPACE pg_default', 'ALTER DATABASE ... SET TABLESPACE'],
    ["CREATE TABLESPACE fast LOCATION '/ssd/pg'", 'CREATE/DROP TABLESPACE'],
    ['DROP TABLESPACE fast', 'CREATE/DROP TABLESPACE'],
    ["CREATE SUBSCRIPTION s CONNECTION 'host=a' PUBLICATION p", 'CREATE/DROP SUBSCRIPTION'],
    ['DROP SUBSCRIPTION s', 'CREATE/DROP SUBSCRIPTION'],
    ['ALTER SUBSCRIPTION s REFRESH PUBLICATION', 'ALTER SUBSCRIPTION ... REFRESH / SET PUBLICATION'],
    ['REINDEX (VERBOSE) DATABASE app', 'REINDEX SCHEMA/DATABASE/SYSTEM'],
    ['CLUSTER VERBOSE', 'CLUSTER without a table'],
  ])('%s', async (sql, what) => {
    expect(await reasonFor(sql)).toBe(`${what} cannot run inside a transaction`);
  });

  it.each(['ALTER DATABASE other SET work_mem = 1', 'ALTER SUBSCRIPTION s DISABLE', 'REINDEX TABLE t', 'CLUSTER t', 'ALTER TABLE pt DETACH PARTITION pt1'])('%s stays inside', async (sql) => {
    expect(await reasonFor(sql)).toBeUndefined();
  });
});
