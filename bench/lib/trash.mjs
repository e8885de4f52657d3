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
// next `migrate` would not meet it. The deletion at the end is followed by a sync (the window is
// longest while the freed inodes' table blocks are not written back), and the next bench to start
// within a minute of it waits the rest of that minute (waitOutTrash).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

const work = join(fileURLToPath(new URL('..', import.meta.url)), '.work');
const bin = join(work, '.trash');
/** When the trash was last emptied (ms since the epoch). */
const stamp = join(work, '.trash-emptied');
/** How long after a deletion new files still pay for it: ext4's window (60 s) and a margin. */
const WINDOW_MS = 65_000;
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
  if (!existsSync(bin)) return;
  rmSync(bin, { recursive: true, force: true });
  spawnSync('sync');
  mkdirSync(work, { recursive: true });
  writeFileSync(stamp, String(Date.now()));
}

/**
 * Before a bench's first timed run: wait until a minute has passed since a bench last emptied
 * the trash (nothing when none did, or long ago), saying so through `log`.
 */
export async function waitOutTrash(log = (line) => console.error(line)) {
  let emptied;
  try {
    emptied = Number(readFileSync(stamp, 'utf8'));
  } catch {
    return;
  }
  const wait = emptied + WINDOW_MS - Date.now();
  if (!(wait > 0)) return;
  log(`waiting ${(wait / 1000).toFixed(0)} s: an earlier bench deleted its files ${((Date.now() - emptied) / 1000).toFixed(0)} s ago, and file creation here pays for that for about a minute (bench/lib/trash.mjs)`);
  await sleep(wait);
}
