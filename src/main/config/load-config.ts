/**
 * Find, import and validate the project configuration (spec: Configuration loading and
 * validation). Loading never connects to a database.
 *
 * Source precedence (rule 2), first match wins, ambiguity fails fast:
 * 1. `mtool.config.{ts,mts,js,mjs}` at the project root, imported `isolated`;
 * 2. `MTOOL_CONFIG_MODULE`: a module path relative to the root or a package specifier, `in-package`;
 * 3. scan discovery: the one file under the root (outside `node_modules`, `dist` and dot-folders)
 *    containing `databaseConfig(` or `extends MtoolDatabase`; a root-level file is `isolated`, a
 *    file in a subfolder is `in-package` when a `package.json` lies between it and the root
 *    (the TypeScript reading of rule 3's "the module path resolves"), `isolated` otherwise.
 */
import { existsSync, statSync } from 'node:fs';
import { readFile, realpath } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { MtoolConfigError, MtoolError } from '../../errors.js';
import { configRegistry, envSources, isAbstractDatabaseClass, isDatabaseClass, registerDatabaseClass, type RegisteredDatabase } from '../../config-api.js';
import { urlSecrets } from '../../net/mask.js';
import { logger, registerSecrets } from '../log.js';
import { importModule, resolveSpecifier, type SandboxMode } from './module-loader.js';
import { validateDatabases, type ConfigWarning } from './validate.js';
import type { ConfigSourceKind, DatabaseEntry, LoadedConfig } from './types.js';

/** Root configuration file names, in the order they are looked for. */
export const CONFIG_FILE_NAMES = ['mtool.config.ts', 'mtool.config.mts', 'mtool.config.js', 'mtool.config.mjs'] as const;
const MODULE_EXTENSIONS = ['.ts', '.mts', '.js', '.mjs'];
const SCAN_RE = /\bdatabaseConfig\s*\(|\bextends\s+MtoolDatabase\b/;

export interface LoadConfigOptions {
  cwd: string;
  /** `--dev`: swap type and URL for their dev counterparts (rule 8). */
  dev?: boolean;
  /** Environment for `MTOOL_CONFIG_MODULE` and `MTOOL_DISABLE_SANDBOX` (default `process.env`). */
  env?: NodeJS.ProcessEnv;
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** Nearest ancestor of `cwd` (itself included) holding a root configuration file, else `cwd`. */
export function findProjectRoot(cwd: string): string {
  const start = resolve(cwd);
  for (let dir = start; ; dir = dirname(dir)) {
    if (CONFIG_FILE_NAMES.some((n) => isFile(join(dir, n)))) return dir;
    if (dirname(dir) === dir) return start;
  }
}

function rel(root: string, file: string): string {
  const r = relative(root, file);
  return r.startsWith('..') ? file : r;
}

/** Resolve `MTOOL_CONFIG_MODULE` to a file: a path relative to the root first, then a package specifier. */
async function resolveConfigModule(value: string, root: string): Promise<string> {
  const base = resolve(root, value);
  const candidates = [base, ...MODULE_EXTENSIONS.map((e) => base + e), ...MODULE_EXTENSIONS.map((e) => join(base, `index${e}`))];
  // TypeScript style: `config/db.js` written for `config/db.ts`.
  if (/\.m?js$/.test(base)) candidates.push(base.replace(/\.js$/, '.ts').replace(/\.mjs$/, '.mts'));
  const found = candidates.find(isFile);
  if (found) return found;
  const isPath = value.startsWith('.') || value.startsWith('/') || /^[A-Za-z]:[\\/]/.test(value);
  const pkg = isPath ? undefined : await resolveSpecifier(value, root);
  if (pkg) return pkg;
  throw new MtoolConfigError(
    `MTOOL_CONFIG_MODULE='${value}' names neither a module file under ${root} (tried ${value} with ${MODULE_EXTENSIONS.join(', ')} and /index.*) nor a package resolvable from it; fix the variable or unset it`,
  );
}

/** The files under `root` that declare databases (scan discovery, source 3), sorted; `init` asks too. */
export async function scanCandidates(root: string): Promise<string[]> {
  const { glob } = await import('tinyglobby');
  const files = await glob(['**/*.{ts,mts,js,mjs}'], {
    cwd: root,
    ignore: ['**/node_modules/**', '**/dist/**', '**/*.d.ts', '**/*.d.mts'],
    dot: false,
    followSymbolicLinks: false,
    onlyFiles: true,
    absolute: true,
  });
  const realRoot = await realpath(root);
  const hits = new Array<boolean>(files.length).fill(false);
  // Bounded parallel reads: big trees have thousands of source files.
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < files.length; i = next++) {
      const real = await realpath(files[i]!).catch(() => undefined);
      // Symlinks leading outside the root are neither imported nor scanned (rule 4).
      if (real === undefined || !(real === realRoot || real.startsWith(realRoot + sep))) continue;
      const text = await readFile(real, 'utf8').catch(() => '');
      hits[i] = SCAN_RE.test(text);
    }
  };
  await Promise.all(Array.from({ length: Math.min(32, files.length) }, worker));
  return files.filter((_, i) => hits[i]).map((f) => resolve(f)).sort();
}

