#!/usr/bin/env node
/**
 * Bundle the `mtool` command line into `dist/cli/` after tsc has built `dist/` (`npm run build`).
 *
 * Why: a command loaded ~70 of mtool's own ES modules one by one; resolving, reading and linking
 * them was a large part of a no-op `migrate`. The bundle has one file per entry plus shared
 * chunks, and every lazy `await import('./x.js')` becomes a chunk, so a command still loads only
 * what it uses.
 *
 * What stays out of the bundle, imported from tsc's output instead (`../schema/index.js` ...):
 * - the public modules (`mtool`, `mtool/schema`, `mtool/seed`, `mtool/plugin`: src/index.ts,
 *   src/config-api.ts, src/errors.ts, src/schema/**, src/seed/**, src/plugin/**): user configs and
 *   models import them from the package, and the CLI must see the same module instances — the
 *   database registry, `instanceof ColumnBuilder` / `IndexBuilder`, error brands;
 * - every module those import statically (found by a first esbuild pass): a module the public API
 *   loads must exist once. `mtool/seed` logs through src/main/log.ts, whose level, JSON mode and
 *   registered secrets the CLI sets. Except the statement splitter (src/parser/**, which `mtool`
 *   re-exports): pure functions with no state or classes of their own (their errors come from the
 *   shared src/errors.ts), so the CLI carries its own copy in its chunks. A command that parses
 *   nothing (a no-op `migrate`, `status`) then loads no parser module: the configuration loader
 *   imports src/config-api.ts instead of the root module when the configuration imports only its
 *   names (src/main/config/module-loader.ts), and the six ES modules of the splitter cost ~5 ms;
 * - npm packages other than {@link BUNDLED_PACKAGES} and {@link VENDORED}: loaded from
 *   node_modules as before.
 *
 * The npm packages a `migrate` or `status` loads on every run come with the bundle: resolving and
 * reading their ~100 small CommonJS files one by one cost 20-40 ms per command.
 * - The drivers and the logger ({@link VENDORED}: pg, mysql2, better-sqlite3, pino) are each
 *   bundled into one CommonJS file, `dist/cli/vendor-<name>-<hash>.cjs`, which
 *   src/main/startup/vendor.ts runs with V8's code cache (the part of their cost that bundling
 *   leaves: compiling their code again on every run). The dialects' `import('pg')`,
 *   `import('mysql2/promise')` and `import('better-sqlite3')` reach them through a
 *   small generated module ({@link vendoredModules}); the logger through
 *   src/main/startup/bundled-pino.ts, which gets the file name as `MTOOL_VENDOR_PINO`. Bundled
 *   pg's `lib/stream.js` runs with the global `Response` hidden (see {@link pgWithoutCloudflareProbe}),
 *   and bundled mysql2 loads `tls` and its error table only when used ({@link LAZY_REQUIRES}).
 * - sade, small and needed to read the command line at all, is bundled into the CLI's chunks.
 *
 * `src/schema/schema-io.ts` is bundled although it lives under `src/schema/`: it is not public
 * API, no public module imports it, and it holds no class or state; bundled, its lazy import of
 * the dialect registry reaches the bundled dialects instead of a second copy in `dist/dialects/`.
 *
 * Node 20 compiles every ES module from source on every run, so the chunks of the ES module
 * build are then rewritten into script chunks ({@link toScriptChunk}), which
 * src/main/startup/script-chunks.ts runs with V8's code cache. The two ES module entries, built
 * on their own, load them: `dist/cli/bin.js` (the executable; it answers `--version` itself)
 * runs `cli.js`, and `dist/cli/parse-worker.js`, the worker-pool entry found by
 * `new URL('./parse-worker.js', import.meta.url)` from whichever chunk holds the pool, runs
 * `parse-worker-main.js`.
 *
 * All outputs sit directly in `dist/cli/` (no subfolders), so the rewritten `../<path>.js`
 * specifiers are right for every chunk.
 *
 *   node scripts/bundle-cli.mjs
 */
