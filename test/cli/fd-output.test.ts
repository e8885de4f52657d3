import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MTOOL_BIN } from '../support/cli.js';

/**
 * The executable writes standard output and error with fs.writeSync (no stream objects at
 * start-up): a reader that goes away ends the output quietly, and a non-blocking pipe that is
 * full hands the rest to Node's stream, in order.
 */
describe('FdOutput', () => {
  afterEach(() => {
    vi.doUnmock('node:fs');
    vi.resetModules();
  });

  async function withWriteSync(impl: (fd: number, bytes: Buffer, offset: number) => number) {
    vi.resetModules();
    vi.doMock('node:fs', async (original) => ({ ...(await original<typeof import('node:fs')>()), writeSync: impl }));
    return (await import('../../src/main/startup/fd-output.js')).FdOutput;
  }

  it('writes all of a text, in as many calls as the descriptor takes', async () => {
    const got: Buffer[] = [];
    const FdOutput = await withWriteSync((_fd, bytes, offset) => {
      const n = Math.min(3, bytes.length - offset);
      got.push(Buffer.from(bytes.subarray(offset, offset + n)));
      return n;
    });
    const out = new FdOutput(1);
    expect(out.write('hello, wörld\n')).toBe(true);
    expect(got.length).toBe(5);
    expect(Buffer.concat(got).toString()).toBe('hello, wörld\n');
    const flushed = vi.fn();
    out.flush(flushed);
    expect(flushed).toHaveBeenCalledOnce();
  });

  it('hands the rest to the stream when a non-blocking pipe is full, and everything after it', async () => {
    const direct: string[] = [];
    let calls = 0;
    const FdOutput = await withWriteSync((_fd, bytes, offset) => {
      if (++calls === 1) {
        direct.push(bytes.subarray(offset, offset + 4).toString());
        return 4;
      }
      throw Object.assign(new Error('EAGAIN: resource temporarily unavailable, write'), { code: 'EAGAIN' });
    });
    const streamed: string[] = [];
    const write = vi.spyOn(process.stdout, 'write').mockImplementation(((chunk: string | Uint8Array, cb?: () => void) => {
      streamed.push(Buffer.from(chunk).toString());
      if (typeof cb === 'function') cb();
      return true;
    }) as typeof process.stdout.write);
    try {
      const out = new FdOutput(1);
      out.write('first line\n');
      out.write('second line\n');
      const flushed = vi.fn();
      out.flush(flushed);
      expect(direct).toEqual(['firs']);
      expect(streamed.join('')).toBe('t line\nsecond line\n');
      expect(flushed).toHaveBeenCalledOnce();
    } finally {
      write.mockRestore();
    }
  });

  it('stops writing, without an error, once the reader has gone (EPIPE)', async () => {
    let calls = 0;
    const FdOutput = await withWriteSync(() => {
      calls++;
      throw Object.assign(new Error('EPIPE: broken pipe, write'), { code: 'EPIPE' });
    });
    const out = new FdOutput(1);
    expect(out.write('a\n')).toBe(false);
    expect(out.write('b\n')).toBe(false);
    expect(calls).toBe(1);
  });

  it('rethrows any other write error', async () => {
    const FdOutput = await withWriteSync(() => {
      throw Object.assign(new Error('EIO: i/o error, write'), { code: 'EIO' });
    });
    expect(() => new FdOutput(2).write('x')).toThrow(/EIO/);
  });
});

describe('mtool output into a pipe that is closed', () => {
  it('`mtool --help` into a closed pipe exits 0 with nothing on stderr', async () => {
    const child = spawn(process.execPath, [MTOOL_BIN, '--help'], { stdio: ['ignore', 'pipe', 'pipe'] });
    // Closed before mtool has started: its first write meets EPIPE.
    child.stdout.destroy();
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });
});
