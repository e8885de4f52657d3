import { MtoolConfigError, MtoolError } from '../../errors.js';
import { compileModels } from '../../schema/compile.js';
import type { SchemaIR } from '../../schema/ir.js';
import { qualifiedKey } from '../../schema/ir.js';
import { MODEL, isModel, type Model, type ModelDef } from '../../schema/model.js';
import type { DatabaseEntry, LoadedConfig } from '../config/types.js';
import type { Logger } from '../log.js';
import { listModelFiles, shown } from './list-model-files.js';
import { loadModelModules } from './load-model-modules.js';

/** One model found among a module's exports. */
export interface DiscoveredModel {
  /** File that exports it, relative to the project root (forward slashes). */
  file: string;
  /** Export name (the first one when the same model is exported several times). */
  exportName: string;
  /** Table key (`name`, or `schema.name` for a PostgreSQL table outside the default schema); enum name for enums. */
  key: string;
  kind: ModelDef['kind'];
  model: Model;
}

export interface DiscoveryResult {
  database: string;
  /** Files loaded, relative to the root. */
  files: string[];
  /** The whole project was scanned (no `modelPaths`). */
  scanned: boolean;
  /** Models of this database, after `modelTables`, in file then export order. */
  models: DiscoveredModel[];
}

export interface DiscoverOptions {
  log: Pick<Logger, 'debug'>;
}

/**
 * The models of one database (spec: `model_paths`, `model_tables`, `overlap_models`):
 * - files from `modelPaths` (files, folders, globs relative to the root), or the whole project
 *   when it is unset, which is allowed only with a single configured database;
 * - models recognised among each module's exports by their brand (`isModel`); one object
 *   exported from several files (re-exports) counts once; two different models of the same
 *   table are an error naming both files;
 * - `modelTables` keeps only the named tables (bare name or `schema.table` key); every name must
 *   exist among the discovered tables. Enums then come in through the columns that use them.
 * Overlap between databases is checked when the configuration loads (`overlapModels`).
 * @throws MtoolConfigError (exit 2) naming the paths or tables involved; MtoolError MTOOL_MODEL
 *   for conflicting models.
 * @example const { models } = await discoverModels(config, entry, { log });
 */
export async function discoverModels(config: LoadedConfig, entry: DatabaseEntry, options: DiscoverOptions): Promise<DiscoveryResult> {
  if (entry.modelPaths.length === 0 && config.databases.length > 1) {
    throw new MtoolConfigError(
      `Missing modelPaths for '${entry.name}': with several databases (${config.databases.map((d) => d.name).join(', ')}) every database needs modelPaths (files, folders or globs relative to the project root)`,
      { database: entry.name },
    );
  }
  const { files, scanned } = await listModelFiles(config.root, entry.name, entry.modelPaths, options.log);
  const modules = await loadModelModules(config.root, files);
  const defaultSchema = entry.pgSchema ?? 'public';
  const seen = new Map<object, DiscoveredModel>();
  const byKey = new Map<string, DiscoveredModel>();
  for (const { file, exports } of modules) {
    const rel = shown(config.root, file);
    let count = 0;
    for (const [exportName, value] of Object.entries(exports)) {
      if (!isModel(value) || seen.has(value)) continue;
      const def = value[MODEL];
      const key = def.kind === 'enum' ? qualifiedKey(def.name, def.schema, defaultSchema) : qualifiedKey(def.name, def.kind === 'table' && entry.type === 'postgresql' ? def.options.pgSchema : undefined, defaultSchema);
      const found: DiscoveredModel = { file: rel, exportName, key, kind: def.kind, model: value };
      seen.set(value, found);
      count++;
      if (def.kind !== 'enum') {
        const other = byKey.get(key);
        if (other) {
          throw new MtoolError('MTOOL_MODEL', `table '${key}' of database '${entry.name}' is defined twice: export '${other.exportName}' of ${other.file} and export '${exportName}' of ${rel}; keep one`, { database: entry.name });
        }
        byKey.set(key, found);
      }
    }
    options.log.debug(`models: ${rel} exports ${count} model${count === 1 ? '' : 's'}`);
  }
  let models = [...seen.values()];
  if (entry.modelTables.length > 0) {
    const tables = models.filter((m) => m.kind !== 'enum');
    const wanted = new Set(entry.modelTables);
    const matches = (m: DiscoveredModel) => wanted.has(m.key) || wanted.has(m.model[MODEL].name);
    const missing = entry.modelTables.filter((name) => !tables.some((m) => m.key === name || m.model[MODEL].name === name));
    if (missing.length > 0) {
      const known = tables.map((m) => m.key).sort();
      throw new MtoolConfigError(
        `modelTables of database '${entry.name}' name${missing.length === 1 ? 's' : ''} ${missing.map((t) => `'${t}'`).join(', ')}, which ${missing.length === 1 ? 'is' : 'are'} not among the discovered tables (${known.length > 0 ? known.join(', ') : 'none'}${scanned ? ', whole project scanned' : ` in ${entry.modelPaths.join(', ')}`}); fix the name or add the file to modelPaths`,
        { database: entry.name },
      );
    }
    models = tables.filter(matches);
  }
  return { database: entry.name, files: files.map((f) => shown(config.root, f)), scanned, models };
}

export interface CompiledModels extends DiscoveryResult {
  schema: SchemaIR;
}

/**
 * Discover a database's models and compile them for its dialect (default schema: `pgSchema`,
 * else `public`).
 * @throws as {@link discoverModels}; MtoolError MTOOL_MODEL when no model is found (rule 10:
 *   with no models, `modelPaths` must be set) or compilation fails.
 */
export async function compileDatabaseModels(config: LoadedConfig, entry: DatabaseEntry, options: DiscoverOptions & { strict?: boolean; allowEmpty?: boolean }): Promise<CompiledModels> {
  const found = await discoverModels(config, entry, options);
  if (found.models.length === 0 && !options.allowEmpty) {
    const where = found.scanned ? `the project (${found.files.length} file${found.files.length === 1 ? '' : 's'} import mtool/schema)` : `modelPaths ${entry.modelPaths.map((p) => `'${p}'`).join(', ')} (${found.files.join(', ')})`;
    throw new MtoolError('MTOOL_MODEL', `No models found for database '${entry.name}' in ${where}: export tables made with table() from 'mtool/schema', and set modelPaths to the files or folders that hold them`, { database: entry.name });
  }
  let schema: SchemaIR;
  try {
    schema = compileModels(found.models.map((m) => m.model), { dialect: entry.type, defaultSchema: entry.pgSchema ?? 'public', strict: options.strict ?? false });
  } catch (error) {
    if (error instanceof MtoolError) throw new MtoolError(error.code, `database '${entry.name}': ${error.message}`, { database: entry.name, cause: error });
    throw error;
  }
  return { ...found, schema };
}
