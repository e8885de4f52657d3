/**
 * Validation of the registered database declarations (spec: Configuration loading and
 * validation, rules 6-8). Every failure is a MtoolConfigError (exit 2) raised before any command
 * runs; URL errors keep their MTOOL_URL code and name the database. Defaults that stand in for a
 * missing backend or schema value are returned as warnings (rule 7).
 */
import { posix, resolve } from 'node:path';
import { MtoolConfigError, MtoolError } from '../../errors.js';
import { DATABASE_TYPES, type DatabaseType } from '../../dialects/types.js';
import { editDistance, maskUrl, parseConnectionUrl, physicalTarget, type ConnectionUrl } from '../../net/connection-url.js';
import { CONFIG_FIELDS, type RegisteredDatabase } from '../../config-api.js';
import { LOCK_TABLE, MODEL_STATE_TABLE } from '../fixed-tables.js';
import type { DatabaseEntry } from './types.js';

export interface ConfigWarning {
  database: string;
  type: DatabaseType;
  message: string;
}

export interface ValidateOptions {
  root: string;
  dev: boolean;
  /** value → `env(NAME)` recorded by `env()`. */
  envSources: ReadonlyMap<string, string>;
  /** The files the declarations came from, for "nothing declared" messages. */
  files: readonly string[];
}

export interface ValidatedConfig {
  databases: DatabaseEntry[];
  warnings: ConfigWarning[];
}

export const DEFAULT_SEED_TABLE = '_mtool_seeds';
export const DEFAULT_MIGRATION_TABLE = '_mtool_migrations';

/** Database names end up in folder and file names (`migrations/<name>/<name>__0001_x.sql`). */
const NAME_RE = /^[A-Za-z][A-Za-z0-9_-]{0,62}$/;
const TABLE_RE = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;
/**
 * Tables mtool keeps under fixed names: neither configurable table may take one. Compared without
 * letter case, as SQLite (and MySQL on case-insensitive file systems) compares table names.
 */
const FIXED_TABLES: readonly [string, string][] = [
  [LOCK_TABLE, 'lock'],
  [MODEL_STATE_TABLE, 'model state'],
];

function origin(d: RegisteredDatabase): string {
  const where = d.file ? ` in ${d.file}` : '';
  return d.origin.kind === 'class' ? `class ${d.origin.className}${where}` : `databaseConfig(...)${where}`;
}

function did(name: string, allowed: readonly string[]): string {
  let best: string | undefined;
  let bestDist = 3;
  for (const a of allowed) {
    const d = editDistance(name.toLowerCase(), a.toLowerCase());
    if (d < bestDist) [best, bestDist] = [a, d];
  }
  return best ? ` (did you mean '${best}'?)` : '';
}

interface Checked {
  entry: DatabaseEntry;
  configuredParsed: ConnectionUrl;
  devParsed: ConnectionUrl | undefined;
}

