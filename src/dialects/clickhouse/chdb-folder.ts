import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { processExists } from '../../process-exists.js';

/**
 * A chdb data folder that another process's ClickHouse engine holds: one engine per folder, and
 * the other one (most often another mtool run) keeps it until it ends.
 */
export class ChdbFolderBusyError extends Error {
  readonly folder: string;
  readonly pid: number;

  constructor(folder: string, pid: number) {
    super(`the chdb folder '${folder}' is in use by another process (pid ${pid}, likely another mtool run)`);
    this.name = 'ChdbFolderBusyError';
    this.folder = folder;
    this.pid = pid;
  }
}

/**
 * The pid of another live process whose ClickHouse engine has `folder` open, read from the
 * `status` file the engine keeps there while it runs (it removes the file when it stops; one that
 * crashed leaves it behind with a dead pid, and the next engine takes the folder over).
 *
 * Asked before opening a folder because libchdb, when the folder's lock is refused, writes the
 * server's raw "Cannot lock file ... Another server instance" line to stderr from native code,
 * where mtool can neither catch nor silence it.
 */
export async function otherHolderOf(folder: string): Promise<number | undefined> {
  let text: string;
  try {
    text = await readFile(join(folder, 'status'), 'utf8');
  } catch {
    return undefined;
  }
  const pid = Number(/^PID:\s*(\d+)\s*$/m.exec(text)?.[1]);
  if (!Number.isSafeInteger(pid) || pid <= 0 || pid === process.pid) return undefined;
  return processExists(pid) ? pid : undefined;
}
