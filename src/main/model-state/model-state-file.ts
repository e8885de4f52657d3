import { mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { MtoolError } from '../../errors.js';
import { canonicalJson } from '../../schema/canonical-json.js';
import { writeFileAtomic } from '../fs/atomic-write.js';
import { MODEL_STATE_FORMAT_VERSION, schemaChecksum, type ModelState, type ModelStateEntry } from '../snapshot/model-state.js';

/**
 * Read a model state file at any path (`export-models --output`), in the format of
 * `.mtool/model_state.json` (see src/main/snapshot/model-state.ts). `undefined` when absent.
 * `skipCheck` names a database whose entry is about to be replaced: its checksum is not verified
 * (hashing a large schema costs as much as writing it).
 * @throws MtoolError MTOOL_SNAPSHOT when it is not such a file or an entry fails its checksum.
 */
export async function readModelStateFile(path: string, options: { skipCheck?: string } = {}): Promise<ModelState | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new MtoolError('MTOOL_SNAPSHOT', `cannot read ${path}: ${(error as Error).message}`, { cause: error });
  }
  const fix = 'delete it and run `mtool export-models` again, or `mtool recover-model-state`';
  let state: Partial<ModelState> | null;
  try {
    state = JSON.parse(text) as Partial<ModelState> | null;
  } catch (error) {
    throw new MtoolError('MTOOL_SNAPSHOT', `${path} is not valid JSON (${(error as Error).message}); ${fix}`, { cause: error });
  }
  if (!state || state.format_version !== MODEL_STATE_FORMAT_VERSION || typeof state.databases !== 'object' || state.databases === null) {
    throw new MtoolError('MTOOL_SNAPSHOT', `${path} is not a model state file of format_version ${MODEL_STATE_FORMAT_VERSION}; ${fix}`);
  }
  for (const [name, entry] of Object.entries(state.databases)) {
    if (name === options.skipCheck && entry?.schema) continue;
    if (!entry?.schema || schemaChecksum(entry.schema) !== entry.checksum) {
      throw new MtoolError('MTOOL_SNAPSHOT', `${path}: the entry of database '${name}' does not match its checksum (edited by hand?); ${fix}`, { database: name });
    }
  }
  return state as ModelState;
}

/**
 * Put one database's entry into the model state file at `path` (other databases kept), as
 * canonical JSON written atomically with read-back verification.
 */
export async function putModelStateEntry(path: string, database: string, entry: ModelStateEntry): Promise<ModelState> {
  const current = (await readModelStateFile(path, { skipCheck: database })) ?? { format_version: MODEL_STATE_FORMAT_VERSION, databases: {} };
  const next: ModelState = { format_version: MODEL_STATE_FORMAT_VERSION, databases: { ...current.databases, [database]: entry } };
  await mkdir(dirname(path), { recursive: true });
  await writeFileAtomic(path, canonicalJson(next), { verify: true });
  return next;
}
