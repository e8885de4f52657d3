import { relative, sep } from 'node:path';
import type { DatabaseEntry, LoadedConfig } from '../../config/types.js';
import { maskUrl } from '../../../net/connection-url.js';
import { isSecretOptionName } from '../../../net/mask.js';

/**
 * Display records of configured databases for `settings show`, `database list` and `config`.
 * Field names keep the spec's spelling (snake case). Nothing here ever holds a raw URL:
 * URLs are masked, or shown as `env(NAME)` when `secureValues` is set and the URL came from `env()`.
 */

function shownUrl(url: string | undefined, source: string | undefined, secure: boolean): string | null {
  if (url === undefined) return null;
  if (secure) return source ?? maskUrl(url);
  return maskUrl(url);
}

/**
 * Plugin settings with secrets masked, at any depth: every string or number under a
 * secret-looking key (`apiKeys: ['k1']`, `secret: { value: 'x' }` as well as `token: 'x'`), and
 * in every other string the credentials of a URL or of `password=...` pairs (`maskUrl`).
 */
function maskSecrets(value: unknown, secret = false): unknown {
  if (Array.isArray(value)) return value.map((v) => maskSecrets(v, secret));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, maskSecrets(v, secret || isSecretOptionName(k))]));
  }
  if (secret && (typeof value === 'string' || typeof value === 'number' || typeof value === 'bigint')) return '***';
  return typeof value === 'string' ? maskUrl(value) : value;
}

/** Project-relative path with forward slashes (`migrations/app`). */
function projectPath(root: string, path: string): string {
  return relative(root, path).split(sep).join('/') || '.';
}

/** The fields the spec lists for `settings show`, in its order. */
export function settingsView(entry: DatabaseEntry, config: LoadedConfig): Record<string, unknown> {
  return {
    database_name: entry.name,
    default: entry.isDefault,
    database_type: entry.type,
    database_url: shownUrl(entry.url, entry.urlSource, entry.secureValues),
    migrations_dir: projectPath(config.root, entry.migrationsDir),
    migration_table: entry.migrationTable,
    seed_table: entry.seedTable,
    model_paths: entry.modelPaths,
    dev_database_type: entry.devType ?? null,
    dev_database_url: shownUrl(entry.devUrl, entry.devUrlSource, entry.secureValues),
    overlap_models: entry.overlapModels,
  };
}

/** Every field of an entry (`config`, `settings show --all`): the spec's list plus the rest. */
export function fullView(entry: DatabaseEntry, config: LoadedConfig): Record<string, unknown> {
  return {
    ...settingsView(entry, config),
    database_url_async: shownUrl(entry.urlAsync, undefined, entry.secureValues),
    configured_database_type: entry.configuredType,
    model_tables: entry.modelTables,
    secure_values: entry.secureValues,
    auto_apply_seeds: entry.autoApplySeeds,
    skip_if_missing: entry.skipIfMissing,
    pg_schema: entry.pgSchema ?? null,
    plugins: maskSecrets(entry.plugins),
  };
}

/** One row of `database list`. */
export function listView(entry: DatabaseEntry, config: LoadedConfig): Record<string, unknown> {
  const view = settingsView(entry, config);
  return { database_name: view.database_name, database_type: view.database_type, default: view.default, database_url: view.database_url };
}
