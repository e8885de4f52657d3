/**
 * `mtool/plugin`: the one contract a plugin fulfils. A plugin package names its entry in
 * `package.json` (`"mtool": { "plugin": "./dist/plugin.js" }`) and that module's default export
 * is the value of {@link definePlugin}. The shape is checked when the plugin is defined and again
 * when mtool registers it (name, mtool version range, hooks from a closed list, commands).
 *
 * @example
 * import { definePlugin } from 'mtool/plugin';
 * export default definePlugin({
 *   name: 'mtool-audit',
 *   version: '1.2.0',
 *   mtool: '>=0.1.0 <1.0.0',
 *   hooks: { afterMigrate: async ({ database, applied }) => { ... } },
 * });
 */
import type { DatabaseType } from '../dialects/types.js';
import { MtoolError } from '../errors.js';
import type { CommandDescriptor } from '../main/commands/command.js';

/** Lifecycle hooks, the closed list. Unknown names are rejected, not ignored. */
export const PLUGIN_HOOKS = [
  'beforeMigrate',
  'afterMigrate',
  'beforeRollback',
  'afterRollback',
  'beforeMakeMigrations',
  'afterMakeMigrations',
] as const;
export type PluginHookName = (typeof PLUGIN_HOOKS)[number];

/** What every lifecycle hook receives. */
export interface HookEvent {
  hook: PluginHookName;
  database: string;
  databaseType: DatabaseType;
  /** Migration file names concerned (pending before, applied after). */
  migrations: readonly string[];
  /** Aborted on Ctrl-C / SIGTERM. */
  signal: AbortSignal;
}

export type PluginHook = (event: HookEvent) => void | Promise<void>;

/** Handles a kind of schema object core does not know (for example PostgreSQL extensions). */
export interface ObjectHandler {
  /** Kind of object in the schema IR's `attrs`, for example `extension`. */
  objectType: string;
  databaseTypes: readonly DatabaseType[];
  /** Statements that create the object described by `attrs`. */
  create(attrs: Readonly<Record<string, unknown>>): string[];
  /** Statements that drop it (the rollback of `create`). */
  drop(attrs: Readonly<Record<string, unknown>>): string[];
}

/** A command a plugin adds, shaped like core's (for example `seed apply`). */
export type PluginCommand = CommandDescriptor;

export interface MtoolPlugin {
  /** npm package name. */
  name: string;
  /** The plugin's own version (semver). */
  version: string;
  /** mtool versions the plugin works with, as a semver range: `>=0.1.0 <1.0.0`, `^0.1.0`. */
  mtool: string;
  hooks?: Partial<Record<PluginHookName, PluginHook>>;
  commands?: readonly PluginCommand[];
  objectHandlers?: readonly ObjectHandler[];
}

