import { dirname } from 'node:path';
import { chainHasCode, errorChain } from '../error-chain.js';

/** better-sqlite3's codes for a file another connection kept locked past the busy timeout (extended codes included). */
const BUSY_CODES = ['SQLITE_BUSY', 'SQLITE_BUSY_RECOVERY', 'SQLITE_BUSY_SNAPSHOT', 'SQLITE_BUSY_TIMEOUT'] as const;

/** True when SQLite gave up waiting for another connection's lock on the database file ("database is locked"). */
export function isBusy(error: unknown): boolean {
  return chainHasCode(error, BUSY_CODES);
}

/**
 * What to do about "database is locked": which file, what holds it, how long mtool waited and
 * the URL option that makes it wait longer. In the default rollback-journal mode a process
 * writing much (a long migration) keeps even readers out until it commits.
 */
export function busyHint(file: string, timeoutMs: number): string {
  const waited = timeoutMs % 1000 === 0 ? `${timeoutMs / 1000} s` : `${timeoutMs} ms`;
  return (
    `the database file '${file}' is locked by another process writing to it (another migrate, or any program holding a write transaction), ` +
    `still after waiting ${waited} (the busy timeout): run the command again once that is done, or let it wait longer with the URL's timeout option, in seconds (e.g. ?timeout=30)`
  );
}

/**
 * True when SQLite could not write the database file (SQLITE_READONLY and its extended codes) or
 * create its journal beside it (SQLITE_CANTOPEN, a folder it may not write).
 */
export function isUnwritable(error: unknown): boolean {
  return [...errorChain(error)].some((e) => typeof e.code === 'string' && /^SQLITE_(READONLY|CANTOPEN)/.test(e.code));
}

/** What to do about "attempt to write a readonly database" / "unable to open database file": which file and folder. */
export function unwritableHint(file: string): string {
  return `mtool must be able to write the database file '${file}' and its folder '${dirname(file)}' (SQLite writes its journal beside the file): check their owner, permissions and attributes (lsattr), and that the file system is not mounted read-only`;
}
