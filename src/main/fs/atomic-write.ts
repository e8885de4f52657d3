import { randomBytes } from 'node:crypto';
import { open, readFile, rename, unlink } from 'node:fs/promises';
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
  const temp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  const handle = await open(temp, 'wx', options.mode ?? 0o644);
  try {
    await handle.writeFile(bytes);
    if (options.sync !== false) await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    if (options.verify) {
      const back = await readFile(temp);
      if (!back.equals(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength))) throw new Error(`verification of ${temp} failed: the bytes read back differ`);
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
