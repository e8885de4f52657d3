export {
  SNAPSHOT_FORMAT_VERSION,
  findLatestSnapshot,
  listSnapshots,
  readSnapshot,
  snapshotDir,
  writeSnapshot,
} from './snapshot-store.js';
export type { SnapshotEntry, SnapshotFile, SnapshotLogOptions, WriteSnapshotInput } from './snapshot-store.js';
export { snapshotChecksum, snapshotText } from './snapshot-text.js';
export { normalizeV1Schema } from './snapshot-v1.js';
export { SnapshotWriter } from './snapshot-writer.js';
export type { BatchSnapshotInput } from './snapshot-writer.js';
