import { createHash } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { DatabaseType } from '../../dialects/types.js';
import { DATABASE_TYPES } from '../../dialects/types.js';
import { MtoolError } from '../../errors.js';
import type { SchemaIR } from '../../schema/ir.js';
import { writeFileAtomic, writeFileAtomicSync } from '../fs/atomic-write.js';
import { MapText } from './map-text.js';
import { LAYOUT, memberPrefix } from './snapshot-text.js';
import { keptEnums, replacedTables, type SchemaStep } from './schema-window.js';
import { checkSchemaShape, listSnapshots, parseMigrationId, readSnapshot, SNAPSHOT_FORMAT_VERSION, snapshotDir, type SnapshotLogOptions } from './snapshot-store.js';

/** One snapshot for {@link SnapshotWriter.write}. */
export interface BatchSnapshotInput {
  migrationId: string;
  schema: SchemaIR;
  /** Default: now. */
  appliedAt?: Date;
}

export interface SnapshotWriterOptions extends SnapshotLogOptions {
  /**
   * Write each file with blocking calls inside {@link SnapshotWriter.stage} (its `written` is
   * settled on return). For a worker thread that does nothing else (snapshot-worker.ts); the
   * default writes through the thread pool and lets the caller stage the next file meanwhile.
   */
  blockingWrites?: boolean;
}

/** One snapshot for {@link SnapshotWriter.stageStep}: the schema of the one before, changed by a step. */
export interface StepSnapshotInput {
  migrationId: string;
  /** The schema before the step, for the first step of a batch (or after a window restarted). */
  start?: SchemaIR;
  step: SchemaStep;
  appliedAt?: Date;
}

/** How {@link SnapshotWriter.write} makes a file durable. */
export interface SnapshotWriteOptions {
  /**
   * fsync the file and its folder before returning (default true). `false`: temp file, verify,
   * rename only; the caller syncs (see snapshot-queue.ts for the batch policy).
   */
  sync?: boolean;
}

/** A snapshot laid out and hashed, its file being written: see {@link SnapshotWriter.stage}. */
export interface StagedSnapshot {
  path: string;
  checksum: string;
  /** The `previous_checksum` it holds. */
  previous: string | null;
  bytes: number;
  /** Resolves once the file is in place: to `undefined`, or to the error that kept it from being written. */
  written: Promise<unknown>;
}

/** A snapshot file known to the writer: listed once, or written by it. */
interface Known {
  path: string;
  version: number;
  /** Set once read (intact) or written; `null` once found unusable. */
  checksum?: string | null;
  /** Its `applied_at`, with the checksum. */
  appliedAt?: string;
}

/** The schema's maps, in the order the step code destructures them. */
const MAPS_BY_NAME = ['tables', 'enums', 'indexes', 'constraints'] as const;

/**
 * Writes the snapshots of one database during one `migrate` batch, byte for byte what
 * {@link writeSnapshot} writes (same snapshotText layout, checksum and `previous_checksum` rule), at a
 * cost that does not grow with the batch:
 * - the snapshot folder is listed once; the previous checksum of each later snapshot is the one
 *   this writer just wrote, and files are read back only where an earlier version lies between;
 * - the canonical text of each table, enum, index and constraint is kept per object (the caller
 *   passes the same objects for what did not change, and never mutates them), so a snapshot is
 *   assembled from kept pieces and hashed, not serialized again from scratch.
 * @example const w = new SnapshotWriter(root, 'app', 'postgresql'); await w.write({ migrationId: 'app__0002_posts', schema });
 */
