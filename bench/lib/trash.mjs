// Files a bench removes between timed runs (a default mtool apply of 1000 migrations leaves 1000
// snapshot files) are set aside here and deleted only when the bench ends.
//
// Why not delete them at once: this VM's root is ext4 without a journal, and such an ext4, each
// time it picks an inode for a new file, passes over every inode freed in the last minute or so
// (recently_deleted() in fs/ext4/ialloc.c; five minutes while the freed inode's table block is
// not yet written back). Right after a run's 1000 files are deleted, the next run's file
// creations cost 0.2-0.8 ms each instead of ~0.04 ms (measured: 1000 creates took 43 ms with
// nothing freed, 823 ms ten seconds after 5000 files were deleted, 215-231 ms 30-50 s after). That
// cost comes from the bench's own cleanup, lands only on the tool that writes files, and a user's
// next `migrate` would not meet it.
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const bin = join(fileURLToPath(new URL('..', import.meta.url)), '.work', '.trash');
let count = 0;

/** Set `path` (a file or a folder under bench/.work) aside for {@link emptyTrash}; nothing when it is not there. */
export function trash(path) {
  if (!existsSync(path)) return;
  mkdirSync(bin, { recursive: true });
  renameSync(path, join(bin, `${process.pid}-${Date.now().toString(36)}-${count++}`));
}

/**
 * Delete what was set aside, by this bench and by any earlier one that was stopped before its
 * end. Call it once the timed runs are over.
 */
export function emptyTrash() {
  rmSync(bin, { recursive: true, force: true });
}
