import { describe, expect, it } from 'vitest';
import { RunContext } from '../../src/main/run-context.js';

describe('RunContext', () => {
  it('runs cleanups once, newest first, even when one fails', async () => {
    const run = new RunContext();
    const order: string[] = [];
    run.onCleanup(() => void order.push('close pool'));
    run.onCleanup(async () => {
      order.push('release lock');
      throw new Error('lock table gone');
    });
    const remove = run.onCleanup(() => void order.push('never'));
    remove();
    const [errors, again] = await Promise.all([run.cleanup(), run.cleanup()]);
    expect(order).toEqual(['release lock', 'close pool']);
    expect(errors.map((e) => (e as Error).message)).toEqual(['lock table gone']);
    expect(again).toEqual([]);
  });

  it('starts a cleanup registered after the cleanups began (a lock taken as the signal came) at once', async () => {
    const run = new RunContext();
    await run.cleanup();
    let released = false;
    run.onCleanup(async () => {
      released = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(released).toBe(true);
  });

  it('aborts its signal with the reason', () => {
    const run = new RunContext();
    expect(run.signal.aborted).toBe(false);
    run.abort('SIGTERM');
    expect(run.signal.aborted).toBe(true);
    expect((run.signal.reason as Error).message).toBe('SIGTERM');
  });
});
