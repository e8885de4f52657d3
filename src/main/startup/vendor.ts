import { readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';

/**
 * The npm packages the CLI bundle carries as CommonJS bundles of their own
 * (`dist/cli/vendor-<name>-<hash>.cjs`, written by scripts/bundle-cli.mjs, each inside Node's
 * module wrapper: {@link VENDOR_WRAPPER}): pg, mysql2 and pino.
 * They run through `vm.Script` with V8's code cache, so that a command does not compile the same
 * driver code again on every run (Node 20 has no compile cache for modules).
 *
 * The cache of a file lies beside it, named after the V8 version, the architecture and the file's
 * size and modification time, so it never meets other source or another V8. It is written when
 * the process exits after a run that found none or whose cache V8 rejected (other V8 flags, a
 * damaged file), so it holds every function that run compiled, not only the top level; later
 * runs read it. Writing is best effort: where it fails (a read-only install), runs compile as
 * without a cache.
 */

/**
 * A vendor file holds its CommonJS code inside Node's module wrapper, added when it was built, so
 * that V8 compiles the text as read: wrapping it here would copy megabytes of source (mysql2) into
 * the heap on every run. Read as latin1 (the files are ASCII), a large file also stays outside
 * the JavaScript heap.
 */
export const VENDOR_WRAPPER = { head: '(function (exports, require, module, __filename, __dirname) {', tail: '})' } as const;

/** Code caches this process still has to write, by cache path. */
const pending = new Map<string, Script>();
/** Files already run, by path, with what became of their code cache. */
const modules = new Map<string, { exports: unknown; cache: CodeCacheUse }>();

/** What a run did with the code cache of a file: none found, taken, or refused by V8. */
export type CodeCacheUse = 'missing' | 'accepted' | 'rejected';

/** How the file's code cache was used when it ran in this process (undefined: it did not run). */
export function codeCacheUse(path: string): CodeCacheUse | undefined {
  return modules.get(path)?.cache;
}

function writeCaches(): void {
  for (const [path, script] of pending) {
    const temp = `${path}.${process.pid}.tmp`;
    try {
      writeFileSync(temp, script.createCachedData(), { flag: 'wx' });
      renameSync(temp, path); // atomic: a concurrent reader finds the old file or the new one
    } catch {
      rmSync(temp, { force: true });
    }
  }
  pending.clear();
}

/** Where the code cache of `path` is (or would be) stored. */
export function codeCachePath(path: string): string {
  const { size, mtimeMs } = statSync(path);
  return `${path}.${process.versions.v8}-${process.arch}-${size}-${Math.trunc(mtimeMs)}.v8cache`;
}

/**
 * Run a wrapped CommonJS file ({@link VENDOR_WRAPPER}, ASCII) with V8's code cache and return its
 * `module.exports`; each file runs once per process, like a required module. Its `require` is the
 * file's own (builtins, node_modules).
 * @throws Error naming the file when it does not start with the wrapper.
 * @example const pg = runCachedCommonJs('/app/node_modules/mtool/dist/cli/vendor-pg-AB12CD34.cjs')
 */
export function runCachedCommonJs(path: string): unknown {
  const loaded = modules.get(path);
  if (loaded) return loaded.exports;
  const source = readFileSync(path, 'latin1');
  if (!source.startsWith(VENDOR_WRAPPER.head)) {
    throw new Error(`${path} is not a vendor file of the CLI bundle (it must start with Node's module wrapper); rebuild with \`npm run build\``);
  }
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
  const mod = { exports: {} as unknown, cache };
  modules.set(path, mod);
  const wrapper = script.runInThisContext() as (exports: unknown, require: NodeRequire, module: { exports: unknown }, filename: string, dirname: string) => void;
  try {
    wrapper(mod.exports, createRequire(path), mod, path, dirname(path));
  } catch (error) {
    modules.delete(path);
    throw error;
  }
  return mod.exports;
}

/**
 * Run one of the CLI bundle's vendor files.
 * @param file its name in the folder of this module (dist/cli), e.g. `vendor-pg-AB12CD34.cjs`
 */
export function loadVendor(file: string): unknown {
  return runCachedCommonJs(join(dirname(fileURLToPath(import.meta.url)), file));
}
