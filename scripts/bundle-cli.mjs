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
 *   registered secrets the CLI sets; `mtool` loads the statement splitter, which the CLI would
 *   otherwise load a second time from its own chunk;
 * - npm packages (`packages: 'external'`), loaded from node_modules as before.
 * `src/schema/schema-io.ts` is bundled although it lives under `src/schema/`: it is not public
 * API, no public module imports it, and it holds no class or state; bundled, its lazy import of
 * the dialect registry reaches the bundled dialects instead of a second copy in `dist/dialects/`.
 *
 * All outputs sit directly in `dist/cli/` (no subfolders), so the rewritten `../<path>.js`
 * specifiers are right for every chunk. `dist/cli/parse-worker.js` is the worker-pool entry,
 * found by `new URL('./parse-worker.js', import.meta.url)` from whichever chunk holds the pool.
 *
 *   node scripts/bundle-cli.mjs
 */
import { build } from 'esbuild';
import { chmodSync, existsSync, readdirSync, rmSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

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

rmSync(outdir, { recursive: true, force: true });
const result = await build({
  absWorkingDir: root,
  entryPoints: { bin: 'src/main/bin.ts', 'parse-worker': 'src/workers/parse-worker.ts' },
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  outdir,
  packages: 'external',
  plugins: [publicModules],
  // Maps name the source modules of every chunk (tests read them to see what a command loaded);
  // without their contents: the sources ship beside them in the repository, not in the package.
  sourcemap: true,
  sourcesContent: false,
  metafile: true,
  logLevel: 'warning',
});

// The relative specifiers above hold only if nothing was written into a subfolder.
const nested = Object.keys(result.metafile.outputs).filter((file) => dirname(resolve(root, file)) !== outdir);
if (nested.length > 0) throw new Error(`bundle-cli: outputs must sit directly in dist/cli/, found ${nested.join(', ')}`);
chmodSync(join(outdir, 'bin.js'), 0o755);
