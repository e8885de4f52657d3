import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toIsoUtc } from '../../src/main/engine/tracking-store.js';

/** What toIsoUtc gave for `YYYY-MM-DDTHH:MM:SS.mmmZ` text before its shortcut: the Date's ISO form, or the text when Date refuses it. */
function throughDate(text: string): string {
  const date = new Date(text);
  return Number.isNaN(date.getTime()) ? text : date.toISOString();
}

const pad = (n: number, width: number) => String(n).padStart(width, '0');

describe('toIsoUtc', () => {
  it('returns ISO text of any field values exactly as going through Date would (the shortcut changes nothing)', () => {
    const text = fc
      .tuple(
        fc.integer({ min: 0, max: 9999 }),
        fc.integer({ min: 0, max: 13 }),
        fc.integer({ min: 0, max: 32 }),
        fc.integer({ min: 0, max: 24 }),
        fc.integer({ min: 0, max: 60 }),
        fc.integer({ min: 0, max: 60 }),
        fc.integer({ min: 0, max: 999 }),
      )
      .map(([y, mo, d, h, mi, s, ms]) => `${pad(y, 4)}-${pad(mo, 2)}-${pad(d, 2)}T${pad(h, 2)}:${pad(mi, 2)}:${pad(s, 2)}.${pad(ms, 3)}Z`);
    fc.assert(fc.property(text, (t) => toIsoUtc(t) === throughDate(t)), { numRuns: 5000 });
  });

  it('normalises the values a tracking table may hold', () => {
    expect(toIsoUtc('2026-11-21T08:30:00.123Z')).toBe('2026-11-21T08:30:00.123Z');
    expect(toIsoUtc('2026-04-31T00:00:00.000Z')).toBe('2026-05-01T00:00:00.000Z');
    expect(toIsoUtc('2026-01-01T24:00:00.000Z')).toBe('2026-01-02T00:00:00.000Z');
    expect(toIsoUtc('2026-01-02 03:04:05.1+02')).toBe('2026-01-02T01:04:05.100Z');
    expect(toIsoUtc('2026-01-02 03:04:05')).toBe('2026-01-02T03:04:05.000Z');
    expect(toIsoUtc(new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 6)))).toBe('2026-01-02T03:04:05.006Z');
    expect(toIsoUtc('not a time')).toBe('not a time');
  });
});
