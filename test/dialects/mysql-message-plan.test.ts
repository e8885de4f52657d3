import { describe, expect, it } from 'vitest';
import { RECORD_GROUP, recordEachPlan, recordGroupedPlan } from '../../src/dialects/mysql/message-plan.js';
import type { RecordMany, StatementStep } from '../../src/dialects/types.js';

/** `n` one-statement migrations, each step carrying its record. */
const migrations = (n: number): StatementStep[] =>
  Array.from({ length: n }, (_, i) => ({ sql: `CREATE TABLE t${i} (id int)`, record: (ms: string, at?: string) => `INSERT ${i} ${ms} ${at}` }));

const recordMany: RecordMany = (rows) => `RECORD ${rows.map((r) => r.step).join(',')}`;

describe('MySQL message plans', () => {
  it('grouped: a start mark, an end mark after each migration, and per group a row of times then one record', () => {
    const plan = recordGroupedPlan(migrations(RECORD_GROUP + 2), recordMany);
    const kinds = plan.sql.map((sql) => (sql.startsWith('SET @mtool_m0') ? 'start' : sql.startsWith('SET') ? 'end' : sql.startsWith('SELECT') ? 'times' : sql.startsWith('RECORD') ? sql : 'ddl'));
    const group = (from: number, n: number) => Array.from({ length: n }, () => ['ddl', 'end']).flat().concat(['times', `RECORD ${Array.from({ length: n }, (_, k) => from + k).join(',')}`]);
    expect(kinds).toEqual(['start', ...group(0, RECORD_GROUP), 'start', ...group(RECORD_GROUP, 2)]);
    // The record reads each migration's time between the marks around it, and its end mark as applied_at.
    expect(plan.sql[plan.sql.length - 2]).toBe(
      'SELECT (TIMESTAMPDIFF(MICROSECOND, @mtool_m0, @mtool_m1) DIV 1000) AS e0, (TIMESTAMPDIFF(MICROSECOND, @mtool_m1, @mtool_m2) DIV 1000) AS e1',
    );
    // Every part names its step: a mark and a record are the record part of the migration they close.
    expect(plan.parts.filter((p) => p.part === 'record').map((p) => p.step)).toEqual([
      ...Array.from({ length: RECORD_GROUP }, (_, i) => i),
      RECORD_GROUP - 1,
      RECORD_GROUP - 1,
      RECORD_GROUP,
      RECORD_GROUP + 1,
      RECORD_GROUP + 1,
      RECORD_GROUP + 1,
    ]);
    expect([...plan.events.values()].map((e) => e.recorded.length)).toEqual([RECORD_GROUP, 2]);
    expect(plan.marks.size).toBe(RECORD_GROUP + 2);
  });

  it('grouped: statements of one migration before its last carry no mark', () => {
    const steps: StatementStep[] = [{ sql: 'CREATE TABLE a (id int)' }, { sql: 'CREATE TABLE b (id int)', record: () => 'unused' }];
    expect(recordGroupedPlan(steps, recordMany).sql).toEqual([
      'SET @mtool_m0 = UTC_TIMESTAMP(6)',
      'CREATE TABLE a (id int)',
      'CREATE TABLE b (id int)',
      'SET @mtool_m1 = UTC_TIMESTAMP(6)',
      'SELECT (TIMESTAMPDIFF(MICROSECOND, @mtool_m0, @mtool_m1) DIV 1000) AS e0',
      'RECORD 1',
    ]);
  });

  it('one by one: each migration marked at its start and recorded after its last statement', () => {
    const plan = recordEachPlan(migrations(2));
    expect(plan.sql).toEqual([
      'SET @mtool_started = NOW(6)',
      'CREATE TABLE t0 (id int)',
      'INSERT 0 (TIMESTAMPDIFF(MICROSECOND, @mtool_started, NOW(6)) DIV 1000) UTC_TIMESTAMP(3)',
      'SET @mtool_started = NOW(6)',
      'CREATE TABLE t1 (id int)',
      'INSERT 1 (TIMESTAMPDIFF(MICROSECOND, @mtool_started, NOW(6)) DIV 1000) UTC_TIMESTAMP(3)',
    ]);
  });
});
