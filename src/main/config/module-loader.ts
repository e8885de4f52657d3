/**
 * Import a user's TypeScript or JavaScript module (configuration file, model file) without a
 * build step: esbuild bundles it to one ESM file, which is then imported. An isolated file that
 * is plain JavaScript is imported as it is instead (plain-module.ts), its imports of `mtool`
 * pointed at this installation, without starting esbuild.
 *
 * Two sandbox modes (spec: Configuration loading rule 3):
 * - `isolated`: the only imports allowed are `mtool` and `mtool/...`. Relative files, node
 *   builtins, packages, `require(...)` and computed `import(...)` are refused with a
 *   MtoolConfigError naming the import and the file. `MTOOL_DISABLE_SANDBOX=1` lifts this.
 * - `in-package`: relative imports are bundled, packages stay external and resolve from the
 *   project, because the bundle is written under `<root>/.mtool/cache/` (and removed after the
 *   import). `.mtool/` is mtool's folder already; the cache file lives only during the import.
 *
 * In both modes `mtool` and `mtool/<sub>` are rewritten to this installation's own modules
 * (from its package.json `exports`), so a project needs no `node_modules/mtool`; and the entry
 * file and every bundled file must really lie inside the root (realpath check: no `../`
 * traversal, no symlink leading out).
 *
 * Known limits: `import.meta.url`, `__dirname` in bundled code point at the temporary bundle;
 * tsconfig `paths` aliases are treated as packages (external).
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { MtoolConfigError, isMtoolError } from '../../errors.js';
import { writeFileAtomic } from '../fs/atomic-write.js';
import { mtoolPackage } from '../../version.js';

export type SandboxMode = 'isolated' | 'in-package';

export interface ImportModuleOptions {
  /** Project root: the entry file and every bundled file must lie inside it. */
  root: string;
  sandbox: SandboxMode;
  /** Environment consulted for `MTOOL_DISABLE_SANDBOX` (default `process.env`). */
  env?: NodeJS.ProcessEnv;
}

/** This installation's own modules: specifier (`mtool`, `mtool/schema`) → file URL. */
let ownModulesCache: Map<string, string> | undefined;

/**
 * Map `mtool` and `mtool/<sub>` to this installation's files, from package.json `exports`.
 * Running from `dist/` they are the `.js` files; running from `src/` (tests) the `.ts` files.
 */
export function ownModules(): Map<string, string> {
  if (ownModulesCache) return ownModulesCache;
  // The package root is found by walking up, not by counting folders: this code runs from
  // src/main/config (tests), dist/main/config (tsc) and dist/cli (the CLI bundle).
  const { root: pkgRoot, manifest: pkg } = mtoolPackage();
  const fromSource = fileURLToPath(import.meta.url).endsWith('.ts');
  const base = join(pkgRoot, fromSource ? 'src' : 'dist');
  const map = new Map<string, string>();
  for (const [key, target] of Object.entries(pkg.exports ?? {})) {
    const file = typeof target === 'string' ? target : (target as { default?: unknown }).default;
    if (typeof file !== 'string' || !file.endsWith('.js')) continue;
    let path = resolve(pkgRoot, file);
    if (fromSource) path = resolve(base, relative(join(pkgRoot, 'dist'), path)).replace(/\.js$/, '.ts');
    map.set(key === '.' ? pkg.name : `${pkg.name}/${key.replace(/^\.\//, '')}`, pathToFileURL(path).href);
  }
  map.set('#errors', pathToFileURL(join(base, fromSource ? 'errors.ts' : 'errors.js')).href);
  map.set('#config-api', pathToFileURL(join(base, fromSource ? 'config-api.ts' : 'config-api.js')).href);
  ownModulesCache = map;
  return map;
}

function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

function shown(root: string, path: string): string {
  const rel = relative(root, path);
  return rel === '' || rel.startsWith('..') || isAbsolute(rel) ? path : rel;
}

const SANDBOX_HINT = "An isolated configuration file may only import 'mtool' and 'mtool/...'. Move other code into a module named by MTOOL_CONFIG_MODULE (imported normally), or set MTOOL_DISABLE_SANDBOX=1 while debugging.";

/**
 * Bundle and import one module under the given sandbox. Never connects to anything; the user's
 * module code runs once per call (each call imports a fresh bundle).
 * @returns the module's namespace (its exports).
 * @throws MtoolConfigError for a file outside the root, a refused import, a compile error, or an
 *   exception thrown while the module ran (wrapped, with the original as `cause`).
 * @example const ns = await importModule('/p/mtool.config.ts', { root: '/p', sandbox: 'isolated' });
 */