import { build, transformSync } from 'esbuild';
import { chmodSync, existsSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const src = join(root, 'src');
const dist = join(root, 'dist');
const outdir = join(dist, 'cli');
const BUNDLED_ANYWAY = new Set(['src/schema/schema-io.ts']);

/** The public modules, as paths relative to the package root with forward slashes. */
function publicRoots() {
  const under = (folder) =>
    readdirSync(join(root, folder), { recursive: true })
      .map((name) => `${folder}/${String(name).split(sep).join('/')}`)
      .filter((path) => path.endsWith('.ts') && !path.endsWith('.d.ts'));
  return ['src/index.ts', 'src/config-api.ts', 'src/errors.ts', ...under('src/schema'), ...under('src/seed'), ...under('src/plugin')].filter(
    (path) => !BUNDLED_ANYWAY.has(path),
  );
}

/** The public modules and everything they import statically (type-only imports are erased). */
async function keptOutModules() {
  const roots = publicRoots();
  const { metafile } = await build({ absWorkingDir: root, entryPoints: roots, bundle: true, write: false, metafile: true, format: 'esm', platform: 'node', packages: 'external', outdir, logLevel: 'silent' });
  const kept = new Set();
  const todo = [...roots];
  while (todo.length > 0) {
    const path = todo.pop();
    if (kept.has(path)) continue;
    kept.add(path);
    for (const edge of metafile.inputs[path]?.imports ?? []) if (!edge.external && edge.kind === 'import-statement') todo.push(edge.path);
  }
  // The statement splitter is bundled too (see the header).
  for (const path of kept) if (path.startsWith('src/parser/')) kept.delete(path);
  return kept;
}

const keptOut = await keptOutModules();

/** Marks relative imports that resolve into a kept-out module as external `../<path>.js`. */
const publicModules = {
  name: 'mtool-public-modules',
  setup(b) {
    b.onResolve({ filter: /^\.\.?\// }, (args) => {
      if (args.kind === 'entry-point') return undefined;
      const rel = relative(root, resolve(args.resolveDir, args.path).replace(/\.js$/, '.ts'));
      if (rel.startsWith('..') || isAbsolute(rel)) return undefined;
      const path = rel.split(sep).join('/');
      if (!keptOut.has(path)) return undefined;
      const built = path.replace(/^src\//, '').replace(/\.ts$/, '.js');
      if (!existsSync(join(dist, built))) return { errors: [{ text: `${args.path} stays out of the CLI bundle but dist/${built} is missing: run tsc first` }] };
      return { path: `../${built}`, external: true };
    });
  },
};

/**
 * npm packages bundled into the CLI's chunks, with every package they import: the argument
 * parser, and the module lexer that finds a plain JavaScript configuration's imports. (The
 * drivers and the logger go to vendor files, {@link VENDORED}; better-sqlite3's JavaScript only:
 * its native addon stays in node_modules, where the SQLite driver finds it and hands it over as
 * `nativeBinding`, src/dialects/sqlite/driver.ts.) Neither bundled nor
 * vendored: chdb (native); piscina (its worker file is found by path); esbuild (a binary);
 * and the packages no common command loads on every run (yaml, tinyglobby, @clickhouse/client,
 * undici, prom-client, pg-query-stream): they stay as they are, loaded from node_modules.
 */
const BUNDLED_PACKAGES = new Set(['sade', 'es-module-lexer']);
/**
 * Packages bundled into `vendor-<name>-<hash>.cjs` files (see the header): the specifier mtool's
 * code imports, keyed by the file's name. The hash in the file name is what keeps a code cache
 * from meeting another build's source.
 */
const VENDORED = { pg: 'pg', mysql2: 'mysql2/promise', 'better-sqlite3': 'better-sqlite3', pino: 'pino' };
/** Optional packages that bundled ones require only on paths mtool never takes: left external, never resolved at build time. */
const NEVER_BUNDLED = new Set(['pg-native', 'pg-cloudflare']);
const BUILTINS = new Set(builtinModules);

function packageName(specifier) {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
}

/**
 * Bundles {@link BUNDLED_PACKAGES} and whatever a package imports (so a vendor file holds its
 * package's dependencies); leaves every other package and the builtins external.
 */
const npmPackages = {
  name: 'mtool-npm-packages',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.kind === 'entry-point') return undefined;
      const name = packageName(args.path);
      if (args.path.startsWith('node:') || BUILTINS.has(name)) return { path: args.path, external: true };
      if (NEVER_BUNDLED.has(name)) return { path: args.path, external: true };
      const fromPackage = args.importer.includes(`${sep}node_modules${sep}`);
      if (fromPackage || BUNDLED_PACKAGES.has(name)) return undefined;
      return { path: args.path, external: true };
    });
  },
};

/**
 * pg decides at load time whether it runs in a Cloudflare Worker: on Node 20, which has no
 * `navigator`, it then constructs a `Response`, and that first touch of the global loads Node's
 * bundled undici (fetch): about 30 ms of every PostgreSQL command, for a check that can only say
 * "no" in a Node CLI. The bundled copy of `pg/lib/stream.js` therefore runs with the global
 * `Response` removed and puts the property back (the same lazy getter, untouched) right after;
 * the module body is synchronous, so no other code sees the gap. If pg stops probing this way
 * the file is bundled as it is, with a warning.
 */
