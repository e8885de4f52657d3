/**
 * The ClickHouse golden file of heredocs, checked against a current ClickHouse (chdb, in
 * process): the statements the splitter finds are the ones ClickHouse itself runs when given the
 * whole file, each valid on its own.
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { splitStatements } from '../../src/parser/split-statements.js';

const hasChdb = existsSync(new URL('../../node_modules/chdb/package.json', import.meta.url));
if (!hasChdb) console.warn('\n!!! SKIPPING the chdb check of ClickHouse heredocs: the chdb package is not installed\n');

describe.skipIf(!hasChdb)('clickhouse heredocs against chdb (current ClickHouse in process)', () => {
  it('splits golden/clickhouse/heredocs.sql where ClickHouse does', async () => {
    const { query } = await import('chdb');
    const sql = readFileSync(new URL('./golden/clickhouse/heredocs.sql', import.meta.url), 'utf8');
    const statements = splitStatements(sql, { dialect: 'clickhouse' }).map((s) => s.text);
    const one = statements.map((s) => query(s, 'CSV')).join('');
    expect(one).toBe(query(sql, 'CSV'));
    expect(one).toContain('"a;b"\n');
  });
});