function checkEntry(d: RegisteredDatabase, opts: ValidateOptions): Checked {
  const input = d.input;
  for (const key of Object.keys(input)) {
    if (!(CONFIG_FIELDS as readonly string[]).includes(key)) {
      throw new MtoolConfigError(`Unknown field '${key}' in ${origin(d)}${did(key, CONFIG_FIELDS)}; allowed: ${CONFIG_FIELDS.join(', ')}`);
    }
  }
  const name = input.databaseName;
  if (typeof name !== 'string' || name === '') throw new MtoolConfigError(`${origin(d)} has no databaseName; every database needs one (a string)`);
  if (!NAME_RE.test(name)) {
    throw new MtoolConfigError(`databaseName '${name}' in ${origin(d)} is not allowed: use a letter followed by letters, digits, '_' or '-' (at most 63 characters); it names the migrations/<name> folder`);
  }
  if (name === 'RA' || name === 'ROC') {
    // Its versioned files (`RA__0001_x.sql`) would read as repeatable ones.
    throw new MtoolConfigError(`databaseName '${name}' in ${origin(d)} is not allowed: ${name}__ starts repeatable migration files (RA__ runs always, ROC__ on change), so its versioned files would be taken for repeatable ones; choose another name`);
  }
  const fail = (message: string): never => {
    throw new MtoolConfigError(`Database '${name}': ${message}`, { database: name });
  };
  const bool = (key: string): boolean => {
    const v = input[key];
    if (v === undefined) return false;
    if (typeof v !== 'boolean') fail(`${key} must be true or false (got ${JSON.stringify(v)})`);
    return v as boolean;
  };
  const str = (key: string): string | undefined => {
    const v = input[key];
    if (v === undefined) return undefined;
    if (typeof v !== 'string' || v.trim() === '') fail(`${key} must be a non-empty string`);
    return v as string;
  };
  const list = (key: string): string[] => {
    const v = input[key];
    if (v === undefined) return [];
    if (!Array.isArray(v) || v.some((x) => typeof x !== 'string' || x.trim() === '')) fail(`${key} must be a list of non-empty strings`);
    return [...(v as string[])];
  };
  const type = (key: string): DatabaseType | undefined => {
    const v = input[key];
    if (v === undefined) return undefined;
    if (typeof v !== 'string' || !(DATABASE_TYPES as readonly string[]).includes(v)) {
      fail(`${key} ${JSON.stringify(v)} is not a database type${typeof v === 'string' ? did(v, DATABASE_TYPES) : ''}; use one of ${DATABASE_TYPES.join(', ')}`);
    }
    return v as DatabaseType;
  };
  const url = (key: string, t: DatabaseType): [string, ConnectionUrl] | undefined => {
    const v = str(key);
    if (v === undefined) return undefined;
    try {
      const parsed = parseConnectionUrl(v, t, name);
      // MySQL has no default database: the tracking tables would be looked up in none, so
      // `status` would call every migration pending and `migrate` would fail to create them.
      if ((t === 'mysql' || t === 'mariadb') && parsed.database === undefined) {
        throw new MtoolError('MTOOL_URL', `Database '${name}': the URL names no database, and ${t === 'mysql' ? 'MySQL' : 'MariaDB'} has no default one to keep mtool's tables in; put the database name in the URL path (${parsed.scheme}://user@host:3306/<database>)`, { database: name });
      }
      return [v, parsed];
    } catch (e) {
      if (e instanceof MtoolError) throw new MtoolError(e.code, e.message.replace(`Database '${name}': `, `Database '${name}': ${key}: `), { database: name, cause: e });
      throw e;
    }
  };
  const table = (key: string, fallback: string): string => {
    const v = str(key) ?? fallback;
    if (!TABLE_RE.test(v)) fail(`${key} '${v}' must be a plain table name (letters, digits, '_'; at most 63 characters)`);
    const fixed = FIXED_TABLES.find(([t]) => t === v.toLowerCase());
    if (fixed) fail(`${key} '${v}' is the name of mtool's ${fixed[1]} table${fixed[0] === v ? '' : ` (${fixed[0]}, letter case aside)`}; choose another name for the ${key === 'seedTable' ? 'seed' : 'migration'} tracking table`);
    return v;
  };

  const isDefault = bool('default');
  const configuredType = type('databaseType') ?? fail(`databaseType is required; use one of ${DATABASE_TYPES.join(', ')}`);
  const configured = url('databaseUrl', configuredType) ?? fail('databaseUrl is required (the connection URL, e.g. from env("DATABASE_URL"))');
  const urlAsync = url('databaseUrlAsync', configuredType);
  const devTypeGiven = type('devDatabaseType');
  const devType = devTypeGiven ?? configuredType;
  const dev = url('devDatabaseUrl', devType);
  if (devTypeGiven !== undefined && dev === undefined) fail(`devDatabaseType '${devTypeGiven}' is set but devDatabaseUrl is not; --dev needs both (or remove devDatabaseType)`);

  const modelPaths = list('modelPaths').map((p) => {
    const n = normalizeModelPath(p);
    if (posix.isAbsolute(n) || n === '..' || n.startsWith('../')) fail(`modelPaths entry '${p}' must be relative to the project root and stay inside it`);
    return n;
  });
  const pgSchema = str('pgSchema');
  if (pgSchema !== undefined && configuredType !== 'postgresql' && devType !== 'postgresql') {
    fail(`pgSchema is set but neither databaseType '${configuredType}' nor the dev type is postgresql; remove it`);
  }
  const plugins = input.plugins;
  if (plugins !== undefined && (plugins === null || typeof plugins !== 'object' || Array.isArray(plugins))) fail('plugins must be an object keyed by plugin name');

  const seedTable = table('seedTable', DEFAULT_SEED_TABLE);
  const migrationTable = table('migrationTable', DEFAULT_MIGRATION_TABLE);
  if (migrationTable.toLowerCase() === seedTable.toLowerCase()) {
    fail(`migrationTable '${migrationTable}' and seedTable '${seedTable}'${input.seedTable === undefined ? ' (its default)' : ''} name the same table; migrations and seeds each need their own: choose another name for one`);
  }

  const swap = opts.dev && dev !== undefined;
  const entry: DatabaseEntry = {
    name,
    isDefault,
    type: swap ? devType : configuredType,
    url: swap ? dev![0] : configured[0],
    urlSource: opts.envSources.get(swap ? dev![0] : configured[0]),
    // No dev counterpart exists for the async URL: under --dev it must not point at the real database.
    urlAsync: swap ? undefined : urlAsync?.[0],
    configuredType,
    configuredUrl: configured[0],
    devType: dev === undefined ? undefined : devType,
    devUrl: dev?.[0],
    devUrlSource: dev === undefined ? undefined : opts.envSources.get(dev[0]),
    modelPaths,
    modelTables: list('modelTables'),
    overlapModels: bool('overlapModels'),
    secureValues: bool('secureValues'),
    autoApplySeeds: bool('autoApplySeeds'),
    seedTable,
    migrationTable,
    skipIfMissing: bool('skipIfMissing'),
    pgSchema,
    plugins: { ...((plugins as Record<string, unknown> | undefined) ?? {}) },
    migrationsDir: resolve(opts.root, 'migrations', name),
  };
  return { entry, configuredParsed: configured[1], devParsed: dev?.[1] };
}

