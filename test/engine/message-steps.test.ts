import { describe, expect, it } from 'vitest';
import { messageSteps, ranBeforeFailure } from '../../src/main/engine/message-steps.js';
import { parseMigrationFile, type MigrationFile } from '../../src/parser/migration-file.js';

const file = (filename: string, statements: string[]): MigrationFile =>
  parseMigrationFile({ filename, path: `/m/app/${filename}`, content: `-- upgrade\n${statements.map((s) => `${s};\n`).join('')}`, database: 'app', dialect: 'postgresql' });

const a = file('app__0001_a.sql', ['CREATE TABLE a (id int)']);
const b = file('app__0002_b.sql', ['CREATE TABLE b (id int)', 'CREATE INDEX b_id ON b (id)', 'INSERT INTO b VALUES (1)']);
const c = file('app__0003_c.sql', ['CREATE TABLE c (id int)']);

describe('messageSteps', () => {
  it('lays out every statement in order, the record on each file’s last one, BEGIN and COMMIT only in transactions', () => {
    const records: string[] = [];
    const recordSql = (f: number, ms: string, now?: string) => (records.push(`${f}`), `record ${f} ${ms} ${now ?? '-'}`);
    const none = messageSteps([a, b, c], false, recordSql);
    expect(none.steps.map((s) => [s.sql.split(' ').slice(0, 2).join(' '), s.begin ?? false, s.record !== undefined, s.commit ?? false])).toEqual([
      ['CREATE TABLE', false, true, false],
      ['CREATE TABLE', false, false, false],
      ['CREATE INDEX', false, false, false],
      ['INSERT INTO', false, true, false],
      ['CREATE TABLE', false, true, false],
    ]);
    expect(none.owners.map((o) => `${o.file}:${o.statement.line}`)).toEqual(['0:2', '1:2', '1:3', '1:4', '2:2']);
    expect(none.recordSteps).toEqual([0, 3, 4]);
    expect(none.steps[3]!.record!('ELAPSED', 'NOW')).toBe('record 1 ELAPSED NOW');
    const own = messageSteps([a, b], true, recordSql);
    expect(own.steps.map((s) => [s.begin ?? false, s.commit ?? false])).toEqual([
      [true, true],
      [true, false],
      [false, false],
      [false, true],
    ]);
  });
});

describe('ranBeforeFailure', () => {
  const message = messageSteps([a, b, c], false, () => 'record');
  it('names the failing statement and the ones of its file before it', () => {
    expect(ranBeforeFailure(message, 1, 2, 'statement')).toEqual({ executed: [{ line: 2, text: 'CREATE TABLE b (id int)' }], failed: b.upgrade[1] });
    expect(ranBeforeFailure(message, 1, 1, 'statement')).toEqual({ executed: [], failed: b.upgrade[0] });
    // A failing BEGIN (or the clock's SET) of the file's first step: nothing of it ran.
    expect(ranBeforeFailure(message, 2, 4, 'begin')).toEqual({ executed: [], failed: c.upgrade[0] });
  });

  it('counts every statement as run when the record or the COMMIT after the last one failed', () => {
    for (const part of ['record', 'commit'] as const) {
      expect(ranBeforeFailure(message, 1, 3, part)).toEqual({ executed: b.upgrade.map((s) => ({ line: s.line, text: s.text })), failed: undefined });
    }
  });
});