const SEMVER = /^(\d+)\.(\d+)\.(\d+)(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;
const COMPARATOR = /^(\^|~|>=|<=|>|<|=)?v?(\d+)(?:\.(\d+|x|\*))?(?:\.(\d+|x|\*))?$/;

type Triple = [number, number, number];

function compare(a: Triple, b: Triple): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

/** Whether one comparator (`^1.2.0`, `>=0.1`, `1.x`) admits `version`; undefined when it does not parse. */
function comparatorAdmits(comparator: string, v: Triple): boolean | undefined {
  const m = COMPARATOR.exec(comparator);
  if (!m) return undefined;
  const [, op = '=', major, minor, patch] = m;
  const wild = (part: string | undefined) => part === undefined || part === 'x' || part === '*';
  const base: Triple = [Number(major), wild(minor) ? 0 : Number(minor), wild(patch) ? 0 : Number(patch)];
  // Partial versions (`1`, `1.2`, `1.x`) mean a range for `=`, like `~` does.
  const partial = wild(minor) ? 'major' : wild(patch) ? 'minor' : undefined;
  const c = compare(v, base);
  switch (op) {
    case '>=': return c >= 0;
    case '>': return partial ? v[0] > base[0] || (partial === 'minor' && v[0] === base[0] && v[1] > base[1]) : c > 0;
    case '<=': return partial ? v[0] < base[0] || (partial === 'minor' && v[0] === base[0] && v[1] <= base[1]) || c <= 0 : c <= 0;
    case '<': return c < 0;
    case '^': {
      if (c < 0) return false;
      if (base[0] > 0 || partial === 'major') return v[0] === base[0];
      if (base[1] > 0 || partial === 'minor') return v[0] === 0 && v[1] === base[1];
      return v[0] === 0 && v[1] === 0 && v[2] === base[2];
    }
    case '~':
      return c >= 0 && v[0] === base[0] && (partial === 'major' || v[1] === base[1]);
    default:
      if (partial === 'major') return v[0] === base[0];
      if (partial === 'minor') return v[0] === base[0] && v[1] === base[1];
      return c === 0;
  }
}

/**
 * Whether `version` satisfies a semver `range`: comparators joined by spaces (and) and `||` (or);
 * `*` admits everything. Prerelease tags of `version` are ignored.
 * @throws MtoolError `MTOOL_CONFIG` when the range or version does not parse.
 * @example versionSatisfies('0.1.3', '>=0.1.0 <1.0.0') // true
 */
export function versionSatisfies(version: string, range: string): boolean {
  const vm = SEMVER.exec(version.trim());
  if (!vm) throw new MtoolError('MTOOL_CONFIG', `'${version}' is not a semantic version (major.minor.patch)`);
  const v: Triple = [Number(vm[1]), Number(vm[2]), Number(vm[3])];
  return range.split('||').some((alternative) => {
    const comparators = alternative.trim().split(/\s+/).filter(Boolean);
    if (comparators.length === 0 || comparators.every((c) => c === '*' || c === 'x')) return true;
    return comparators.every((comparator) => {
      const admits = comparator === '*' || comparator === 'x' ? true : comparatorAdmits(comparator, v);
      if (admits === undefined) throw new MtoolError('MTOOL_CONFIG', `'${range}' is not a version range (comparator '${comparator}')`);
      return admits;
    });
  });
}

function invalid(name: string, message: string): MtoolError {
  return new MtoolError('MTOOL_CONFIG', `plugin ${name}: ${message}`);
}

/**
 * Check a plugin's shape and return it unchanged (typed).
 * @throws MtoolError `MTOOL_CONFIG` naming the plugin and the field: bad name, version or range,
 *   a hook outside {@link PLUGIN_HOOKS} or not a function, a command without name, description,
 *   example or run, an object handler without objectType, create or drop.
 */
export function definePlugin<P extends MtoolPlugin>(plugin: P): P {
  if (plugin === null || typeof plugin !== 'object') throw new MtoolError('MTOOL_CONFIG', 'a plugin is an object: definePlugin({ name, version, mtool, ... })');
  const name = typeof plugin.name === 'string' ? plugin.name : '';
  if (!/^(@[a-z0-9][a-z0-9._-]*\/)?[a-z0-9][a-z0-9._-]*$/.test(name)) {
    throw invalid(JSON.stringify(plugin.name), 'name must be the npm package name (lower case, for example mtool-seeds)');
  }
  if (typeof plugin.version !== 'string' || !SEMVER.test(plugin.version)) {
    throw invalid(name, `version '${String(plugin.version)}' must be a semantic version such as 1.0.0`);
  }
  if (typeof plugin.mtool !== 'string' || plugin.mtool.trim() === '') {
    throw invalid(name, `mtool must be the range of mtool versions it supports, for example '>=0.1.0 <1.0.0'`);
  }
  versionSatisfies('0.0.0', plugin.mtool); // throws on an unparsable range
  for (const [hook, fn] of Object.entries(plugin.hooks ?? {})) {
    if (!(PLUGIN_HOOKS as readonly string[]).includes(hook)) {
      throw invalid(name, `unknown hook '${hook}'; hooks are: ${PLUGIN_HOOKS.join(', ')}`);
    }
    if (typeof fn !== 'function') throw invalid(name, `hook ${hook} must be a function`);
  }
  for (const command of plugin.commands ?? []) {
    const label = typeof command?.name === 'string' && command.name ? command.name : '(unnamed)';
    if (!/^[a-z][a-z0-9-]*( [a-z][a-z0-9-]*)?$/.test(command?.name ?? '')) throw invalid(name, `command ${label}: name must be one or two lower-case words`);
    if (typeof command.description !== 'string' || command.description === '') throw invalid(name, `command ${label}: description is missing`);
    if (!Array.isArray(command.examples) || command.examples.length === 0) throw invalid(name, `command ${label}: give at least one example`);
    if (typeof command.run !== 'function') throw invalid(name, `command ${label}: run must be a function`);
  }
  for (const handler of plugin.objectHandlers ?? []) {
    if (typeof handler?.objectType !== 'string' || handler.objectType === '') throw invalid(name, 'an object handler has no objectType');
    if (typeof handler.create !== 'function' || typeof handler.drop !== 'function') {
      throw invalid(name, `object handler ${handler.objectType}: create and drop must be functions`);
    }
  }
  return plugin;
}
