import { mkdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { DatabaseType } from '../../dialects/types.js';
import { MtoolError } from '../../errors.js';
import { canonicalJson, sha256Hex } from '../../schema/canonical-json.js';
import type { SchemaIR } from '../../schema/ir.js';
import { writeFileAtomic } from '../fs/atomic-write.js';

/** Current format of `.mtool/model_state.json`. */
export const MODEL_STATE_FORMAT_VERSION = 1;

/**
 * `.mtool/model_state.json` (spec "Model state file"; written by `export-models`, read by offline
 * `make-migrations` and `diff`). Canonical JSON, written atomically, meant to be committed:
 *
 * ```json
 * { "format_version": 1,
 *   "databases": { "<database_name>": { "database_type": "postgresql",
 *                                       "checksum": "<sha256 of canonicalJson(schema)>",
 *                                       "schema": { "tables": {}, "enums": {}, "indexes": {}, "constraints": {} } } } }
 * ```
 * `schema` is the models compiled for that database (`compileModels`); `checksum` lets readers
 * detect hand edits and lets `recover-model-state` compare with the copy stored in the database.
 */
export interface ModelState {
  format_version: 1;
  databases: Record<string, ModelStateEntry>;
}

export interface ModelStateEntry {
  database_type: DatabaseType;
  checksum: string;
  schema: SchemaIR;
}

export function modelStatePath(root: string): string {
  return join(root, '.mtool', 'model_state.json');
}

/** Checksum of one database's schema in the model state file. */
export function schemaChecksum(schema: SchemaIR): string {
  return sha256Hex(canonicalJson(schema));
}

/**
 * Read the model state file. `undefined` when it does not exist; an `MTOOL_SNAPSHOT` error when
 * it is not valid JSON, has an unknown format or a database entry's checksum does not match
 * (the error says how to regenerate it).
 */
export async function readModelState(root: string): Promise<ModelState | undefined> {
  const path = modelStatePath(root);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new MtoolError('MTOOL_SNAPSHOT', `cannot read ${path}: ${(error as Error).message}`, { cause: error });
  }
  const fix = 'run `mtool export-models` to regenerate it, or `mtool recover-model-state` to restore it from the database';
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new MtoolError('MTOOL_SNAPSHOT', `${path} is not valid JSON (${(error as Error).message}); ${fix}`, { cause: error });
  }
  const state = data as Partial<ModelState> | null;
  if (!state || typeof state !== 'object' || state.format_version !== MODEL_STATE_FORMAT_VERSION || typeof state.databases !== 'object' || state.databases === null) {
    throw new MtoolError('MTOOL_SNAPSHOT', `${path} is not a model state file of format_version ${MODEL_STATE_FORMAT_VERSION}; ${fix}`);
  }
  for (const [name, entry] of Object.entries(state.databases)) {
    const schema = entry?.schema as unknown as Record<string, unknown> | undefined;
    if (!schema || ['tables', 'enums', 'indexes', 'constraints'].some((k) => typeof schema[k] !== 'object' || schema[k] === null)) {
      throw new MtoolError('MTOOL_SNAPSHOT', `${path}: database '${name}' has no valid schema; ${fix}`, { database: name });
    }
    if (schemaChecksum(entry.schema) !== entry.checksum) {
      throw new MtoolError('MTOOL_SNAPSHOT', `${path}: the schema of database '${name}' does not match its checksum (edited by hand?); ${fix}`, { database: name });
    }
  }
  return state as ModelState;
}

/** Write the whole model state file (canonical JSON, atomic with verify). */
export async function writeModelState(root: string, state: ModelState): Promise<string> {
  const path = modelStatePath(root);
  await mkdir(dirname(path), { recursive: true });
  await writeFileAtomic(path, canonicalJson(state), { verify: true });
  return path;
}

/**
 * Replace one database's entry (others are kept), creating the file when needed.
 * @example await updateModelState(root, 'app', 'postgresql', compileModels(models, { dialect: 'postgresql' }))
 */
export async function updateModelState(root: string, databaseName: string, databaseType: DatabaseType, schema: SchemaIR): Promise<ModelState> {
  const current = (await readModelState(root)) ?? { format_version: MODEL_STATE_FORMAT_VERSION, databases: {} };
  const next: ModelState = {
    format_version: MODEL_STATE_FORMAT_VERSION,
    databases: { ...current.databases, [databaseName]: { database_type: databaseType, checksum: schemaChecksum(schema), schema } },
  };
  await writeModelState(root, next);
  return next;
}