/** `./models/` → `models`; backslashes become slashes. */
export function normalizeModelPath(p: string): string {
  const n = posix.normalize(p.trim().replace(/\\/g, '/')).replace(/\/+$/, '');
  return n === '' ? '.' : n.replace(/^\.\/(?=.)/, '');
}

const GLOB_CHARS = /[*?[\]{}()!]/;

function globBase(pattern: string): string {
  const parts: string[] = [];
  for (const segment of pattern.split('/')) {
    if (GLOB_CHARS.test(segment)) break;
    parts.push(segment);
  }
  return parts.join('/') || '.';
}

/** `a` contains `b` (equal, or `b` lies under folder `a`). */
function contains(a: string, b: string): boolean {
  return a === '.' || a === b || b.startsWith(`${a}/`);
}

/** Overlap decidable from the strings alone; undefined when files must be listed. */
function staticOverlap(p: string, q: string): boolean | undefined {
  if (p === q) return true;
  const pg = GLOB_CHARS.test(p);
  const qg = GLOB_CHARS.test(q);
  if (!pg && !qg) return contains(p, q) || contains(q, p);
  if (pg && !qg && contains(q, globBase(p))) return true;
  if (qg && !pg && contains(p, globBase(q))) return true;
  return undefined;
}

async function expand(root: string, paths: readonly string[]): Promise<Set<string>> {
  const { glob } = await import('tinyglobby');
  const patterns = paths.map((p) => (GLOB_CHARS.test(p) ? p : p === '.' ? '**/*' : [p, `${p}/**/*`])).flat();
  const files = await glob(patterns, { cwd: root, ignore: ['**/node_modules/**'], onlyFiles: true, followSymbolicLinks: false });
  return new Set(files.map((f) => normalizeModelPath(f)));
}

async function checkModelOverlap(entries: readonly DatabaseEntry[], root: string): Promise<void> {
  const expanded = new Map<string, Promise<Set<string>>>();
  const filesOf = (e: DatabaseEntry) => {
    if (!expanded.has(e.name)) expanded.set(e.name, expand(root, e.modelPaths));
    return expanded.get(e.name)!;
  };
  for (let i = 0; i < entries.length; i++) {
    for (let j = i + 1; j < entries.length; j++) {
      const a = entries[i]!;
      const b = entries[j]!;
      if (a.overlapModels || b.overlapModels) continue;
      const hint = 'Separate them, or set overlapModels: true on one of them';
      let needFiles = false;
      for (const p of a.modelPaths) {
        for (const q of b.modelPaths) {
          const s = staticOverlap(p, q);
          if (s === true) throw new MtoolConfigError(`Databases '${a.name}' and '${b.name}' have overlapping modelPaths ('${p}' and '${q}'). ${hint}`);
          if (s === undefined) needFiles = true;
        }
      }
      if (needFiles) {
        const [fa, fb] = await Promise.all([filesOf(a), filesOf(b)]);
        const shared = [...fa].filter((f) => fb.has(f)).sort();
        if (shared.length > 0) {
          throw new MtoolConfigError(`Databases '${a.name}' and '${b.name}' have overlapping modelPaths: both match ${shared.slice(0, 3).map((f) => `'${f}'`).join(', ')}${shared.length > 3 ? ` and ${shared.length - 3} more` : ''}. ${hint}`);
        }
      }
      const tables = a.modelTables.filter((t) => b.modelTables.includes(t));
      if (tables.length > 0) {
        throw new MtoolConfigError(`Databases '${a.name}' and '${b.name}' both list modelTables ${tables.map((t) => `'${t}'`).join(', ')}. ${hint}`);
      }
    }
  }
}

function targetOf(url: ConnectionUrl, root: string): string | undefined {
  if (url.type === 'sqlite') return url.sqlitePath === ':memory:' ? undefined : `sqlite:${resolve(root, url.sqlitePath!)}`;
  if (url.scheme === 'chdb') return url.chdbPath === ':memory:' ? undefined : `chdb:${resolve(root, url.chdbPath!)}`;
  return physicalTarget(url);
}

