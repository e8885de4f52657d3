/**
 * The configuration API users import from `mtool` in `mtool.config.ts`:
 * {@link databaseConfig}, {@link MtoolDatabase} and {@link env}.
 *
 * This module must stay tiny (it is loaded inside the configuration sandbox): no drivers, no
 * esbuild, nothing but the error class. Its state lives on `globalThis` under `Symbol.for` keys,
 * so two copies of mtool in one process (for example `dist/` and `src/`) share one registry.
 */
import { MtoolConfigError } from './errors.js';
import type { DatabaseType } from './dialects/types.js';
import type { DatabaseConfigInput } from './main/config/types.js';

export type { DatabaseConfigInput } from './main/config/types.js';
export type { DatabaseType } from './dialects/types.js';

/** Brand on {@link MtoolDatabase}; the loader finds subclasses by it, not by `instanceof`. */
export const DATABASE_BRAND: unique symbol = Symbol.for('mtool.database');
const REGISTRY_KEY = Symbol.for('mtool.config.registry');
const ENV_SOURCES_KEY = Symbol.for('mtool.config.env-sources');

/** Every field name `databaseConfig` accepts, which are also the static field names of `MtoolDatabase` subclasses. */
export const CONFIG_FIELDS = [
  'databaseName', 'default', 'databaseType', 'databaseUrl', 'databaseUrlAsync', 'modelPaths', 'modelTables',
  'overlapModels', 'devDatabaseType', 'devDatabaseUrl', 'secureValues', 'autoApplySeeds', 'seedTable',
  'migrationTable', 'skipIfMissing', 'pgSchema', 'plugins',
] as const satisfies readonly (keyof DatabaseConfigInput)[];

/**
 * What `databaseConfig` returns and `MtoolDatabase.handle` gives: the database's name and a
 * frozen copy of its fields. Seeds and other code refer to a database through it.
 */
export interface DatabaseHandle {
  readonly databaseName: string;
  readonly databaseType: DatabaseType;
  readonly config: Readonly<DatabaseConfigInput>;
}

/** One registered declaration, as the user wrote it (validated later by the loader). */
export interface RegisteredDatabase {
  /** The fields as given, including unknown ones, so typos can be reported. */
  readonly input: Readonly<Record<string, unknown>>;
  /** `databaseConfig(...)` or the class name. */
  readonly origin: { kind: 'function' } | { kind: 'class'; className: string };
  /** The configuration file being loaded when it was registered, if the loader said. */
  readonly file: string | undefined;
}

/** The process-global registry the loader reads. */
export interface ConfigRegistry {
  entries: RegisteredDatabase[];
  /** Set by the loader around each import. */
  currentFile: string | undefined;
}

/** The shared registry (created on first use). */
export function configRegistry(): ConfigRegistry {
  const g = globalThis as Record<symbol, unknown>;
  let registry = g[REGISTRY_KEY] as ConfigRegistry | undefined;
  if (!registry) {
    registry = { entries: [], currentFile: undefined };
    g[REGISTRY_KEY] = registry;
  }
  return registry;
}

/** value → `env(NAME)`, for `secureValues` output. */
export function envSources(): Map<string, string> {
  const g = globalThis as Record<symbol, unknown>;
  let sources = g[ENV_SOURCES_KEY] as Map<string, string> | undefined;
  if (!sources) {
    sources = new Map();
    g[ENV_SOURCES_KEY] = sources;
  }
  return sources;
}

function isPlain(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && (Array.isArray(value) || Object.getPrototypeOf(value) === Object.prototype || Object.getPrototypeOf(value) === null);
}

/** Freeze the copied plain objects and arrays; other objects (a plugin's class instance) belong to the user and stay untouched. */
function freezeDeep<T>(value: T): T {
  if (isPlain(value) && !Object.isFrozen(value)) {
    for (const v of Object.values(value)) freezeDeep(v);
    Object.freeze(value);
  }
  return value;
}

function copy(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(copy);
  if (isPlain(value)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, copy(v)]));
  }
  return value;
}

/** Build the handle for a set of fields without registering anything. */
export function makeHandle(input: Readonly<Record<string, unknown>>): DatabaseHandle {
  const config = freezeDeep(copy(Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined))) as DatabaseConfigInput);
  return Object.freeze({ databaseName: config.databaseName, databaseType: config.databaseType, config });
}

/**
 * Declare a database. Recorded when mtool loads the configuration; nothing connects.
 * Defaults: `default` false, `seedTable` `_mtool_seeds`, `migrationTable` `_mtool_migrations`,
 * `overlapModels`/`secureValues`/`autoApplySeeds`/`skipIfMissing` false.
 * @example
 * export const app = databaseConfig({
 *   databaseName: 'app', default: true, databaseType: 'postgresql',
 *   databaseUrl: env('DATABASE_URL', 'postgresql://postgres@127.0.0.1:5432/app'),
 * });
 */