const pgWithoutCloudflareProbe = {
  name: 'mtool-pg-without-cloudflare-probe',
  setup(b) {
    b.onLoad({ filter: /[\\/]node_modules[\\/]pg[\\/]lib[\\/]stream\.js$/ }, (args) => {
      const code = readFileSync(args.path, 'utf8');
      if (!code.includes('new Response(')) {
        return { contents: code, loader: 'js', warnings: [{ text: 'pg/lib/stream.js no longer constructs a Response: drop pgWithoutCloudflareProbe from scripts/bundle-cli.mjs' }] };
      }
      const contents = [
        "const mtoolResponse = Object.getOwnPropertyDescriptor(globalThis, 'Response');",
        'if (mtoolResponse?.configurable) delete globalThis.Response;',
        'try {',
        code,
        '} finally {',
        "  if (mtoolResponse?.configurable) Object.defineProperty(globalThis, 'Response', mtoolResponse);",
        '}',
      ].join('\n');
      return { contents, loader: 'js' };
    });
  },
};

/**
 * Modules mysql2 loads at start-up that a session needs only on its way to TLS or to an error:
 * Node's `tls` (~5 ms: `_tls_wrap`, secure contexts and their dependencies, for a plain TCP
 * session) and its table of about 2000 error codes, by name and by number (~3 ms to build, read only to name a
 * server error or to classify one in a pool). In the bundled copy each such
 * `const X = require('...')` becomes an object that loads the module on its first property read
 * (every use here is a property read: `Tls.connect`, `Tls.TLSSocket`, `Errors.ER_...`,
 * `ErrorCodeToName[code]`). A file that no longer holds the line is bundled as it is, with a
 * warning.
 */
const LAZY_REQUIRES = {
  'mysql2/lib/base/connection.js': ["const Tls = require('tls');"],
  'mysql2/lib/auth_plugins/sha256_password.js': ["const Tls = require('tls');"],
  'mysql2/lib/packets/packet.js': ["const ErrorCodeToName = require('../constants/errors.js');"],
  'mysql2/lib/base/pool.js': ["const Errors = require('../constants/errors.js');"],
  'mysql2/lib/commands/server_handshake.js': ["const Errors = require('../constants/errors.js');"],
};

