import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileWithCodeCache, type CodeCacheUse } from './code-cache.js';

export { codeCachePath, type CodeCacheUse } from './code-cache.js';

/**
 * The npm packages the CLI bundle carries as CommonJS bundles of their own
 * (`dist/cli/vendor-<name>-<hash>.cjs`, written by scripts/bundle-cli.mjs, each inside Node's
 * module wrapper: {@link VENDOR_WRAPPER}): pg, mysql2 and pino.
 * They run through `vm.Script` with V8's code cache (./code-cache.ts), so that a command does not
 * compile the same driver code again on every run (Node 20 has no compile cache for modules).
 */

/**
 * A vendor file holds its CommonJS code inside Node's module wrapper, added when it was built, so
 * that V8 compiles the text as read: wrapping it here would copy megabytes of source (mysql2) into
 * the heap on every run. Read as latin1 (the files are ASCII), a large file also stays outside
 * the JavaScript heap.
 */
export const VENDOR_WRAPPER = { head: '(function (exports, require, module, __filename, __dirname) {', tail: '})' } as const;

/** Files already run, by path, with what became of their code cache. */
const modules = new Map<string, { exports: unknown; cache: CodeCacheUse }>();

/** How the file's code cache was used when it ran in this process (undefined: it did not run). */
export function codeCacheUse(path: string): CodeCacheUse | undefined {
  return modules.get(path)?.cache;
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
  const { script, cache } = compileWithCodeCache(path, source);
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
