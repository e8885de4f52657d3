import { readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { Script } from 'node:vm';

/**
 * V8's code cache for code that mtool compiles itself (`vm.Script`): the CLI bundle's vendor
 * files (./vendor.ts) and its chunks (./script-chunks.ts). Node 20 has no compile cache for
 * modules, so this is how a command avoids compiling the same code again on every run.
 *
 * The cache of a file lies beside it, named after the V8 version, the architecture, the file's
 * size and modification time and its path, so it never meets other source, another V8 or another
 * place. It is written when
 * the process (or worker thread) exits after a run that found none or whose cache V8 rejected
 * (other V8 flags, a damaged file), so it holds every function that run compiled, not only the
 * top level; later runs read it. Writing is best effort and atomic: where it fails (a read-only
 * install), runs compile as without a cache.
 */

/** What a run did with the code cache of a file: none found, taken, or refused by V8. */
export type CodeCacheUse = 'missing' | 'accepted' | 'rejected';

/** Code caches this thread still has to write, by cache path. */
const pending = new Map<string, Script>();

function writeCaches(): void {
  for (const [path, script] of pending) {
    // Unique per thread too: worker threads share the process id.
    const temp = `${path}.${process.pid}-${Math.random().toString(36).slice(2)}.tmp`;
    try {
      writeFileSync(temp, script.createCachedData(), { flag: 'wx' });
      renameSync(temp, path); // atomic: a concurrent reader finds the old file or the new one
    } catch {
      rmSync(temp, { force: true });
    }
  }
  pending.clear();
}

/**
 * Where the code cache of `path` is (or would be) stored. The name holds a hash of the path
 * itself: V8 keeps the file name a cache was made under, so a cache copied with its install
 * (`cp -a`, a container image layer, both keeping size and time) would show the old place in
 * every stack trace.
 */
export function codeCachePath(path: string): string {
  const { size, mtimeMs } = statSync(path);
  return `${path}.${process.versions.v8}-${process.arch}-${size}-${Math.trunc(mtimeMs)}-${pathHash(path)}.v8cache`;
}

/** FNV-1a (32 bits) of a path, in base 36: no crypto module to load at start-up for it. */
function pathHash(path: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < path.length; i++) {
    hash ^= path.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(36);
}

/**
 * Compile `source`, the text of the file at `path`, with the file's code cache when there is one;
 * when there is none or V8 refuses it, the cache is written as this thread exits.
 * @example const { script } = compileWithCodeCache('/app/dist/cli/cli.js', text)
 */
export function compileWithCodeCache(path: string, source: string): { script: Script; cache: CodeCacheUse } {
  const cachePath = codeCachePath(path);
  let cachedData: Buffer | undefined;
  try {
    cachedData = readFileSync(cachePath);
  } catch {
    cachedData = undefined;
  }
  const script = new Script(source, { filename: path, cachedData });
  const cache: CodeCacheUse = cachedData === undefined ? 'missing' : script.cachedDataRejected ? 'rejected' : 'accepted';
  if (cache !== 'accepted') {
    if (pending.size === 0) process.once('exit', writeCaches);
    pending.set(cachePath, script);
  }
  return { script, cache };
}
