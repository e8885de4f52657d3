import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, linkSync, openSync, readSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { open, rename, unlink, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

export interface AtomicWriteOptions {
  /** Refuse to replace an existing file (the check and the rename are one `link`-free step: see below). */
  exclusive?: boolean;
  /** Read the temp file back and compare before the rename (spec: snapshots "temp file, verify, rename"). */
  verify?: boolean;
  mode?: number;
  /**
   * fsync the temp file before the rename and the folder after it (default true), so the new file
   * survives a power loss once the call returns. With `false` a crash of the process still leaves
   * the old file or the whole new one, but a crash of the machine may leave the new name with
   * missing or partial contents until the caller syncs (see {@link syncPath}).
   */
  sync?: boolean;
}

/**
 * Write `data` to `path` so that a reader, or a crash at any moment, sees either the old file or
 * the whole new one: temp file in the same folder, fsync, rename, fsync of the folder (the
 * fsyncs only with `sync`, the default).
 * @example await writeFileAtomic('migrations/app/app__0001_init.sql', text, { exclusive: true })
 */
export async function writeFileAtomic(path: string, data: string | Uint8Array, options: AtomicWriteOptions = {}): Promise<void> {
  const dir = dirname(path);
  const temp = tempPath(path);
  const bytes = asBuffer(data);
  const handle = await open(temp, options.verify ? 'wx+' : 'wx', options.mode ?? 0o644);
  try {
    try {
      await writeAll(handle, bytes);
      if (options.sync !== false) await handle.sync();
      // Read back through the same open file: the bytes any reader of the temp file gets.
      if (options.verify && !(await readsBack(handle, bytes))) throw new Error(`verification of ${temp} failed: the bytes read back differ`);
    } finally {
      await handle.close();
    }
    if (options.exclusive) {
      // rename() replaces silently; a hard link fails with EEXIST when the target exists,
      // so the existence check and the publish are one atomic step.
      const { link } = await import('node:fs/promises');
      await link(temp, path);
      await unlink(temp);
    } else {
      await rename(temp, path);
    }
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
  if (options.sync !== false) await syncPath(dir, 'folder');
}

/**
 * {@link writeFileAtomic} with blocking calls, for a worker thread that writes many files in a
 * row (snapshot-worker.ts): the same steps and guarantees, without a trip to the thread pool and
 * back for each of the five to seven calls a file takes.
 */
export function writeFileAtomicSync(path: string, data: string | Uint8Array, options: AtomicWriteOptions = {}): void {
  const dir = dirname(path);
  const temp = tempPath(path);
  const bytes = asBuffer(data);
  const fd = openSync(temp, options.verify ? 'wx+' : 'wx', options.mode ?? 0o644);
  try {
    try {
      for (let offset = 0; offset < bytes.length; ) offset += writeSync(fd, bytes, offset, bytes.length - offset, offset);
      if (options.sync !== false) fsyncSync(fd);
      if (options.verify && !readsBackSync(fd, bytes)) throw new Error(`verification of ${temp} failed: the bytes read back differ`);
    } finally {
      closeSync(fd);
    }
    if (options.exclusive) {
      linkSync(temp, path);
      unlinkSync(temp);
    } else {
      renameSync(temp, path);
    }
  } catch (error) {
    try {
      unlinkSync(temp);
    } catch {
      // Already gone, or never created.
    }
    throw error;
  }
  if (options.sync !== false) syncFolderSync(dir);
}

/**
 * The temp file beside `path`: a dot file (listings skip it), unique per process and call: the
 * pid, a random tag drawn once per thread (a pid is reused across machines sharing a folder, and
 * threads of one process share it), and a counter (a random draw per file cost ~40 us, a
 * noticeable share of a batch of small files). `wx` opens refuse a name taken all the same.
 */
function tempPath(path: string): string {
  tempTag ??= `${process.pid}.${randomBytes(6).toString('hex')}`;
  return join(dirname(path), `.${basename(path)}.${tempTag}.${(tempCount++).toString(36)}.tmp`);
}
let tempTag: string | undefined;
let tempCount = 0;

function syncFolderSync(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } catch {
    // A filesystem that cannot sync folders: see syncPath.
  } finally {
    closeSync(fd);
  }
}

/** {@link readsBack} for a blocking caller. */
function readsBackSync(fd: number, bytes: Buffer): boolean {
  const { memory, release } = readBackMemory(bytes.length + 1);
  try {
    let read = 0;
    while (read < bytes.length) {
      const n = readSync(fd, memory, read, memory.length - read, read);
      if (n === 0) break;
      read += n;
    }
    return sameBytes(memory, read, bytes);
  } finally {
    release();
  }
}

function asBuffer(data: string | Uint8Array): Buffer {
  return typeof data === 'string' ? Buffer.from(data, 'utf8') : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
}

/** Each call is one trip to the thread pool: one write for the whole buffer, as a rule. */
async function writeAll(handle: FileHandle, bytes: Buffer): Promise<void> {
  for (let offset = 0; offset < bytes.length; ) {
    const { bytesWritten } = await handle.write(bytes, offset, bytes.length - offset, offset);
    offset += bytesWritten;
  }
}

/** Memory for read-back verification, reused by one call at a time (files up to 16 MiB). */
let readBackReused: Buffer | undefined;
let readBackBusy = false;
const READ_BACK_REUSE_MAX = 16 * 1024 * 1024;

/**
 * `want` bytes of memory to read a file back into: the reused buffer when it is free (an async
 * read-back holds it across its awaits) and the file is not too big, else a fresh one. Fresh
 * buffers for every file of a batch cost more in page faults and garbage collection than the
 * reading itself.
 */
function readBackMemory(want: number): { memory: Buffer; release: () => void } {
  if (readBackBusy || want > READ_BACK_REUSE_MAX) return { memory: Buffer.allocUnsafe(want), release: () => undefined };
  if (!readBackReused || readBackReused.length < want) readBackReused = Buffer.allocUnsafe(Math.min(READ_BACK_REUSE_MAX, Math.max(want, 2 * (readBackReused?.length ?? 0))));
  readBackBusy = true;
  return {
    memory: readBackReused.subarray(0, want),
    release: () => {
      readBackBusy = false;
    },
  };
}

/** The `read` bytes at the start of `memory` are exactly `bytes`. */
function sameBytes(memory: Buffer, read: number, bytes: Buffer): boolean {
  return read === bytes.length && memory.subarray(0, read).equals(bytes);
}

/**
 * Whether the file holds exactly `bytes`: read back, asking for one byte more than expected
 * (a longer file returns it; a regular file reads short only at its end).
 */
async function readsBack(handle: FileHandle, bytes: Buffer): Promise<boolean> {
  const { memory, release } = readBackMemory(bytes.length + 1);
  try {
    let read = 0;
    while (read < bytes.length) {
      const { bytesRead } = await handle.read(memory, read, memory.length - read, read);
      if (bytesRead === 0) break;
      read += bytesRead;
    }
    return sameBytes(memory, read, bytes);
  } finally {
    release();
  }
}

/**
 * fsync a file, or a folder (its entries: renames and new names in it). A filesystem that cannot
 * sync folders is not an error; a file that cannot be synced is.
 * @example await syncPath('.mtool/schemas', 'folder')
 */
export async function syncPath(path: string, kind: 'file' | 'folder'): Promise<void> {
  const handle = await open(path, 'r');
  try {
    if (kind === 'file') await handle.sync();
    else await handle.sync().catch(() => undefined);
  } finally {
    await handle.close();
  }
}
