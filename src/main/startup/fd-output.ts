import { fstatSync, writeSync } from 'node:fs';

/**
 * Standard output and standard error written straight to their file descriptors.
 *
 * The first touch of `process.stdout` or `process.stderr` builds a stream (a `net.Socket` for a
 * pipe, a `tty.WriteStream`, a `SyncWriteStream` for a file) and loads Node's stream modules:
 * about 3 ms of every command here, more than some commands spend on their work. Writing with
 * `fs.writeSync` is what Node does for files anyway, and is synchronous like Node's own writes
 * to pipes and terminals on Linux and macOS.
 *
 * One case still goes through the stream: a descriptor in non-blocking mode whose pipe is full
 * (`EAGAIN`: the rest and everything after it is handed to the stream, which waits for the
 * reader). A reader that went away (`EPIPE`, `mtool status | head`) or a terminal that hung up
 * (`EIO`) ends the output quietly, as a closed pipe ends any Unix tool's output.
 */
export class FdOutput {
  readonly #fd: 1 | 2;
  #stream: NodeJS.WriteStream | undefined;
  #closed = false;

  constructor(fd: 1 | 2) {
    this.#fd = fd;
    // Windows consoles and pipes need Node's own stream (console encoding, asynchronous pipes).
    if (process.platform === 'win32') this.#stream = fd === 1 ? process.stdout : process.stderr;
  }

  write(text: string): boolean {
    if (this.#closed) return false;
    if (this.#stream) return this.#stream.write(text);
    const bytes = Buffer.from(text, 'utf8');
    let done = 0;
    try {
      while (done < bytes.length) done += writeSync(this.#fd, bytes, done);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // EIO on a terminal: it is gone (SSH session dropped, SIGHUP) and nothing can be shown any
      // more. On a file it is a failing disk, which must not pass unnoticed.
      if (code === 'EPIPE' || (code === 'EIO' && this.#onCharacterDevice())) {
        this.#closed = true;
        return false;
      }
      if (code !== 'EAGAIN') throw error;
      this.#stream = this.#fd === 1 ? process.stdout : process.stderr;
      return this.#stream.write(bytes.subarray(done));
    }
    return true;
  }

  #onCharacterDevice(): boolean {
    try {
      return fstatSync(this.#fd).isCharacterDevice();
    } catch {
      return false;
    }
  }

  /** Calls `done` once everything written has left the process (at once unless a stream took over). */
  flush(done: () => void): void {
    if (this.#stream) this.#stream.write('', done);
    else done();
  }
}
