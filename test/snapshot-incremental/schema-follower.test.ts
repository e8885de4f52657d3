import { describe, expect, it } from 'vitest';
import { SchemaFollower } from '../../src/main/snapshot/schema-follower.js';
import type { SchemaWindow } from '../../src/main/snapshot/schema-window.js';
import type { MigrationFile } from '../../src/parser/migration-file.js';
import { emptySchema } from '../../src/schema/ir.js';

/**
 * When a SchemaFollower reads: against a fake window that records how many migrations each of
 * its reads (flushes) covered. What each read returns: schema-window.test.ts; real databases:
 * deferred-tail.test.ts.
 */
function follower() {
  const flushes: number[] = [];
  let waiting = 0;
  const window = {
    schema: emptySchema(),
    get waiting() {
      return waiting;
    },
    follow: async () => {
      waiting++;
      return true;
    },
    flush: async () => {
      flushes.push(waiting);
      waiting = 0;
    },
  } as unknown as SchemaWindow;
  const windows = { open: async () => window };
  const f = SchemaFollower.start({} as never, windows as never, {} as never, {} as never);
  return { f, flushes };
}

const files = (n: number, from = 0): MigrationFile[] => Array.from({ length: n }, (_, i) => ({ filename: `app__${String(from + i + 1).padStart(4, '0')}_t.sql` }) as MigrationFile);
const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

describe('SchemaFollower: when it reads', () => {
  it('waits for 30 committed migrations before a read, and reads those left at the end', async () => {
    const { f, flushes } = follower();
    f.committed(files(10));
    f.committed(files(10, 10));
    await settle();
    expect(flushes).toEqual([]);
    f.committed(files(10, 20));
    await settle();
    expect(flushes).toEqual([30]);
    f.committed(files(10, 30));
    await settle();
    expect(flushes).toEqual([30]);
    await f.finish([]);
    expect(flushes).toEqual([30, 10]);
    expect(f.reads.atEnd).toBe(10);
  });

  it('reads fewer once the oldest of them has waited 200 ms, as more commit', async () => {
    const { f, flushes } = follower();
    f.committed(files(5));
    await new Promise((resolve) => setTimeout(resolve, 220));
    expect(flushes).toEqual([]);
    f.committed(files(5, 5));
    await settle();
    expect(flushes).toEqual([10]);
    await f.finish([]);
    expect(f.reads.atEnd).toBe(0);
  });

  it('at the end also reads the migrations that ran without being reported', async () => {
    const { f, flushes } = follower();
    f.committed(files(10));
    await f.finish(files(2, 10));
    expect(flushes).toEqual([12]);
    expect(f.reads.atEnd).toBe(12);
  });
});