const lazyRequires = {
  name: 'mtool-lazy-requires',
  setup(b) {
    const byFile = new Map(Object.entries(LAZY_REQUIRES).map(([file, lines]) => [join(root, 'node_modules', ...file.split('/')), lines]));
    b.onLoad({ filter: /[\\/]node_modules[\\/]mysql2[\\/]lib[\\/]/ }, (args) => {
      const lines = byFile.get(args.path);
      if (!lines) return undefined;
      let contents = readFileSync(args.path, 'utf8');
      const warnings = [];
      for (const line of lines) {
        const m = /^const (\w+) = require\(('[^']+')\);$/.exec(line);
        if (!contents.includes(line)) {
          warnings.push({ text: `${relative(root, args.path)} no longer holds \`${line}\`: update LAZY_REQUIRES in scripts/bundle-cli.mjs` });
          continue;
        }
        contents = contents.replace(line, `let mtoolLoaded_${m[1]}; const ${m[1]} = new Proxy({}, { get: (_, key) => (mtoolLoaded_${m[1]} ??= require(${m[2]}))[key] });`);
      }
      return { contents, loader: 'js', warnings };
    });
  },
};

/**
 * `import('pg')`, `import('mysql2/promise')` and `import('better-sqlite3')` in mtool's code become this module: it runs the
 * package's vendor file and exports what the package exports (its own data properties, read from
 * node_modules now; getters such as pg's `native` are left out, as reading one loads pg-native).
 */
function vendoredModules(files) {
  const bySpecifier = new Map(Object.entries(VENDORED).map(([name, specifier]) => [specifier, files[name]]));
  const loader = join(src, 'main', 'startup', 'vendor.ts');
  return {
    name: 'mtool-vendored-modules',
    setup(b) {
      b.onResolve({ filter: /^[^./]/ }, (args) => {
        if (!bySpecifier.has(args.path) || args.importer.includes(`${sep}node_modules${sep}`)) return undefined;
        return { path: args.path, namespace: 'mtool-vendor' };
      });
      b.onLoad({ filter: /.*/, namespace: 'mtool-vendor' }, (args) => {
        const descriptors = Object.getOwnPropertyDescriptors(createRequire(join(root, 'package.json'))(args.path));
        const names = Object.keys(descriptors).filter((key) => 'value' in descriptors[key] && key !== 'default' && /^[A-Za-z_$][\w$]*$/.test(key));
        const contents = [
          `import { loadVendor } from ${JSON.stringify(loader)};`,
          `const vendored = loadVendor(${JSON.stringify(bySpecifier.get(args.path))});`,
          'export default vendored;',
          ...names.map((key) => `export const ${key} = vendored.${key};`),
        ].join('\n');
        return { contents, loader: 'js', resolveDir: root };
      });
    },
  };
}

/** SCRIPT_CHUNK in src/main/startup/script-chunks.ts: a script chunk's first line, and its function's parameters. */
const SCRIPT_CHUNK = { marker: '//mtool-chunk ', head: '(function (exports, require, module, __load, __mtoolMeta) {', tail: '\n})' };

/**
 * Rewrite a chunk of the ES module build, in place, into a script chunk, which
 * src/main/startup/script-chunks.ts runs with V8's code cache: a first line listing the chunks
 * and the other modules it imports statically, then one function. `import(` becomes `__load(`
 * and `import.meta` becomes `__mtoolMeta` (same lengths, so the source map still points right),
 * found by TypeScript's parser, not by pattern; esbuild turns the static imports and exports
 * into `require` and `module.exports`, and carries the source map over.
 * @throws Error naming the chunk where it cannot be rewritten (top-level await, a name the
 * function's parameters would shadow, non-ASCII text).
 */
function toScriptChunk(path, chunkNames) {
  const name = path.split(sep).pop();
  let code = readFileSync(path, 'utf8').replace(/\n\/\/# sourceMappingURL=[^\n]*\n?$/, '\n');
  const taken = ['__load', '__mtoolMeta'].filter((param) => new RegExp(`\\b${param}\\b`).test(code));
  if (taken.length > 0) throw new Error(`bundle-cli: ${name} uses ${taken.join(', ')}, which its script chunk's function would shadow`);
  const source = ts.createSourceFile(name, code, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  const edits = [];
  const visit = (node) => {
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) edits.push({ at: node.expression.getStart(source), text: '__load' });
    if (ts.isMetaProperty(node) && node.keywordToken === ts.SyntaxKind.ImportKeyword) edits.push({ at: node.getStart(source), text: '__mtoolMeta' });
    ts.forEachChild(node, visit);
  };
  visit(source);
  const header = { chunks: [], imports: [] };
  for (const statement of source.statements) {
    if (!(ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) || !statement.moduleSpecifier) continue;
    const specifier = statement.moduleSpecifier.text;
    if (chunkNames.has(specifier)) header.chunks.push(specifier);
    else if (!specifier.startsWith('node:') && !BUILTINS.has(specifier)) header.imports.push(specifier);
  }
  for (const { at, text } of edits.sort((a, b) => b.at - a.at)) code = code.slice(0, at) + text + code.slice(at + text.length);
  const map = readFileSync(`${path}.map`);
  let out;
  try {
    out = transformSync(`${code}//# sourceMappingURL=data:application/json;base64,${map.toString('base64')}\n`, {
      format: 'cjs', platform: 'node', target: 'node20', charset: 'ascii', loader: 'js', sourcefile: name, sourcemap: 'external', logLevel: 'silent',
    });
  } catch (error) {
    throw new Error(`bundle-cli: ${name} cannot become a script chunk: ${error.message}`);
  }
  const text = `${SCRIPT_CHUNK.marker}${JSON.stringify(header)}\n${SCRIPT_CHUNK.head}\n${out.code}${SCRIPT_CHUNK.tail}\n//# sourceMappingURL=${name}.map\n`;
  if ([...text].some((char) => char.charCodeAt(0) > 0x7f)) throw new Error(`bundle-cli: script chunk ${name} is not ASCII; src/main/startup/script-chunks.ts reads chunks as latin1`);
  // Two lines (the header and the function's head) before the chunk's code.
  const outMap = JSON.parse(out.map);
  outMap.mappings = `;;${outMap.mappings}`;
  outMap.file = name;
  writeFileSync(path, text);
  writeFileSync(`${path}.map`, JSON.stringify(outMap));
}

// Written beside dist/cli and swapped in when complete: the tests and benches of other work on
// the same tree run dist/cli/bin.js while a build runs, and emptying dist/cli first left it
// missing for the whole build. (Beside it, at the same depth, so `../<path>.js` still holds.)
const staging = join(dist, `cli.next-${process.pid}`);
const retired = join(dist, `cli.old-${process.pid}`);
rmSync(staging, { recursive: true, force: true });

const require = createRequire(join(root, 'package.json'));
const vendor = await build({
  absWorkingDir: root,
  entryPoints: Object.fromEntries(Object.entries(VENDORED).map(([name, specifier]) => [`vendor-${name}`, require.resolve(specifier)])),
  entryNames: '[name]-[hash]',
  outExtension: { '.js': '.cjs' },
  // Node's module wrapper around each file (VENDOR_WRAPPER in src/main/startup/vendor.ts), so
  // the loader compiles the text as read; ASCII, so it reads it as latin1.
  banner: { js: '(function (exports, require, module, __filename, __dirname) {' },
  footer: { js: '})' },
  // No comments (some are not ASCII; less to read), licence comments in a .LEGAL.txt beside it.
  charset: 'ascii',
  minifyWhitespace: true,
  legalComments: 'linked',
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  outdir: staging,
  plugins: [npmPackages, pgWithoutCloudflareProbe, lazyRequires],
  sourcemap: true,
  sourcesContent: false,
  metafile: true,
  logLevel: 'warning',
});
/** Vendor file name by package name (`pg` -> `vendor-pg-AB12CD34.cjs`). */
const vendorFiles = {};
for (const [file, output] of Object.entries(vendor.metafile.outputs)) {
  const name = output.entryPoint && Object.keys(VENDORED).find((key) => output.entryPoint === relative(root, require.resolve(VENDORED[key])).split(sep).join('/'));
  if (name) vendorFiles[name] = file.split('/').pop();
}
const missing = Object.keys(VENDORED).filter((name) => !vendorFiles[name]);
if (missing.length > 0) throw new Error(`bundle-cli: no vendor file was written for ${missing.join(', ')}`);
for (const file of Object.values(vendorFiles)) {
  if (readFileSync(join(staging, file)).some((byte) => byte > 0x7f)) throw new Error(`bundle-cli: ${file} is not ASCII; src/main/startup/vendor.ts reads vendor files as latin1`);
}

const result = await build({
  absWorkingDir: root,
  // The command line (bin.js runs it) and the workers (parse-worker.js and snapshot-worker.js run
  // them): see the entries below.
  entryPoints: { cli: 'src/main/cli.ts', 'parse-worker-main': 'src/workers/parse-worker.ts', 'snapshot-worker-main': 'src/main/snapshot/snapshot-worker.ts' },
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  outdir: staging,
  plugins: [publicModules, vendoredModules(vendorFiles), npmPackages],
  // sade and mri's ES module builds: no CommonJS wrappers, hence no shared runtime-helpers chunk
  // that every chunk (`--help` included) would import.
  mainFields: ['module', 'main'],
  define: { MTOOL_VENDOR_PINO: JSON.stringify(vendorFiles.pino) },
  // Maps name the source modules of every chunk (tests read them to see what a command loaded);
  // without their contents: the sources ship beside them in the repository, not in the package.
  sourcemap: true,
  sourcesContent: false,
  metafile: true,
  logLevel: 'warning',
});
const chunkFiles = Object.keys(result.metafile.outputs).filter((file) => file.endsWith('.js'));
const chunkNames = new Set(chunkFiles.map((file) => `./${file.split('/').pop()}`));
for (const file of chunkFiles) toScriptChunk(resolve(root, file), chunkNames);

// The ES module entries, each a file of its own (no chunk shared with the command line): the
// executable, with the code-cache loader and the `--version` answer; the worker entries, found by
// `new URL('./parse-worker.js', import.meta.url)` (and `./snapshot-worker.js`) from whichever
// chunk holds the pool (the snapshot thread).
const entries = await build({
  absWorkingDir: root,
  entryPoints: { bin: 'src/main/bin.ts', 'parse-worker': 'src/main/startup/parse-worker-entry.ts', 'snapshot-worker': 'src/main/startup/snapshot-worker-entry.ts' },
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  outdir: staging,
  plugins: [publicModules, npmPackages],
  sourcemap: true,
  sourcesContent: false,
  metafile: true,
  logLevel: 'warning',
});

// The relative specifiers above hold only if nothing was written into a subfolder.
const nested = [...Object.keys(result.metafile.outputs), ...Object.keys(entries.metafile.outputs), ...Object.keys(vendor.metafile.outputs)].filter((file) => dirname(resolve(root, file)) !== staging);
if (nested.length > 0) throw new Error(`bundle-cli: outputs must sit directly in dist/cli/, found ${nested.join(', ')}`);
chmodSync(join(staging, 'bin.js'), 0o755);
if (existsSync(outdir)) renameSync(outdir, retired);
renameSync(staging, outdir);
rmSync(retired, { recursive: true, force: true });