function scanSandbox(root: string, file: string): SandboxMode {
  const dir = dirname(file);
  if (dir === root) return 'isolated';
  for (let d = dir; d.startsWith(root); d = dirname(d)) {
    if (isFile(join(d, 'package.json'))) return 'in-package';
    if (d === root) break;
  }
  return 'isolated';
}

interface Source {
  kind: ConfigSourceKind;
  file: string;
  sandbox: SandboxMode;
}

async function findSource(root: string, env: NodeJS.ProcessEnv): Promise<Source> {
  const rootFiles = CONFIG_FILE_NAMES.map((n) => join(root, n)).filter(isFile);
  if (rootFiles.length > 1) {
    throw new MtoolConfigError(`Several configuration files at the project root: ${rootFiles.map((f) => rel(root, f)).join(', ')}; keep exactly one`);
  }
  const envModule = env.MTOOL_CONFIG_MODULE?.trim() || undefined;
  if (rootFiles.length === 1) {
    const rootFile = rootFiles[0]!;
    if (envModule !== undefined) {
      const named = await resolveConfigModule(envModule, root);
      const [a, b] = await Promise.all([realpath(rootFile), realpath(named)]);
      if (a !== b) {
        throw new MtoolConfigError(
          `Ambiguous configuration: ${rel(root, rootFile)} exists at the project root and MTOOL_CONFIG_MODULE names ${rel(root, named)}. Remove one: delete or rename the root file to use the module, or unset MTOOL_CONFIG_MODULE`,
        );
      }
    }
    return { kind: 'root-file', file: rootFile, sandbox: 'isolated' };
  }
  if (envModule !== undefined) return { kind: 'env-module', file: await resolveConfigModule(envModule, root), sandbox: 'in-package' };
  const candidates = await scanCandidates(root);
  if (candidates.length === 0) {
    throw new MtoolConfigError(`No mtool configuration found in ${root} or its parents: run \`mtool init\` to create mtool.config.ts, or set MTOOL_CONFIG_MODULE to the module that declares your databases`, { hint: '' });
  }
  if (candidates.length > 1) {
    throw new MtoolConfigError(
      `Ambiguous configuration: several files declare databases: ${candidates.map((f) => rel(root, f)).join(', ')}. Set MTOOL_CONFIG_MODULE to the one module that declares (or imports) them all, or move them into mtool.config.ts`,
    );
  }
  const file = candidates[0]!;
  return { kind: 'scan', file, sandbox: scanSandbox(root, file) };
}

/** Loads run one at a time: the registry they fill is process-global. */
let queue: Promise<unknown> = Promise.resolve();

async function collect(file: string, root: string, sandbox: SandboxMode, env: NodeJS.ProcessEnv): Promise<RegisteredDatabase[]> {
  const registry = configRegistry();
  const saved = { entries: registry.entries, currentFile: registry.currentFile };
  registry.entries = [];
  registry.currentFile = rel(root, file);
  try {
    const ns = await importModule(file, { root, sandbox, env });
    const seen = new Set<unknown>();
    for (const value of Object.values(ns)) {
      if (seen.has(value) || !isDatabaseClass(value) || isAbstractDatabaseClass(value)) continue;
      seen.add(value);
      registerDatabaseClass(value, registry.currentFile);
    }
    return registry.entries;
  } finally {
    registry.entries = saved.entries;
    registry.currentFile = saved.currentFile;
  }
}

