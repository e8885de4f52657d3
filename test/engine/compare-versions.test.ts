import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareVersions } from '../../src/main/engine/planner.js';

const byNumber = (a: string, b: string): number => (BigInt(a) < BigInt(b) ? -1 : BigInt(a) > BigInt(b) ? 1 : 0);

describe('compareVersions', () => {
  it('orders digit strings as numbers, whatever their lengths and leading zeros (the same-length shortcut included)', () => {
    const version = fc.stringMatching(/^\d{1,6}$/);
    fc.assert(fc.property(version, version, (a, b) => compareVersions(a, b) === byNumber(a, b)), { numRuns: 5000 });
    expect(compareVersions('0010', '0009')).toBe(1);
    expect(compareVersions('10000', '9999')).toBe(1);
    expect(compareVersions('0001', '1')).toBe(0);
    expect(compareVersions('0002', '0002')).toBe(0);
  });
});
