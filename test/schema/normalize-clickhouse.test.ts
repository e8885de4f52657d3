import { describe, expect, it } from 'vitest';
import { normalizeClickHouseEngine, normalizeClickHouseKey } from '../../src/schema/normalize-clickhouse.js';

describe('ClickHouse key clauses', () => {
  it('spells parenthesized strings, bare lists and arrays the same', () => {
    for (const spelling of ['(a, b)', 'a, b', '((a), b)', ' ( a ,\n b ) ', ['a', 'b'], ['(a)', 'b'], ['a, b']]) {
      expect(normalizeClickHouseKey(spelling)).toBe('a, b');
    }
  });

  it('keeps parentheses that belong to an expression, a call or a string', () => {
    expect(normalizeClickHouseKey('(a) + (b)')).toBe('(a) + (b)');
    expect(normalizeClickHouseKey('toYYYYMM(d)')).toBe('toYYYYMM(d)');
    expect(normalizeClickHouseKey('(intHash32(id), toDate(ts))')).toBe('intHash32(id), toDate(ts)');
    expect(normalizeClickHouseKey("(a, concat(b, ', ('))")).toBe("a, concat(b, ', (')");
    expect(normalizeClickHouseKey("(a, 'it\\'s, (x')")).toBe("a, 'it\\'s, (x'");
  });

  it('reads an empty key as tuple() and an absent clause as null', () => {
    expect(normalizeClickHouseKey([])).toBe('tuple()');
    expect(normalizeClickHouseKey('()')).toBe('tuple()');
    expect(normalizeClickHouseKey('tuple()')).toBe('tuple()');
    expect(normalizeClickHouseKey(undefined)).toBeNull();
    expect(normalizeClickHouseKey(null)).toBeNull();
  });
});

describe('ClickHouse engines', () => {
  it('always carry an argument list', () => {
    expect(normalizeClickHouseEngine('MergeTree')).toBe('MergeTree()');
    expect(normalizeClickHouseEngine(' MergeTree() ')).toBe('MergeTree()');
    expect(normalizeClickHouseEngine('ReplacingMergeTree(ver)')).toBe('ReplacingMergeTree(ver)');
    expect(normalizeClickHouseEngine("ReplicatedMergeTree('/t/{shard}',\n  '{replica}')")).toBe("ReplicatedMergeTree('/t/{shard}', '{replica}')");
  });
});