export function databaseConfig(input: DatabaseConfigInput): DatabaseHandle {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    throw new MtoolConfigError('databaseConfig() expects one object, e.g. databaseConfig({ databaseName: "app", databaseType: "sqlite", databaseUrl: "sqlite:///app.db", default: true })');
  }
  const registry = configRegistry();
  const fields = { ...input } as Record<string, unknown>;
  registry.entries.push({ input: Object.freeze(fields), origin: { kind: 'function' }, file: registry.currentFile });
  return makeHandle(fields);
}

/** Static members every class has, which are not configuration fields. */
const NON_FIELD_STATICS = new Set(['length', 'name', 'prototype', 'abstract', 'handle', 'caller', 'arguments']);

/**
 * Declare a database as a class: static fields with `databaseConfig`'s names. A shared base sets
 * `static abstract = true` (read as an own property only) and is not registered; its subclasses
 * inherit its fields. Concrete subclasses are registered when mtool loads the module that
 * exports them, so export them.
 * @example
 * export abstract class Base extends MtoolDatabase { static abstract = true; static databaseType = 'postgresql' as const; }
 * export class App extends Base { static databaseName = 'app'; static default = true; static databaseUrl = env('DATABASE_URL'); }
 * // App.handle deep-equals databaseConfig({ databaseName: 'app', default: true, databaseType: 'postgresql', databaseUrl: ... })
 */
export class MtoolDatabase {
  static readonly [DATABASE_BRAND] = true;
  declare static abstract?: boolean;
  declare static databaseName?: string;
  declare static default?: boolean;
  declare static databaseType?: DatabaseType;
  declare static databaseUrl?: string;
  declare static databaseUrlAsync?: string;
  declare static modelPaths?: string[];
  declare static modelTables?: string[];
  declare static overlapModels?: boolean;
  declare static devDatabaseType?: DatabaseType;
  declare static devDatabaseUrl?: string;
  declare static secureValues?: boolean;
  declare static autoApplySeeds?: boolean;
  declare static seedTable?: string;
  declare static migrationTable?: string;
  declare static skipIfMissing?: boolean;
  declare static pgSchema?: string;
  declare static plugins?: Record<string, unknown>;

  /** The handle `databaseConfig` returns for this class's fields (inherited ones included). */
  static get handle(): DatabaseHandle {
    return makeHandle(classFields(this));
  }
}

/** True for `MtoolDatabase` subclasses of any copy of mtool (brand found up the prototype chain), not the base itself. */
export function isDatabaseClass(value: unknown): value is typeof MtoolDatabase {
  if (typeof value !== 'function') return false;
  if (Object.prototype.hasOwnProperty.call(value, DATABASE_BRAND)) return false;
  for (let p: unknown = Object.getPrototypeOf(value); typeof p === 'function'; p = Object.getPrototypeOf(p)) {
    if (Object.prototype.hasOwnProperty.call(p, DATABASE_BRAND)) return true;
  }
  return false;
}

/** Whether the class itself (not a parent) says `static abstract = true`. */
export function isAbstractDatabaseClass(cls: Function): boolean {
  return Object.prototype.hasOwnProperty.call(cls, 'abstract') && (cls as { abstract?: unknown }).abstract === true;
}

/**
 * The configuration fields of a class, inherited ones included, plus any other own static names
 * of the class and its user-written parents (so the loader can report typos).
 */
export function classFields(cls: Function): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const chain: Function[] = [];
  for (let p: unknown = cls; typeof p === 'function' && !Object.prototype.hasOwnProperty.call(p, DATABASE_BRAND); p = Object.getPrototypeOf(p)) {
    chain.push(p as Function);
  }
  // Parent first so a subclass's own value wins.
  for (const c of chain.reverse()) {
    for (const key of Object.getOwnPropertyNames(c)) {
      if (NON_FIELD_STATICS.has(key)) continue;
      const desc = Object.getOwnPropertyDescriptor(c, key);
      if (desc && 'value' in desc && typeof desc.value !== 'function' && desc.value !== undefined) out[key] = desc.value;
    }
  }
  return out;
}

/** Register a concrete database class found among a module's exports (called by the loader). */
export function registerDatabaseClass(cls: Function, file: string | undefined): void {
  configRegistry().entries.push({ input: Object.freeze(classFields(cls)), origin: { kind: 'class', className: cls.name }, file });
}

/**
 * Read an environment variable for the configuration, remembering where the value came from so
 * settings output with `secureValues` shows `env(NAME)` instead of the value. An empty variable
 * counts as unset.
 * @param fallback returned when the variable is unset; without one, an unset variable is a
 *   configuration error naming it.
 * @example databaseUrl: env('DATABASE_URL', 'sqlite:///app.db')
 */
export function env(name: string, fallback?: string): string {
  const raw = process.env[name];
  const value = raw === undefined || raw === '' ? fallback : raw;
  if (value === undefined) {
    throw new MtoolConfigError(`Environment variable ${name} is ${raw === '' ? 'empty' : 'not set'}; the configuration reads it with env('${name}'). Set it, or give a fallback: env('${name}', '<value>')`);
  }
  envSources().set(value, `env(${name})`);
  return value;
}