function checkTargets(checked: readonly Checked[], root: string, which: 'configured' | 'effective'): void {
  const byUrl = new Map<string, string>();
  const byTarget = new Map<string, string>();
  const label = which === 'configured' ? 'databaseUrl' : 'URL used under --dev';
  for (const c of checked) {
    const effective = which === 'effective' && c.entry.url !== c.entry.configuredUrl;
    const url = effective ? c.entry.url : c.entry.configuredUrl;
    const parsed = effective ? c.devParsed! : c.configuredParsed;
    const other = byUrl.get(url.trim());
    if (other !== undefined) {
      throw new MtoolConfigError(`Databases '${other}' and '${c.entry.name}' have the same ${label} ${maskUrl(url)}; each database needs its own`);
    }
    byUrl.set(url.trim(), c.entry.name);
    const target = targetOf(parsed, root);
    if (target === undefined) continue;
    const same = byTarget.get(target);
    if (same !== undefined) {
      throw new MtoolConfigError(`Databases '${same}' and '${c.entry.name}' reach the same physical database (${target}) with different URLs; each database needs its own target`);
    }
    byTarget.set(target, c.entry.name);
  }
}

function warningsFor(c: Checked): ConfigWarning[] {
  const e = c.entry;
  const out: ConfigWarning[] = [];
  const add = (message: string) => out.push({ database: e.name, type: e.type, message });
  const parsed = e.url === e.configuredUrl ? c.configuredParsed : c.devParsed!;
  if (e.type === 'postgresql' && e.pgSchema === undefined) add(`Database '${e.name}': pgSchema is not set; using PostgreSQL schema 'public'`);
  if (e.type === 'postgresql' && parsed.database === undefined) {
    add(`Database '${e.name}': the URL names no database; PostgreSQL falls back to the database named after the user${parsed.user ? ` ('${parsed.user}')` : ''}`);
  }
  // A chdb URL names a data folder, never a database: it always uses 'default'.
  if (e.type === 'clickhouse' && parsed.scheme !== 'chdb' && parsed.database === undefined) add(`Database '${e.name}': the URL names no database; using ClickHouse database 'default'`);
  return out;
}

/**
 * Validate registered declarations and build the registry entries.
 * @throws MtoolConfigError (exit 2) on the first rule broken; MtoolError MTOOL_URL for URL errors.
 */
export async function validateDatabases(declared: readonly RegisteredDatabase[], opts: ValidateOptions): Promise<ValidatedConfig> {
  if (declared.length === 0) {
    throw new MtoolConfigError(`No databases are declared in ${opts.files.join(', ')}: call databaseConfig({ databaseName, databaseType, databaseUrl, default: true }) or export a class extending MtoolDatabase`);
  }
  const checked: Checked[] = [];
  const names = new Set<string>();
  for (const d of declared) {
    const c = checkEntry(d, opts);
    if (names.has(c.entry.name)) throw new MtoolConfigError(`Duplicate databaseName '${c.entry.name}'`, { database: c.entry.name });
    names.add(c.entry.name);
    checked.push(c);
  }
  const entries = checked.map((c) => c.entry);
  const defaults = entries.filter((e) => e.isDefault);
  if (defaults.length === 0) {
    throw new MtoolConfigError(`No default database: set default: true on exactly one of ${entries.map((e) => e.name).join(', ')}`);
  }
  if (defaults.length > 1) {
    throw new MtoolConfigError(`Several default databases: ${defaults.map((e) => e.name).join(', ')} all have default: true; keep it on exactly one`);
  }
  checkTargets(checked, opts.root, 'configured');
  if (opts.dev) checkTargets(checked, opts.root, 'effective');
  if (entries.length > 1) {
    const missing = entries.filter((e) => e.modelPaths.length === 0);
    if (missing.length > 0) {
      throw new MtoolConfigError(
        `Missing modelPaths for ${missing.map((e) => `'${e.name}'`).join(', ')}: with several databases every database needs modelPaths (files, folders or globs relative to the project root)`,
      );
    }
    await checkModelOverlap(entries, opts.root);
  }
  const warnings = checked.flatMap((c) => warningsFor(c));
  for (const c of checked) {
    if (c.entry.devUrl !== undefined && c.entry.devType === c.entry.configuredType && declared.find((d) => d.input.databaseName === c.entry.name)?.input.devDatabaseType === undefined) {
      warnings.push({ database: c.entry.name, type: c.entry.type, message: `Database '${c.entry.name}': devDatabaseType is not set; --dev uses databaseType '${c.entry.configuredType}' with devDatabaseUrl` });
    }
  }
  return { databases: entries, warnings };
}
