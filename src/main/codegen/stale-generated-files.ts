import { open, readdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { syncPath } from '../fs/atomic-write.js';

/**
 * Files of an earlier `generate-models` run that this run does not write: after a table is
 * renamed or dropped its old `<table>.ts` would stay in the folder, out of `index.ts` but still
 * compiled by tsc and by `export-models` (which then fails on a model of a table that is gone).
 *
 * Only top-level `.ts` files that start with `mark` (the generated-file mark, the same test that
 * lets a run overwrite a file) are candidates: hand-written files, subfolders, symlinks and other
 * files are never touched. A candidate whose name equals a written name but for case is kept: on
 * a case-insensitive file system it is the file just written.
 * @example await staleGeneratedFiles('/app/models', ['index.ts', 'orders.ts'], GENERATED_MARK) // ['order.ts']
 */
export async function staleGeneratedFiles(dir: string, written: readonly string[], mark: string): Promise<string[]> {
  const keep = new Set(written.map((name) => name.toLowerCase()));
  const entries = await readdir(dir, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
  const stale: string[] = [];
  for (const entry of entries) {
    if (!entry.isFile() || !entry.name.endsWith('.ts') || keep.has(entry.name.toLowerCase())) continue;
    if ((await generatedFileState(join(dir, entry.name), mark)) === 'generated') stale.push(entry.name);
  }
  return stale.sort();
}

/**
 * Remove `names` from `dir` (one already gone is no error), then sync the folder so the removals
 * are as durable as the atomic writes before them.
 */
export async function removeFiles(dir: string, names: readonly string[]): Promise<void> {
  if (names.length === 0) return;
  for (const name of names) {
    await unlink(join(dir, name)).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
    });
  }
  await syncPath(dir, 'folder');
}

/**
 * What `path` holds for a generate-models run: nothing (`absent`), a file whose first bytes are
 * `mark` (`generated`: it may be overwritten or removed), or anything else (`other`: a hand-written
 * file, a folder, a file that cannot be read). Reads only the mark's length: the folder may hold
 * large files.
 */
export async function generatedFileState(path: string, mark: string): Promise<'absent' | 'generated' | 'other'> {
  const want = Buffer.from(mark, 'utf8');
  let file;
  try {
    file = await open(path, 'r');
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'absent' : 'other';
  }
  try {
    const buffer = Buffer.alloc(want.length);
    const { bytesRead } = await file.read(buffer, 0, want.length, 0);
    return bytesRead === want.length && buffer.equals(want) ? 'generated' : 'other';
  } catch {
    return 'other'; // a folder (EISDIR) or an unreadable file
  } finally {
    await file.close();
  }
}