/**
 * Find the project root and configuration, import it, validate every rule and return the
 * registry. Never connects. Warnings for defaults standing in for missing values (rule 7) are
 * returned, and logged by {@link announceWarnings} for the databases a command selects.
 * @throws MtoolConfigError (exit 2) for a missing, ambiguous or invalid configuration.
 * @example const config = await loadConfig({ cwd: process.cwd(), dev: false });
 */
export async function loadConfig(options: LoadConfigOptions): Promise<LoadedConfig> {
  const run = queue.then(() => load(options));
  queue = run.catch(() => undefined);
  return run;
}

async function load(options: LoadConfigOptions): Promise<LoadedConfig> {
  const env = options.env ?? process.env;
  const dev = options.dev === true;
  const root = findProjectRoot(options.cwd);
  if (!existsSync(root)) throw new MtoolConfigError(`Working directory ${options.cwd} does not exist`);
  const source = await findSource(root, env);
  const sources = envSources();
  sources.clear();
  const declared = await collect(source.file, root, source.sandbox, env);
  const { databases, warnings } = await validateDatabases(declared, { root, dev, envSources: new Map(sources), files: [rel(root, source.file)] });
  // From here on every log line and CLI error hides these credentials, even outside a URL.
  for (const d of databases) for (const url of [d.configuredUrl, d.urlAsync, d.devUrl]) if (url) registerSecrets(urlSecrets(url));
  const config: LoadedConfig = { root, source: { kind: source.kind, files: [source.file] }, databases, dev, warnings: warnings.map((w) => w.message) };
  unannounced.set(config, warnings);
  return config;
}

/** Rule 7's warnings of a loaded configuration not logged yet. */
const unannounced = new WeakMap<LoadedConfig, ConfigWarning[]>();

/**
 * Log the rule 7 warnings (defaults standing in for missing values) of the databases a command
 * works on, each once: a command on one database does not warn about the others. Without
 * `entries`, of every database (`config`, `database list`).
 */
export function announceWarnings(config: LoadedConfig, entries?: readonly DatabaseEntry[]): void {
  const pending = unannounced.get(config);
  if (!pending) return;
  const names = entries === undefined ? undefined : new Set(entries.map((e) => e.name));
  const [now, later] = [pending.filter((w) => !names || names.has(w.database)), pending.filter((w) => names && !names.has(w.database))];
  unannounced.set(config, later);
  for (const w of now) logger.child({ db_name: w.database, db_type: w.type }).warn(w.message);
}

/**
 * The databases a command works on: `--database <name>`, `--all`, or the default one.
 * @throws MtoolError MTOOL_USAGE for an unknown name (listing the known ones) or both flags at
 *   once; MtoolConfigError under `--dev` for a selected database without `devDatabaseUrl`.
 * `named`: how the command takes the name, for messages (`settings show`: a positional name).
 */
export function selectDatabases(config: LoadedConfig, sel: { database?: string; all?: boolean; named?: string }): DatabaseEntry[] {
  const naming = sel.named ?? '--database <name>';
  if (sel.database !== undefined && sel.all) throw new MtoolError('MTOOL_USAGE', `${naming} and --all cannot be combined: name one database, or use --all for every one`);
  let selected: DatabaseEntry[];
  if (sel.all) selected = [...config.databases];
  else if (sel.database !== undefined) {
    const found = config.databases.find((d) => d.name === sel.database);
    if (!found) {
      // A name on the command line: a usage error, not one of the configuration.
      throw new MtoolError('MTOOL_USAGE', `Unknown database '${sel.database}'; configured: ${config.databases.map((d) => d.name).join(', ')} (\`mtool database list\` shows them)`);
    }
    selected = [found];
  } else {
    const def = config.databases.find((d) => d.isDefault);
    if (!def) throw new MtoolConfigError(`No default database: set default: true on exactly one of ${config.databases.map((d) => d.name).join(', ')}`);
    selected = [def];
  }
  announceWarnings(config, selected);
  if (config.dev) {
    const noDev = selected.filter((d) => d.devUrl === undefined);
    if (noDev.length > 0) {
      throw new MtoolConfigError(`--dev was given but ${noDev.map((d) => `'${d.name}'`).join(', ')} ${noDev.length === 1 ? 'has' : 'have'} no devDatabaseUrl; set devDatabaseUrl (and devDatabaseType if it differs) or drop --dev`, {
        database: noDev[0]!.name,
      });
    }
  }
  return selected;
}
