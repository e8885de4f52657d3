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
 * `.mtool/model_state.json` (spec "Model state file"; written by `export-models` and
 * `recover-model-state`, read by offline `make-migrations` and `diff`). Canonical JSON, written
 * atomically, meant to be committed:
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

/** Where the model state file of a project lives by default. */
export function modelStatePath(root: string): string {
  return join(root, '.mtool', 'model_state.json');
}

/** Checksum of one database's schema in the model state file. */
export function schemaChecksum(schema: SchemaIR): string {
  return sha256Hex(canonicalJson(schema));
}

/**
 * A database's entry (its type, its schema and the schema's checksum) and the schema's canonical
 * text the checksum hashes: hand both to {@link putModelStateEntry}, so a large schema is
 * serialized once.
 */
export function modelStateEntry(databaseType: DatabaseType, schema: SchemaIR): { entry: ModelStateEntry; schemaText: string } {
  const schemaText = canonicalJson(schema);
  return { entry: { database_type: databaseType, checksum: sha256Hex(schemaText), schema }, schemaText };
}

export interface ReadModelStateOptions {
  /**
   * A database whose entry is about to be replaced: its checksum is not verified (hashing a large
   * schema costs as much as writing it, and a broken entry is what replacing it repairs).
   */
  skipCheck?: string;
}

/**
 * Read a model state file at any path (`.mtool/model_state.json` or `--output`). `undefined` when
 * it does not exist.
 * @throws MtoolError `MTOOL_SNAPSHOT` when it is not valid JSON, has an unknown format, an entry
 *   has no schema or an entry's checksum does not match; the message says how to regenerate it.
 */
export async function readModelStateFile(path: string, options: ReadModelStateOptions = {}): Promise<ModelState | undefined> {
  return readVerified(path, options, new Map());
}

/** {@link readModelStateFile}, putting the canonical text of each verified schema into `texts`. */
async function readVerified(path: string, options: ReadModelStateOptions, texts: Map<object, string>): Promise<ModelState | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new MtoolError('MTOOL_SNAPSHOT', `cannot read ${path}: ${(error as Error).message}`, { cause: error });
  }
  // export-models and recover-model-state read the file before they replace an entry: a broken file
  // stops them too, so it has to go first.
  const fix = 'delete it, then run `mtool export-models` to regenerate it or `mtool recover-model-state` to restore it from the database';
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
    if (name === options.skipCheck && schema) continue;
    if (!schema || ['tables', 'enums', 'indexes', 'constraints'].some((k) => typeof schema[k] !== 'object' || schema[k] === null)) {
      throw new MtoolError('MTOOL_SNAPSHOT', `${path}: database '${name}' has no valid schema; ${fix}`, { database: name });
    }
    const schemaText = canonicalJson(entry.schema);
    texts.set(entry.schema, schemaText);
    if (sha256Hex(schemaText) !== entry.checksum) {
      throw new MtoolError('MTOOL_SNAPSHOT', `${path}: the schema of database '${name}' does not match its checksum (edited by hand?); ${fix}`, { database: name });
    }
  }
  return state as ModelState;
}

/** Read the project's `.mtool/model_state.json` (see {@link readModelStateFile}). */
export function readModelState(root: string): Promise<ModelState | undefined> {
  return readModelStateFile(modelStatePath(root));
}

/**
 * Put one database's entry into the model state file at `path`, other databases' entries kept,
 * creating the file (and its folder) when needed: canonical JSON, written atomically with
 * read-back verification. `schemaText`, when given, is `canonicalJson(entry.schema)` (as
 * {@link modelStateEntry} returns it); the schemas already in the file are checked against their
 * checksums through the same text, so no schema is serialized twice.
 * @example const { entry, schemaText } = modelStateEntry('postgresql', schema); await putModelStateEntry(modelStatePath(root), 'app', entry, schemaText)
 */
export async function putModelStateEntry(path: string, database: string, entry: ModelStateEntry, schemaText?: string): Promise<ModelState> {
  const texts = new Map<object, string>();
  const current = (await readVerified(path, { skipCheck: database }, texts)) ?? { format_version: MODEL_STATE_FORMAT_VERSION, databases: {} };
  if (schemaText !== undefined) texts.set(entry.schema, schemaText);
  const next: ModelState = { format_version: MODEL_STATE_FORMAT_VERSION, databases: { ...current.databases, [database]: entry } };
  await mkdir(dirname(path), { recursive: true });
  await writeFileAtomic(path, canonicalJson(next, texts), { verify: true });
  return next;
}

/**
 * Replace one database's entry of the project's `.mtool/model_state.json` (see
 * {@link putModelStateEntry}).
 * @example await updateModelState(root, 'app', 'postgresql', compileModels(models, { dialect: 'postgresql' }))
 */
export function updateModelState(root: string, databaseName: string, databaseType: DatabaseType, schema: SchemaIR): Promise<ModelState> {
  const { entry, schemaText } = modelStateEntry(databaseType, schema);
  return putModelStateEntry(modelStatePath(root), databaseName, entry, schemaText);
}