export async function importModule(file: string, opts: ImportModuleOptions): Promise<Record<string, unknown>> {
  const env = opts.env ?? process.env;
  const realRoot = await realpath(opts.root).catch(() => {
    throw new MtoolConfigError(`Project root ${opts.root} does not exist`);
  });
  const requested = resolve(opts.root, file);
  if (!inside(resolve(opts.root), requested)) throw new MtoolConfigError(`Refusing to load ${file}: it lies outside the project root ${opts.root}`);
  const entry = await realpath(requested).catch(() => {
    throw new MtoolConfigError(`Module ${shown(opts.root, requested)} does not exist`);
  });
  if (!inside(realRoot, entry)) {
    throw new MtoolConfigError(`Refusing to load ${shown(opts.root, requested)}: it is a symlink leading outside the project root (to ${entry})`);
  }
  const isolated = opts.sandbox === 'isolated' && env.MTOOL_DISABLE_SANDBOX !== '1';
  const entryShown = shown(realRoot, entry);
  const own = ownModules();

  const cacheDir = join(realRoot, '.mtool', 'cache');
  const source = await readFile(entry);
  const key = sha256(JSON.stringify([CACHE_FORMAT, entry, isolated, [...own]]) + '\0' + sha256(source));
  const cached = await readCachedBundle(cacheDir, key, realRoot);
  if (cached) return evaluate(cached, entryShown);
  if (isolated) {
    const ns = await importPlain(source, cacheDir, key, entryShown, own);
    if (ns) return ns;
  }

  const bundled = await bundle(entry, realRoot, entryShown, isolated, own);
  const code = await configApiDirectly(bundled.code, own);
  const inputs = bundled.inputs;
  const stored = await writeCachedBundle(cacheDir, key, code, inputs.filter((f) => f !== entry));
  if (stored) return evaluate(stored, entryShown);
  // The project folder is not writable: an isolated bundle has no external imports to resolve
  // from the project, so a temporary folder serves; an in-package one needs the project.
  if (!isolated) throw new MtoolConfigError(`Cannot write the compiled module of ${entryShown} to ${cacheDir}: make the folder writable`);
  const tempDir = await mkdtemp(join(tmpdir(), 'mtool-config-'));
  try {
    const file = join(tempDir, 'bundle.mjs');
    await writeFile(file, code, 'utf8');
    return await evaluate(file, entryShown);
  } finally {
    await rm(tempDir, { recursive: true, force: true });
  }
}

/**
 * Cache of compiled modules in `<root>/.mtool/cache/`: `<key>.mjs` is the bundle, `<key>.json`
 * lists every other file bundled into it with its SHA-256. The key covers the entry's content,
 * the sandbox mode and this installation's module paths, so a cached bundle is used only while
 * every input is byte-identical to what was checked: the sandbox verdict is never stale.
 * A warm run therefore never loads esbuild (whose import and service start cost 100+ ms).
 */
const CACHE_FORMAT = 2;

/**
 * The root module `mtool` re-exports the configuration API (src/config-api.ts) beside the
 * statement splitter, whose six modules cost ~5 ms to load, and a configuration usually imports
 * `databaseConfig` and `env` only. When every import of the root module in the bundle is a plain
 * `import { ... }` of names the configuration API exports, the bundle imports them from it
 * instead: the same bindings (the root module re-exports them; test/config/config-api-import.test.ts
 * checks), without loading the splitter. Any other use of the root module keeps it as it is.
 */
async function configApiDirectly(code: string, own: Map<string, string>): Promise<string> {
  const root = own.get('mtool');
  const api = own.get('#config-api');
  if (root === undefined || api === undefined) return code;
  const quoted = JSON.stringify(root);
  const uses = code.split(quoted).length - 1;
  if (uses === 0) return code;
  const statement = new RegExp(`import\\s*\\{([^}]*)\\}\\s*from\\s*${quoted.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')};`, 'g');
  const imports = [...code.matchAll(statement)];
  if (imports.length !== uses) return code;
  const available = new Set(Object.keys((await import(api)) as object));
  for (const [, list] of imports) {
    for (const item of list!.split(',')) {
      const name = item.trim().split(/\s+as\s+/)[0];
      if (name && !available.has(name)) return code;
    }
  }
  return code.split(quoted).join(JSON.stringify(api));
}

