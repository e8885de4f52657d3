import { isAbsolute, resolve } from 'node:path';
import { MtoolError } from '../../errors.js';

/** Where an in-process chdb engine keeps its data. */
export interface ChdbTarget {
  /** An absolute data directory, or `:memory:` for a temporary one. */
  path: string;
}

const SHAPES = "'chdb://:memory:', 'chdb:///<folder relative to the project root>' or 'chdb:////<absolute folder>'";

/** True for URLs the chdb transport serves rather than the HTTP interface. */
export function isChdbUrl(url: string): boolean {
  return /^chdb:\/\//i.test(url.trim());
}

/**
 * Parse a `chdb://` URL, shaped like SQLite's:
 * - `chdb://:memory:` (also `chdb:///:memory:` and `chdb://`): a temporary data folder shared by
 *   the process's open `:memory:` connections and deleted when the last one closes;
 * - `chdb:///data/ch` → `<root>/data/ch` (relative to the project root);
 * - `chdb:////var/lib/ch` → `/var/lib/ch`.
 * No user, host or options: the engine runs inside this process.
 */
export function parseChdbUrl(url: string, root: string, databaseName?: string): ChdbTarget {
  const rest = url.trim().replace(/^chdb:\/\//i, '');
  const fail = (why: string) =>
    new MtoolError('MTOOL_URL', `${databaseName ? `Database '${databaseName}': ` : ''}${why}; use ${SHAPES}`, databaseName ? { database: databaseName } : {});
  if (rest.includes('?') || rest.includes('#')) throw fail('a chdb URL takes no options');
  if (rest === '' || rest === ':memory:' || rest === '/:memory:') return { path: ':memory:' };
  if (!rest.startsWith('/')) throw fail(`a chdb URL has no host or user (got 'chdb://${rest.split('/')[0]!.replace(/^.*@/, '***@')}')`);
  let path: string;
  try {
    path = decodeURIComponent(rest.slice(1));
  } catch {
    throw fail('the chdb URL has a malformed percent-escape');
  }
  if (path === '') throw fail('the chdb URL names no folder');
  return { path: isAbsolute(path) ? path : resolve(root, path) };
}
