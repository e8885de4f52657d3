export {
  SNAPSHOT_FORMAT_VERSION,
  findLatestSnapshot,
  listSnapshots,
  readSnapshot,
  snapshotChecksum,
  snapshotDir,
  writeSnapshot,
} from './snapshot-store.js';
export type { SnapshotEntry, SnapshotFile, SnapshotLogOptions, WriteSnapshotInput } from './snapshot-store.js';
export { normalizeV1Schema } from './snapshot-v1.js';
export { MODEL_STATE_FORMAT_VERSION, modelStatePath, readModelState, schemaChecksum, updateModelState, writeModelState } from './model-state.js';
export type { ModelState, ModelStateEntry } from './model-state.js';