function sha256(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

async function readCachedBundle(cacheDir: string, key: string, realRoot: string): Promise<string | undefined> {
  const file = join(cacheDir, `${key}.mjs`);
  let manifest: { inputs: { path: string; sha256: string }[] };
  try {
    manifest = JSON.parse(await readFile(join(cacheDir, `${key}.json`), 'utf8'));
  } catch {
    return undefined;
  }
  // In parallel: a bundle of many model files has thousands of inputs to re-check.
  const fresh = await Promise.all(
    manifest.inputs.map(async (input) => {
      const bytes = await readFile(resolve(realRoot, input.path)).catch(() => undefined);
      return bytes !== undefined && sha256(bytes) === input.sha256;
    }),
  );
  if (fresh.includes(false)) return undefined;
  return existsSync(file) ? file : undefined;
}

async function writeCachedBundle(cacheDir: string, key: string, code: string, inputs: string[]): Promise<string | undefined> {
  try {
    const entries = await Promise.all(inputs.map(async (path) => ({ path: relative(dirname(dirname(cacheDir)), path), sha256: sha256(await readFile(path)) })));
    // Bundle first, manifest last: a reader finding the manifest always finds a whole bundle.
    const file = await writeBundleFile(cacheDir, key, code);
    await writeManifest(cacheDir, key, entries);
    return file;
  } catch {
    return undefined;
  }
}

/** The cache entry's bundle, without its manifest (a reader does not use it yet); its path. */
async function writeBundleFile(cacheDir: string, key: string, code: string): Promise<string> {
  await mkdir(cacheDir, { recursive: true });
  const file = join(cacheDir, `${key}.mjs`);
  await writeFileAtomic(file, code);
  return file;
}

/** The cache entry's manifest: the files bundled besides the entry, each with its SHA-256. */
async function writeManifest(cacheDir: string, key: string, inputs: { path: string; sha256: string }[]): Promise<void> {
  await writeFileAtomic(join(cacheDir, `${key}.json`), JSON.stringify({ inputs }));
}

/**
 * Each load re-runs the module (a config registers its databases as it runs): a fresh URL per
 * load, in the URL parser's form (as the module's import.meta.url gives it back).
 */
let loads = 0;
const loadUrl = (file: string): string => new URL(`${pathToFileURL(file).href}?load=${++loads}`).href;

async function evaluate(file: string, entryShown: string): Promise<Record<string, unknown>> {
  try {
    return await importWatched(loadUrl(file), entryShown);
  } catch (e) {
    throw loadFailed(e, entryShown);
  }
}

/**
 * Import a user's module, making a promise it rejects without handling (a secret fetched and
 * never awaited) an error of the load: unwatched, Node ends the process with its own stack trace
 * and exit code 1. Watched while the module runs and for one turn of the event loop after, when
 * Node reports such rejections; one the module handles within that time is no error.
 */
async function importWatched(url: string, entryShown: string): Promise<Record<string, unknown>> {
  const stray = new Map<Promise<unknown>, unknown>();
  const onUnhandled = (reason: unknown, promise: Promise<unknown>): void => void stray.set(promise, reason);
  const onHandled = (promise: Promise<unknown>): void => void stray.delete(promise);
  process.on('unhandledRejection', onUnhandled);
  process.on('rejectionHandled', onHandled);
  try {
    const ns = (await import(url)) as Record<string, unknown>;
    await new Promise((resolve) => setImmediate(resolve));
    for (const reason of stray.values()) {
      const message = reason instanceof Error ? reason.message : String(reason);
      throw new MtoolConfigError(`Loading ${entryShown} failed: a promise it created was rejected and never handled: ${message}`, { cause: reason });
    }
    return ns;
  } finally {
    process.off('unhandledRejection', onUnhandled);
    process.off('rejectionHandled', onHandled);
  }
}

function loadFailed(e: unknown, entryShown: string): Error {
  if (isMtoolError(e)) return e;
  const message = e instanceof Error ? e.message : String(e);
  return new MtoolConfigError(`Loading ${entryShown} failed: ${message}`, { cause: e });
}

/** Set by the first statement of a module {@link importPlain} writes, to the URL it was imported by: the module began to run. */
const STARTED = Symbol.for('mtool.module-loader.started');

/**
 * An isolated file that is plain JavaScript, imported without esbuild (plain-module.ts): written
 * to the cache with the isolated banner on its first line (its own lines keep their numbers) and
 * imported; the manifest that lets later runs use it is written once it has run. `undefined`
 * when it is not plain JavaScript, or when it did not parse or link as such: none of it ran
 * (its first statement marks {@link STARTED}), and esbuild then compiles it as before, naming
 * whatever is wrong with it. An error once it runs is the file's own, reported as any load's.
 */
async function importPlain(source: Buffer, cacheDir: string, key: string, entryShown: string, own: Map<string, string>): Promise<Record<string, unknown> | undefined> {
  let body: string | undefined;
  try {
    const { plainModule } = await import('./plain-module.js');
    body = await plainModule(source.toString('utf8').replace(/^\uFEFF/, ''), own);
  } catch {
    // Only a way to skip esbuild: whatever fails here, esbuild does the work.
  }
  if (body === undefined) return undefined;
  const mark = `globalThis[Symbol.for(${JSON.stringify(STARTED.description)})] = import.meta.url;`;
  const code = await configApiDirectly(`${isolatedBanner(entryShown, own).replaceAll('\n', ' ')} ${mark} ${body}`, own);
  let file: string;
  try {
    file = await writeBundleFile(cacheDir, key, code);
  } catch {
    return undefined;
  }
  const url = loadUrl(file);
  let ns: Record<string, unknown>;
  try {
    ns = await importWatched(url, entryShown);
  } catch (e) {
    if ((globalThis as Record<symbol, unknown>)[STARTED] === url) throw loadFailed(e, entryShown);
    await rm(file, { force: true }).catch(() => undefined);
    return undefined;
  }
  await writeManifest(cacheDir, key, []).catch(() => undefined);
  return ns;
}

/** The first lines of an isolated bundle: its `require`, which refuses whatever it is asked for. */
function isolatedBanner(entryShown: string, own: Map<string, string>): string {
  return (
    `import { MtoolConfigError as __MtoolConfigError } from ${JSON.stringify(own.get('#errors'))};\n` +
    `const require = (id) => { throw new __MtoolConfigError(${JSON.stringify(`${entryShown} loads `)} + JSON.stringify(String(id)) + ${JSON.stringify(` with a computed import() or require(): refused by the configuration sandbox. ${SANDBOX_HINT}`)}); };`
  );
}

/** Compile the entry and its bundled imports with esbuild, enforcing the sandbox at resolution. */
async function bundle(entry: string, realRoot: string, entryShown: string, isolated: boolean, own: Map<string, string>): Promise<{ code: string; inputs: string[] }> {
  const { build } = await import('esbuild');
  const plugin = {
    name: 'mtool-sandbox',
    setup(b: import('esbuild').PluginBuild) {
      // Isolated: every import is judged here. In-package: only bare specifiers (packages,
      // builtins, `mtool`, file: URLs); relative and absolute paths resolve natively in esbuild,
      // which is far faster over many files, and containment is checked once on the metafile.
      b.onResolve({ filter: isolated ? /.*/ : /^[^./]/ }, async (args) => {
        if ((args.pluginData as { mtoolInner?: boolean } | undefined)?.mtoolInner || args.kind === 'entry-point') return undefined;
        const importer = args.importer ? shown(realRoot, args.importer) : entryShown;
        const verb = args.kind === 'require-call' || args.kind === 'require-resolve' ? 'requires' : 'imports';
        const ownUrl = own.get(args.path);
        if (ownUrl && !args.path.startsWith('#')) {
          if (!existsSync(fileURLToPath(ownUrl))) {
            violation = new MtoolConfigError(`${importer} imports '${args.path}', but this mtool installation lacks its module (${fileURLToPath(ownUrl)}); reinstall or rebuild mtool`);
            return { errors: [{ text: violation.message }] };
          }
          return { path: ownUrl, external: true };
        }
        if (args.path === 'mtool' || args.path.startsWith('mtool/')) {
          const known = [...own.keys()].filter((k) => !k.startsWith('#'));
          violation = new MtoolConfigError(`${importer} imports '${args.path}', which mtool does not provide; available: ${known.join(', ')}`);
          return { errors: [{ text: violation.message }] };
        }
        if (isolated) {
          violation = new MtoolConfigError(`${importer} ${verb} '${args.path}': refused by the configuration sandbox (isolated file ${entryShown}). ${SANDBOX_HINT}`);
          return { errors: [{ text: violation.message }] };
        }
        const isPath = args.path.startsWith('.') || isAbsolute(args.path) || args.path.startsWith('file:');
        if (!isPath) return { path: args.path, external: true };
        const target = args.path.startsWith('file:') ? fileURLToPath(args.path) : args.path;
        const found = await b.resolve(target, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, pluginData: { mtoolInner: true } });
        if (found.errors.length > 0) return { errors: found.errors };
        const real = await realpath(found.path).catch(() => found.path);
        if (!inside(realRoot, real)) {
          violation = new MtoolConfigError(`${importer} ${verb} '${args.path}', which resolves outside the project root (to ${real}); refused (path traversal or a symlink leading out)`);
          return { errors: [{ text: violation.message }] };
        }
        return { path: real };
      });
    },
  };

  // Isolated: computed import()/require() become calls to this `require`, which refuses them
  // (esbuild rewrites dynamic import to require when 'dynamic-import' is unsupported).
  // In-package: a real `require` for CommonJS packages the bundle calls.
  const banner = isolated
    ? isolatedBanner(entryShown, own)
    : `import { createRequire as __mtoolCreateRequire } from 'node:module';\nconst require = __mtoolCreateRequire(import.meta.url);`;

  let code: string;
  let inputs: string[];
  let violation: MtoolConfigError | undefined;
  try {
    const result = await build({
      entryPoints: [entry],
      absWorkingDir: realRoot,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      write: false,
      logLevel: 'silent',
      banner: { js: banner },
      ...(isolated ? { supported: { 'dynamic-import': false } } : {}),
      metafile: true,
      plugins: [plugin],
    });
    code = result.outputFiles[0]!.text;
    inputs = Object.keys(result.metafile.inputs).map((p) => resolve(realRoot, p));
    violation = outsideRoot(result.metafile, realRoot);
    if (violation) throw violation;
  } catch (e) {
    if (violation) throw violation;
    const first = (e as { errors?: { text: string; location?: { file: string; line: number; column: number } | null }[] }).errors?.[0];
    const where = first?.location ? ` (${first.location.file}:${first.location.line}:${first.location.column + 1})` : '';
    throw new MtoolConfigError(`Could not compile ${entryShown}: ${first?.text ?? String(e)}${where}`, { cause: e });
  }

  return { code, inputs };
}

