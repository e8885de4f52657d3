import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package root (where src/ and dist/ are). */
const PACKAGE_ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Where the CLI bundle is written (scripts/bundle-cli.mjs). */
export const CLI_DIR = join(PACKAGE_ROOT, 'dist', 'cli');
/** The built binary the end-to-end tests drive, as users run it: the CLI bundle (`npm test` builds first). */
export const MTOOL_BIN = join(CLI_DIR, 'bin.js');
export const MODULE_TRACE = fileURLToPath(new URL('../cli/helpers/module-trace.mjs', import.meta.url));

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  cwd: string;
  env?: Record<string, string | undefined>;
  /** Extra node flags before the script, e.g. ['--import', MODULE_TRACE]. */
  nodeArgs?: string[];
  timeoutMs?: number;
}

/**
 * Run `node dist/cli/bin.js ...args` in `cwd` with no stdin. The environment is the test's minus
 * MTOOL_* variables (so a developer's settings do not leak in), plus `env`.
 */
export function runMtool(args: readonly string[], options: CliOptions): Promise<CliResult> {
  const env: Record<string, string | undefined> = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('MTOOL_') && key !== 'DATABASE_URL') env[key] = value;
  Object.assign(env, options.env);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...(options.nodeArgs ?? []), MTOOL_BIN, ...args], {
      cwd: options.cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: options.timeoutMs ?? 30_000,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/**
 * Run mtool under the module trace hook ({@link MODULE_TRACE}) and return what it printed and the
 * modules it loaded (URLs or paths, in order); the trace file lives in a temporary folder of its own.
 */
export async function tracedRun(args: readonly string[], options: CliOptions): Promise<CliResult & { modules: string[] }> {
  const dir = await mkdtemp(join(tmpdir(), 'mtool-trace-'));
  try {
    const trace = join(dir, 'trace.txt');
    const result = await runMtool(args, { ...options, nodeArgs: ['--import', MODULE_TRACE, ...(options.nodeArgs ?? [])], env: { ...options.env, MTOOL_MODULE_TRACE: trace } });
    const modules = await readFile(trace, 'utf8').then((text) => text.split('\n').filter(Boolean), () => []);
    return { ...result, modules };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A fresh empty project folder; call `dispose()` in afterEach. */
export async function tempProject(prefix = 'mtool-cli-'): Promise<{ dir: string; dispose(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  return { dir, dispose: () => rm(dir, { recursive: true, force: true }) };
}

/** mtool's own files among traced module URLs or paths (not node_modules, not builtins). */
export function mtoolFiles(modules: readonly string[]): string[] {
  const dist = join(PACKAGE_ROOT, 'dist') + '/';
  const files = modules
    .map((m) => (m.startsWith('file://') ? fileURLToPath(m.replace(/\?.*$/, '')) : m))
    .filter((path) => path.startsWith(dist) && !path.includes('/node_modules/'));
  return [...new Set(files)];
}

/**
 * The source modules (`src/...ts`, relative to the package root) behind mtool's files among
 * traced modules: a CLI chunk stands for the sources its source map lists, a file of tsc's
 * output for its one source. With the CLI bundled, file names no longer say which of mtool's
 * modules a command loaded; this does.
 */
export async function loadedSources(modules: readonly string[]): Promise<string[]> {
  const sources = new Set<string>();
  for (const file of mtoolFiles(modules)) {
    if (dirname(file) === CLI_DIR) {
      const map = JSON.parse(await readFile(`${file}.map`, 'utf8')) as { sources: string[] };
      for (const source of map.sources) sources.add(relative(PACKAGE_ROOT, resolve(CLI_DIR, source)));
    } else {
      sources.add(relative(PACKAGE_ROOT, file).replace(/^dist\//, 'src/').replace(/\.js$/, '.ts'));
    }
  }
  return [...sources].sort();
}
