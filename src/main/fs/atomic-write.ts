import { randomBytes } from 'node:crypto';
import { open, readFile, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

export interface AtomicWriteOptions {
  /** Refuse to replace an existing file (the check and the rename are one `link`-free step: see below). */
  exclusive?: boolean;
  /** Read the temp file back and compare before the rename (spec: snapshots "temp file, verify, rename"). */
  verify?: boolean;
  mode?: number;
}

/**
 * Write `data` to `path` so that a reader, or a crash at any moment, sees either the old file or
 * the whole new one: temp file in the same folder, fsync, rename, fsync of the folder.
 * @example await writeFileAtomic('migrations/app/app__0001_init.sql', text, { exclusive: true })
 */
export async function writeFileAtomic(path: string, data: string | Uint8Array, options: AtomicWriteOptions = {}): Promise<void> {
  const dir = dirname(path);
  const temp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  let handle = await open(temp, 'wx', options.mode ?? 0o644);
  try {
    await handle.writeFile(bytes);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    if (options.verify) {
      const back = await readFile(temp);
      if (!back.equals(Buffer.from(bytes))) throw new Error(`verification of ${temp} failed: the bytes read back differ`);
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
  handle = await open(dir, 'r');
  try {
    await handle.sync().catch(() => undefined); // not every filesystem syncs directories
  } finally {
    await handle.close();
  }
}