/**
 * The first bundled file that lies outside the root (esbuild reports real paths, so a symlink
 * leading out shows as such), named with the file that imports it.
 */
function outsideRoot(metafile: import('esbuild').Metafile, realRoot: string): MtoolConfigError | undefined {
  for (const path of Object.keys(metafile.inputs)) {
    const real = resolve(realRoot, path);
    if (inside(realRoot, real)) continue;
    const importer = Object.entries(metafile.inputs).find(([, input]) => input.imports.some((i) => i.path === path));
    const spec = importer?.[1].imports.find((i) => i.path === path)?.original ?? path;
    const who = importer ? shown(realRoot, resolve(realRoot, importer[0])) : 'a bundled file';
    return new MtoolConfigError(`${who} imports '${spec}', which resolves outside the project root (to ${real}); refused (path traversal or a symlink leading out)`);
  }
  return undefined;
}

/**
 * Resolve a package specifier (`@acme/db-config`, `pkg/sub`) from the project root the way the
 * bundler would (conditions `import`, `node`, `default`).
 * @returns the absolute file, or undefined when it does not resolve.
 */
export async function resolveSpecifier(specifier: string, root: string): Promise<string | undefined> {
  const { build } = await import('esbuild');
  let found: string | undefined;
  try {
    await build({
      stdin: { contents: `import ${JSON.stringify(specifier)};`, resolveDir: root, loader: 'js' },
      bundle: true,
      platform: 'node',
      format: 'esm',
      write: false,
      logLevel: 'silent',
      plugins: [
        {
          name: 'mtool-resolve-only',
          setup(b) {
                  b.onResolve({ filter: /.*/ }, async (args) => {
              if ((args.pluginData as { inner?: boolean } | undefined)?.inner) return undefined;
              if (args.importer === '<stdin>') {
                const r = await b.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, pluginData: { inner: true } });
                if (r.errors.length === 0 && !r.external) found = r.path;
              }
              return { path: args.path, external: true };
            });
          },
        },
      ],
    });
  } catch {
    return undefined;
  }
  return found;
}
