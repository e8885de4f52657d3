import type { DatabaseType } from '../../dialects/types.js';

/** What `databaseConfig({...})` and `class X extends MtoolDatabase` statics accept (spec: Database configuration entry). */
export interface DatabaseConfigInput {
  databaseName: string;
  default?: boolean;
  databaseType: DatabaseType;
  /** The spec's `database_url_sync`. */
  databaseUrl: string;
  databaseUrlAsync?: string;
  modelPaths?: string[];
  modelTables?: string[];
  overlapModels?: boolean;
  devDatabaseType?: DatabaseType;
  devDatabaseUrl?: string;
  secureValues?: boolean;
  autoApplySeeds?: boolean;
  /** Default `_mtool_seeds`. */
  seedTable?: string;
  /** Default `_mtool_migrations`. */
  migrationTable?: string;
  skipIfMissing?: boolean;
  pgSchema?: string;
  plugins?: Record<string, unknown>;
}

/** One validated database of the registry: plain data, no connection. */
export interface DatabaseEntry {
  name: string;
  isDefault: boolean;
  /** Effective type (the dev type under `--dev`). */
  type: DatabaseType;
  /** Effective URL (the dev URL under `--dev`). Never print it: use `maskUrl`. */
  url: string;
  /** `env(NAME)` when the URL came from `env()`, for `secureValues` output. */
  urlSource: string | undefined;
  urlAsync: string | undefined;
  /** Type and URL as configured, before any `--dev` swap. */
  configuredType: DatabaseType;
  configuredUrl: string;
  devType: DatabaseType | undefined;
  devUrl: string | undefined;
  devUrlSource: string | undefined;
  modelPaths: string[];
  modelTables: string[];
  overlapModels: boolean;
  secureValues: boolean;
  autoApplySeeds: boolean;
  seedTable: string;
  migrationTable: string;
  skipIfMissing: boolean;
  pgSchema: string | undefined;
  plugins: Record<string, unknown>;
  /** Absolute `migrations/<name>` folder. */
  migrationsDir: string;
}

export type ConfigSourceKind = 'root-file' | 'env-module' | 'scan';

export interface LoadedConfig {
  /** Project root (where `mtool.config.ts` or `migrations/` lives; the cwd otherwise). */
  root: string;
  source: { kind: ConfigSourceKind; files: string[] };
  databases: DatabaseEntry[];
  /** `--dev` was applied. */
  dev: boolean;
  /** Rule 7: defaults that stood in for missing backend or schema values (also logged at WARNING). */
  warnings?: string[];
}
