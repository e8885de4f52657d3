import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { DatabaseType } from '../../dialects/types.js';
import { DATABASE_TYPES } from '../../dialects/types.js';
import { MtoolError } from '../../errors.js';
import { canonicalJson, sha256Hex } from '../../schema/canonical-json.js';
import type { SchemaIR } from '../../schema/ir.js';
import { writeFileAtomic } from '../fs/atomic-write.js';
import { checkSchemaShape, listSnapshots, parseMigrationId, readSnapshot, SNAPSHOT_FORMAT_VERSION, snapshotDir, type SnapshotLogOptions } from './snapshot-store.js';

/** One snapshot for {@link SnapshotWriter.write}. */
export interface BatchSnapshotInput {
  migrationId: string;
  schema: SchemaIR;
  /** Default: now. */
  appliedAt?: Date;
}

/** A snapshot file known to the writer: listed once, or written by it. */
interface Known {
  path: string;
  version: number;
  /** Set once read (intact) or written; `null` once found unusable. */
  checksum?: string | null;
}

const MAPS = ['constraints', 'enums', 'indexes', 'tables'] as const;

/**
 * Writes the snapshots of one database during one `migrate` batch, byte for byte what
 * {@link writeSnapshot} writes (same canonical JSON, checksum and `previous_checksum` rule), at a
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
  /** Sorted as {@link listSnapshots} sorts: version, then path. */
  #known: Known[] | undefined;
  /** Per IR object: its line in the map it was last seen in (the key is part of the line). */
  #lines = new WeakMap<object, { key: string; line: string }>();
  /** Per map (`tables` ...): the keys, objects and text of the last snapshot. */
  #maps = new Map<string, { keys: string[]; values: unknown[]; text: string }>();
  #dirReady = false;

  constructor(root: string, databaseName: string, databaseType: DatabaseType, options: SnapshotLogOptions = {}) {
    if (!DATABASE_TYPES.includes(databaseType)) throw new MtoolError('MTOOL_SNAPSHOT', `snapshot for database '${databaseName}': unknown database type '${databaseType}'`);
    this.#root = root;
    this.#databaseName = databaseName;
    this.#databaseType = databaseType;
    this.#options = options;
  }

  /**
   * Write `.mtool/schemas/<migration id>.schema.json` atomically (temp file, fsync, verify, rename).
   * @throws MtoolError `MTOOL_SNAPSHOT` for a malformed migration id or schema; file system errors as they come.
   */
  async write(input: BatchSnapshotInput): Promise<{ path: string; checksum: string }> {
    const { versionText, description } = parseMigrationId(input.migrationId, this.#databaseName);
    checkSchemaShape(input.schema, `snapshot ${input.migrationId}`);
    const version = Number(versionText);
    const migrationId = `${this.#databaseName}__${versionText}_${description}`;
    const dir = snapshotDir(this.#root);
    const path = join(dir, `${migrationId}.schema.json`);
    const previous = await this.#previousChecksum(version);

    const top: Record<string, string> = {
      applied_at: JSON.stringify((input.appliedAt ?? new Date()).toISOString()),
      database_name: JSON.stringify(this.#databaseName),
      database_type: JSON.stringify(this.#databaseType),
      format_version: JSON.stringify(SNAPSHOT_FORMAT_VERSION),
      migration_id: JSON.stringify(migrationId),
      previous_checksum: JSON.stringify(previous),
    };
    for (const name of MAPS) top[name] = this.#mapText(name, input.schema[name] as Record<string, unknown>);
    const bodyText = objectText(top);
    const checksum = sha256Hex(bodyText);
    // `checksum` sorts right after `applied_at`, the first member: insert its line there instead of laying the whole text out again.
    const afterFirst = bodyText.indexOf(',\n') + 2;
    const text = `${bodyText.slice(0, afterFirst)}  "checksum": ${JSON.stringify(checksum)},\n${bodyText.slice(afterFirst)}`;

    if (!this.#dirReady) {
      await mkdir(dir, { recursive: true });
      this.#dirReady = true;
    }
    await writeFileAtomic(path, text, { verify: true });
    this.#remember({ path, version, checksum });
    return { path, checksum };
  }

  /** The checksum of the latest intact snapshot of an earlier version, as writeSnapshot finds it. */
  async #previousChecksum(version: number): Promise<string | null> {
    this.#known ??= (await listSnapshots(this.#root, this.#databaseName)).map((e) => ({ path: e.path, version: e.version }));
    for (let k = this.#known.length - 1; k >= 0; k--) {
      const entry = this.#known[k]!;
      if (entry.version >= version) continue;
      if (entry.checksum === undefined) entry.checksum = (await readSnapshot(entry.path, this.#options))?.checksum ?? null;
      if (entry.checksum !== null) return entry.checksum;
    }
    return null;
  }

  #remember(entry: Known): void {
    const known = (this.#known ??= []).filter((e) => e.path !== entry.path);
    let at = known.length;
    while (at > 0 && (known[at - 1]!.version > entry.version || (known[at - 1]!.version === entry.version && known[at - 1]!.path > entry.path))) at--;
    known.splice(at, 0, entry);
    this.#known = known;
  }

  /**
   * A map of the IR at depth 1 of the snapshot, laid out as canonicalJson lays it out. The text of
   * a map whose keys and objects are those of the previous snapshot is reused as a whole.
   */
  #mapText(name: string, map: Record<string, unknown>): string {
    const keys = Object.keys(map)
      .filter((k) => map[k] !== undefined)
      .sort();
    const last = this.#maps.get(name);
    if (last && last.keys.length === keys.length && keys.every((k, i) => last.keys[i] === k && last.values[i] === map[k])) return last.text;
    const text = keys.length === 0 ? '{}' : `{\n${keys.map((k) => this.#line(k, map[k])).join(',\n')}\n  }`;
    this.#maps.set(name, { keys, values: keys.map((k) => map[k]), text });
    return text;
  }

  /** One entry of a map (depth 2) as its whole line, indented; kept per object. */
  #line(key: string, value: unknown): string {
    if (typeof value !== 'object' || value === null) return `    ${JSON.stringify(key)}: ${canonicalJson(value).slice(0, -1)}`;
    const kept = this.#lines.get(value);
    if (kept?.key === key) return kept.line;
    const line = `    ${JSON.stringify(key)}: ${canonicalJson(value).slice(0, -1).replace(/\n/g, '\n    ')}`;
    this.#lines.set(value, { key, line });
    return line;
  }
}

/** The top-level object: keys sorted, 2-space layout, trailing newline (canonicalJson's layout). */
function objectText(members: Record<string, string>): string {
  const keys = Object.keys(members).sort();
  return `{\n${keys.map((k) => `  ${JSON.stringify(k)}: ${members[k]!}`).join(',\n')}\n}\n`;
}