export class SnapshotWriter {
  readonly #root: string;
  readonly #databaseName: string;
  readonly #databaseType: DatabaseType;
  readonly #options: SnapshotLogOptions;
  readonly #blocking: boolean;
  /** Sorted as {@link listSnapshots} sorts: version, then path. */
  #known: Known[] | undefined;
  /** The paths in {@link #known} (each once): a batch's new files are looked up without a scan of the list. */
  #knownPaths = new Set<string>();
  /** Per IR object: its line in the map it was last seen in (the key is part of the line). */
  #lines = new WeakMap<object, { key: string; line: Buffer }>();
  /** Per map (`tables` ...): its text as of the last staged snapshot. */
  #maps = new Map<string, MapText>();
  /** A snapshot was staged: the maps hold its schema. */
  #hasState = false;
  #dirReady = false;
  /** Two reusable buffers for the bytes of files being written. */
  #scratch: { memory: Buffer | undefined; busy: boolean }[] = [
    { memory: undefined, busy: false },
    { memory: undefined, busy: false },
  ];

  constructor(root: string, databaseName: string, databaseType: DatabaseType, options: SnapshotWriterOptions = {}) {
    if (!DATABASE_TYPES.includes(databaseType)) throw new MtoolError('MTOOL_SNAPSHOT', `snapshot for database '${databaseName}': unknown database type '${databaseType}'`);
    this.#root = root;
    this.#databaseName = databaseName;
    this.#databaseType = databaseType;
    this.#options = options;
    this.#blocking = options.blockingWrites ?? false;
  }

  /**
   * Write `.mtool/schemas/<migration id>.schema.json` atomically (temp file, fsync unless
   * `sync: false`, verify, rename).
   * @throws MtoolError `MTOOL_SNAPSHOT` for a malformed migration id or schema; file system errors as they come.
   */
  async write(input: BatchSnapshotInput, options: SnapshotWriteOptions = {}): Promise<{ path: string; checksum: string; bytes: number }> {
    const staged = await this.stage(input, options);
    const error = await staged.written;
    if (error !== undefined) throw error;
    return { path: staged.path, checksum: staged.checksum, bytes: staged.bytes };
  }

  /**
   * Lay out and hash the snapshot now, and write its file in the background: the caller may stage
   * the next snapshot while this one is written (its `previous_checksum` is this one's). Two files
   * at most should be under way at once: their bytes live in the writer's two reusable buffers.
   * When the file cannot be written the writer forgets it (a snapshot staged after it chained to
   * it: stage that one again). `written` never rejects: it resolves to the error, if any.
   * @throws MtoolError `MTOOL_SNAPSHOT` for a malformed migration id or schema; errors of the folder's listing or creation.
   */
  async stage(input: BatchSnapshotInput, options: SnapshotWriteOptions = {}): Promise<StagedSnapshot> {
    const id = this.#id(input.migrationId);
    this.#apply(this.#prepareSchema(input.schema, `snapshot ${input.migrationId}`));
    return this.#emit(id, input.appliedAt, options);
  }

  /**
   * Lay out the text of `schema`'s objects now and write nothing: a later snapshot of a schema
   * that shares most of its objects (the same objects, see the class comment) then lays out only
   * the others. For a schema followed while migrations run (schema-follower.ts): the final
   * snapshot's lines are then mostly ready when the batch ends.
   * @throws MtoolError `MTOOL_SNAPSHOT` for a malformed schema; nothing changes when it throws.
   */
  warm(schema: SchemaIR): void {
    checkSchemaShape(schema, 'followed schema');
    for (const name of MAPS_BY_NAME) this.#map(name).warm(schema[name] as Record<string, unknown>);
  }

  /**
   * {@link stage} for the schema the last staged snapshot held (or `start`, when given) changed by
   * one migration's `step`, as mergeTables changes a schema (replacedTables, keptEnums): only the
   * objects the step names are laid out, and only where they sort is the text of each map patched
   * (a batch's files then cost what they weigh, not a sort and layout of the whole schema each).
   * @throws MtoolError `MTOOL_SNAPSHOT` as {@link stage}; nothing changes when it throws.
   */
  async stageStep(input: StepSnapshotInput, options: SnapshotWriteOptions = {}): Promise<StagedSnapshot> {
    if (!input.start && !this.#hasState) throw new MtoolError('MTOOL_SNAPSHOT', `snapshot ${input.migrationId}: no schema before this step (the first step of a batch carries its start schema)`);
    const where = `snapshot ${input.migrationId}`;
    const appliers = input.start ? this.#prepareSchema(input.start, where) : [];
    const step = input.step;
    if (step.kind === 'full') appliers.push(...this.#prepareSchema(step.schema, where));
    else if (step.kind === 'partial') {
      checkSchemaShape(step.part, where);
      const replaced = replacedTables(step.part, step.replaced);
      const [tables, enums, indexes, constraints] = MAPS_BY_NAME.map((name) => this.#map(name));
      appliers.push(tables!.prepare(step.part.tables, replaced));
      for (const [map, part] of [
        [indexes!, step.part.indexes],
        [constraints!, step.part.constraints],
      ] as const) {
        appliers.push(map.prepare(part, map.keysWhere('table', replaced)));
      }
      if (step.enums) {
        const fresh = keptEnums((key) => enums!.get(key), step.part.enums);
        if (!enums!.holds(fresh)) appliers.push(enums!.prepareReset(fresh));
      }
    }
    this.#apply(appliers);
    // After the step: the schema of the next snapshot follows this one whether or not its file can be written.
    return this.#emit(this.#id(input.migrationId), input.appliedAt, options);
  }

  /**
   * The last staged snapshot's schema again, under this id: for a snapshot staged while the file
   * it chained to was being written, when that write failed (its `previous_checksum` changes).
   */
  async restage(input: { migrationId: string; appliedAt?: Date }, options: SnapshotWriteOptions = {}): Promise<StagedSnapshot> {
    if (!this.#hasState) throw new MtoolError('MTOOL_SNAPSHOT', `snapshot ${input.migrationId}: nothing staged to write again`);
    return this.#emit(this.#id(input.migrationId), input.appliedAt, options);
  }

  #id(migrationId: string): { version: number; migrationId: string } {
    const { versionText, description } = parseMigrationId(migrationId, this.#databaseName);
    return { version: Number(versionText), migrationId: `${this.#databaseName}__${versionText}_${description}` };
  }

  #map(name: string): MapText {
    let map = this.#maps.get(name);
    if (!map) this.#maps.set(name, (map = new MapText(this.#lines)));
    return map;
  }

  /** The changes that make the maps hold `schema` (none for maps that already do). */
  #prepareSchema(schema: SchemaIR, where: string): (() => void)[] {
    checkSchemaShape(schema, where);
    const appliers: (() => void)[] = [];
    for (const name of MAPS_BY_NAME) {
      const map = this.#map(name);
      const wanted = schema[name] as Record<string, unknown>;
      if (!this.#hasState || !map.holds(wanted)) appliers.push(map.prepareReset(wanted));
    }
    return appliers;
  }

  #apply(appliers: readonly (() => void)[]): void {
    for (const apply of appliers) apply();
    this.#hasState = true;
  }

  /** Lay out, hash and write the snapshot of the maps as they are now. */
  async #emit(id: { version: number; migrationId: string }, appliedAt: Date | undefined, options: SnapshotWriteOptions): Promise<StagedSnapshot> {
    const { version, migrationId } = id;
    const dir = snapshotDir(this.#root);
    const path = join(dir, `${migrationId}.schema.json`);
    const previous = await this.#previousChecksum(version);
    const appliedAtText = (appliedAt ?? new Date()).toISOString();

    // Members in canonical (sorted) order, each as byte pieces; `checksum` gets a placeholder that
    // is left out of the hash and filled in after it.
    const members: Record<string, Buffer[]> = {
      applied_at: [utf8(JSON.stringify(appliedAtText))],
      checksum: [PLACEHOLDER],
      database_name: [utf8(JSON.stringify(this.#databaseName))],
      database_type: [utf8(JSON.stringify(this.#databaseType))],
      format_version: [utf8(JSON.stringify(SNAPSHOT_FORMAT_VERSION))],
      migration_id: [utf8(JSON.stringify(migrationId))],
      previous_checksum: [utf8(JSON.stringify(previous))],
    };
    for (const name of MAPS_BY_NAME) members[name] = this.#map(name).bytes();
    const pieces: Buffer[] = [OPEN];
    let checksumStart = 0;
    let checksumEnd = 0;
    let length = OPEN.length;
    const keys = Object.keys(members).sort();
    keys.forEach((key, i) => {
      const start = length;
      for (const piece of [utf8(memberPrefix(key)), ...members[key]!, i < keys.length - 1 ? COMMA : CLOSE]) {
        pieces.push(piece);
        length += piece.length;
      }
      if (key === 'checksum') [checksumStart, checksumEnd] = [start, length];
    });
    if (!this.#dirReady) {
      await mkdir(dir, { recursive: true });
      this.#dirReady = true;
    }
    const { bytes, release } = this.#assemble(pieces, length);
    const checksum = createHash('sha256').update(bytes.subarray(0, checksumStart)).update(bytes.subarray(checksumEnd)).digest('hex');
    bytes.write(checksum, checksumEnd - COMMA.length - 1 - checksum.length, 'latin1');
    const replaced = this.#remember({ path, version, checksum, appliedAt: appliedAtText });
    const failed = (error: unknown) => {
      this.#forget(path, checksum, replaced);
      return error;
    };
    const writeOptions = { verify: true, sync: options.sync !== false };
    let written: Promise<unknown>;
    if (this.#blocking) {
      try {
        writeFileAtomicSync(path, bytes, writeOptions);
        written = Promise.resolve(undefined);
      } catch (error) {
        written = Promise.resolve(failed(error));
      }
      release();
    } else {
      written = writeFileAtomic(path, bytes, writeOptions).then(() => undefined, failed);
      void written.finally(release);
    }
    return { path, checksum, previous, bytes: bytes.length, written };
  }

  /**
   * The pieces laid end to end in one of two buffers kept between files (a batch writes hundreds
   * of megabytes: fresh buffers would cost more in page faults and garbage collection than the
   * copying); a fresh buffer when both hold files still being written.
   */
  #assemble(pieces: readonly Buffer[], length: number): { bytes: Buffer; release: () => void } {
    const slot = this.#scratch.findIndex((s) => !s.busy);
    let memory: Buffer;
    let release = () => undefined as void;
    if (slot < 0) {
      memory = Buffer.allocUnsafe(length);
    } else {
      const scratch = this.#scratch[slot]!;
      if (!scratch.memory || scratch.memory.length < length) scratch.memory = Buffer.allocUnsafe(Math.max(length, 2 * (scratch.memory?.length ?? 0)));
      memory = scratch.memory;
      scratch.busy = true;
      release = () => {
        scratch.busy = false;
      };
    }
    let at = 0;
    for (const piece of pieces) at += piece.copy(memory, at);
    return { bytes: memory.subarray(0, length), release };
  }

  /**
   * The checksum of the latest intact snapshot of an earlier version (of several files of that
   * version, the one applied last), as writeSnapshot finds it.
   */
  async #previousChecksum(version: number): Promise<string | null> {
    if (!this.#known) {
      this.#known = (await listSnapshots(this.#root, this.#databaseName)).map((e) => ({ path: e.path, version: e.version }));
      this.#knownPaths = new Set(this.#known.map((e) => e.path));
    }
    let latest: Known | undefined;
    for (let k = this.#known.length - 1; k >= 0; k--) {
      const entry = this.#known[k]!;
      if (entry.version >= version) continue;
      if (latest && entry.version < latest.version) break;
      if (entry.checksum === undefined) {
        const snap = await readSnapshot(entry.path, this.#options);
        entry.checksum = snap?.checksum ?? null;
        entry.appliedAt = snap?.applied_at;
      }
      if (entry.checksum !== null && (!latest || (entry.appliedAt ?? '') > (latest.appliedAt ?? ''))) latest = entry;
    }
    return latest?.checksum ?? null;
  }

  /** Record a file as written (replacing what was known of the same path, which is returned). */
  #remember(entry: Known): Known | undefined {
    const known = (this.#known ??= []);
    const index = this.#knownPaths.has(entry.path) ? known.findLastIndex((e) => e.path === entry.path) : -1;
    const replaced = index < 0 ? undefined : known.splice(index, 1)[0];
    // A batch writes versions in ascending order: the new entry goes last, found from the end.
    let at = known.length;
    while (at > 0 && (known[at - 1]!.version > entry.version || (known[at - 1]!.version === entry.version && known[at - 1]!.path > entry.path))) at--;
    known.splice(at, 0, entry);
    this.#knownPaths.add(entry.path);
    return replaced;
  }

  /** A staged file could not be written: the file of that path is what was known before. */
  #forget(path: string, checksum: string, replaced: Known | undefined): void {
    const at = this.#known?.findIndex((e) => e.path === path && e.checksum === checksum) ?? -1;
    if (at < 0) return;
    this.#known!.splice(at, 1);
    this.#knownPaths.delete(path);
    if (replaced) this.#remember(replaced);
  }
}

const utf8 = (text: string) => Buffer.from(text, 'utf8');
const OPEN = utf8(LAYOUT.open);
const COMMA = utf8(LAYOUT.separator);
const CLOSE = utf8(LAYOUT.close);
/** `"` + 64 hex digits + `"`: the checksum's place, overwritten once the rest is hashed. */
const PLACEHOLDER = utf8(`"${'0'.repeat(64)}"`);
