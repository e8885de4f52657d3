import { readFileSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { compileWithCodeCache, type CodeCacheUse } from './code-cache.js';

/**
 * Runs the CLI bundle's chunks with V8's code cache (./code-cache.ts). Node 20 compiles every ES
 * module from source on every run; scripts can carry a code cache. So scripts/bundle-cli.mjs
 * rewrites each chunk of esbuild's ES module build into a script chunk, and the ES module entries
 * (dist/cli/bin.js, dist/cli/parse-worker.js) run them through {@link importChunk}.
 *
 * A script chunk is ASCII and starts with one line naming what it imports statically, then one
 * function (its `import`/`export` statements turned into `require` and `module.exports`, its
 * `import(...)` into `__load(...)`, `import.meta` into `__mtoolMeta`):
 *
 *   //mtool-chunk {"chunks":["./chunk-AB12CD34.js"],"imports":["../errors.js"]}
 *   (function (exports, require, module, __load, __mtoolMeta) { ... })
 *
 * `require` is synchronous, but mtool's public modules (`../errors.js`, `../schema/ir.js` ...) are
 * ES modules that the CLI must share with user configs: before a chunk runs, every module that
 * the chunk and the chunks it needs import (`imports`) is loaded with `import()`, and `require`
 * hands out those instances. Each chunk runs once per thread, like a module.
 */
export const SCRIPT_CHUNK = { marker: '//mtool-chunk ', head: '(function (exports, require, module, __load, __mtoolMeta) {', tail: '\n})' } as const;

/** What a script chunk's first line lists: the chunks and the other modules it imports statically. */
interface ChunkHeader {
  chunks: string[];
  imports: string[];
}

interface ChunkFile {
  source: string;
  header: ChunkHeader;
}

type ChunkFunction = (exports: unknown, require: (specifier: string) => unknown, module: { exports: unknown }, load: (specifier: unknown) => Promise<unknown>, meta: { url: string }) => void;

const nodeRequire = createRequire(import.meta.url);
const BUILTINS = new Set(builtinModules);
/** Chunk files read (null: not a script chunk), by path. */
const files = new Map<string, ChunkFile | null>();
/** Chunks run (or running) in this thread, by path. */
const chunks = new Map<string, { exports: unknown; cache: CodeCacheUse }>();
/** ES modules imported for chunks, by resolved specifier, as their `require` hands them out. */
const modules = new Map<string, unknown>();

function chunkFile(path: string): ChunkFile | null {
  let file = files.get(path);
  if (file !== undefined) return file;
  const source = readFileSync(path, 'latin1');
  if (source.startsWith(SCRIPT_CHUNK.marker)) {
    const end = source.indexOf('\n');
    file = { source, header: JSON.parse(source.slice(SCRIPT_CHUNK.marker.length, end)) as ChunkHeader };
  } else {
    file = null;
  }
  files.set(path, file);
  return file;
}

/** Relative specifiers as resolved from a folder, by folder and specifier: most chunks of the bundle name `../errors.js`. */
const resolvedFrom = new Map<string, string>();

/** A specifier as `import()` from the chunk at `from` would resolve it: relative ones to a file URL. */
function resolved(specifier: string, from: string): string {
  if (!specifier.startsWith('.')) return specifier;
  const key = `${dirname(from)}\0${specifier}`;
  let url = resolvedFrom.get(key);
  if (url === undefined) {
    url = new URL(specifier, pathToFileURL(from)).href;
    resolvedFrom.set(key, url);
  }
  return url;
}

/** An ES module's namespace as a chunk's `require` hands it out: marked, so esbuild's helpers read `default` from it. */
function requirable(namespace: Record<string, unknown>): unknown {
  const view = Object.defineProperty({}, '__esModule', { value: true });
  for (const key of Object.keys(namespace)) Object.defineProperty(view, key, { get: () => namespace[key], enumerable: true });
  return view;
}

function requireChunk(path: string): unknown {
  const running = chunks.get(path);
  if (running) return running.exports;
  const file = chunkFile(path);
  if (!file) throw new Error(`${path} is not a script chunk of the CLI bundle; rebuild with \`npm run build\``);
  const { script, cache } = compileWithCodeCache(path, file.source);
  const mod = { exports: {} as unknown, cache };
  chunks.set(path, mod);
  const dir = dirname(path);
  const require = (specifier: string): unknown => {
    if (specifier.startsWith('./')) return requireChunk(join(dir, specifier));
    if (specifier.startsWith('node:') || BUILTINS.has(specifier)) return nodeRequire(specifier);
    const key = resolved(specifier, path);
    if (!modules.has(key)) throw new Error(`${path}: ${specifier} was not imported before the chunk ran (it is missing from the chunk's first line); rebuild with \`npm run build\``);
    return modules.get(key);
  };
  const load = (specifier: unknown): Promise<unknown> => {
    if (typeof specifier === 'string' && specifier.startsWith('./')) return importChunk(join(dir, specifier));
    return import(typeof specifier === 'string' ? resolved(specifier, path) : (specifier as string));
  };
  // `import.meta.url` made when first read: few chunks read it, and a file URL costs ~15 µs.
  let url: string | undefined;
  const meta = {
    get url(): string {
      return (url ??= pathToFileURL(path).href);
    },
  };
  try {
    (script.runInThisContext() as ChunkFunction)(mod.exports, require, mod, load, meta);
  } catch (error) {
    chunks.delete(path);
    throw error;
  }
  return mod.exports;
}

/**
 * Load a file of the CLI bundle the way `import()` would: a script chunk with the ES modules it
 * needs imported first and V8's code cache; any other file (an ES module, as in tsc's output,
 * where the entries find their own modules) with `import()`.
 * @param file its path or file URL
 * @example const { runCli } = await importChunk<typeof import('../cli.js')>(new URL('./cli.js', import.meta.url))
 */
export async function importChunk<T = unknown>(file: string | URL): Promise<T> {
  const path = file instanceof URL || file.startsWith('file:') ? fileURLToPath(file) : file;
  if (!chunks.has(path) && !chunkFile(path)) return (await import(pathToFileURL(path).href)) as T;
  const needed = new Set<string>();
  const seen = new Set<string>();
  const todo = [path];
  while (todo.length > 0) {
    const next = todo.pop()!;
    if (seen.has(next) || chunks.has(next)) continue;
    seen.add(next);
    const header = chunkFile(next)?.header;
    if (!header) throw new Error(`${next} is not a script chunk of the CLI bundle; rebuild with \`npm run build\``);
    for (const chunk of header.chunks) todo.push(join(dirname(next), chunk));
    for (const specifier of header.imports) {
      const key = resolved(specifier, next);
      if (!modules.has(key)) needed.add(key);
    }
  }
  await Promise.all([...needed].map(async (key) => modules.set(key, requirable((await import(key)) as Record<string, unknown>))));
  return requireChunk(path) as T;
}

/** How a script chunk's code cache was used when it ran in this thread (undefined: it did not run). */
export function chunkCodeCacheUse(file: string): CodeCacheUse | undefined {
  return chunks.get(file)?.cache;
}
