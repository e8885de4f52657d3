import { mkdir, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { DatabaseType } from '../../dialects/types.js';
import { DATABASE_TYPES } from '../../dialects/types.js';
import { MtoolError } from '../../errors.js';
import { canonicalize } from '../../schema/canonical-json.js';
import type { SchemaIR } from '../../schema/ir.js';
import { writeFileAtomic } from '../fs/atomic-write.js';
import { logger as defaultLogger, type Logger } from '../log.js';
import { snapshotChecksum, snapshotText, verifySnapshotChecksum } from './snapshot-text.js';
import { normalizeV1Schema } from './snapshot-v1.js';

/** Current snapshot format (spec: Versioning). */
export const SNAPSHOT_FORMAT_VERSION = 2;

/** A schema snapshot file (spec "Schema snapshot"): the header fields plus the schema IR. */
export interface SnapshotFile extends SchemaIR {
  format_version: 2;
  /** `<database_name>__<version>_<description>`. */
  migration_id: string;
  database_name: string;
  database_type: DatabaseType;
  /** ISO 8601 UTC, e.g. `2025-01-31T12:00:00.000Z`. */
  applied_at: string;
  /** SHA-256 hex of this object's file text without `checksum` (see snapshot-text.ts). */
  checksum: string;
  /** Checksum of the previous snapshot of the database in version order; null for the first. */
  previous_checksum: string | null;
}

/** A snapshot file found on disk (not yet read). */
export interface SnapshotEntry {
  path: string;
  databaseName: string;
  /** Numeric version (`0007` → 7). */
  version: number;
  /** The version as written (`0007`). */
  versionText: string;
  description: string;
  /** `<database_name>__<version>_<description>`. */
  migrationId: string;
}

export interface SnapshotLogOptions {
  /** Where warnings go (default: mtool's logger). */
  log?: Pick<Logger, 'warn'>;
}

export interface WriteSnapshotInput {
  migrationId: string;
  databaseName: string;
  databaseType: DatabaseType;
  schema: SchemaIR;
  /** Default: now. */
  appliedAt?: Date;
}

/** `.mtool/schemas` under the project root. */
export function snapshotDir(root: string): string {
  return join(root, '.mtool', 'schemas');
}

const FILE_RE = /^(.+?)__(\d+)_(.+)\.schema\.json$/;
const ID_RE = /^(.+?)__(\d+)_(.+)$/;
/** A line git writes into a file whose merge conflicted (`<<<<<<< HEAD`, `=======`, `>>>>>>> branch`). */
const CONFLICT_MARKER = /^(?:<{7}|={7}|>{7})(?: |\r?$)/m;

/**
 * Parse a migration id (`app__0003_add_users`; the `V__0003_add_users` file form is accepted and
 * takes the database's name).
 */
export function parseMigrationId(migrationId: string, databaseName: string): { versionText: string; description: string } {
  const id = migrationId.startsWith('V__') ? `${databaseName}${migrationId.slice(1)}` : migrationId;
  const m = ID_RE.exec(id);
  if (!m || m[1] !== databaseName) {
    throw new MtoolError('MTOOL_SNAPSHOT', `snapshot for database '${databaseName}': migration id '${migrationId}' is not of the form ${databaseName}__<NNNN>_<description>`, { database: databaseName });
  }
  return { versionText: m[2] as string, description: m[3] as string };
}

/**
 * Write the snapshot for an applied versioned migration to
 * `.mtool/schemas/<db>__<NNNN>_<desc>.schema.json`: canonical content laid out by snapshotText, atomic (temp file, fsync,
 * verify, rename), `previous_checksum` taken from the latest intact snapshot of an earlier
 * version (of several files of that version, the one applied last). Re-applying a version
 * overwrites its snapshot.
 * @example await writeSnapshot(root, { migrationId: 'app__0002_add_email', databaseName: 'app', databaseType: 'postgresql', schema })
 */
export async function writeSnapshot(root: string, input: WriteSnapshotInput, options: SnapshotLogOptions = {}): Promise<{ path: string; snapshot: SnapshotFile }> {
  const { versionText, description } = parseMigrationId(input.migrationId, input.databaseName);
  if (!DATABASE_TYPES.includes(input.databaseType)) throw new MtoolError('MTOOL_SNAPSHOT', `snapshot for database '${input.databaseName}': unknown database type '${input.databaseType}'`);
  checkSchemaShape(input.schema, `snapshot ${input.migrationId}`);
  const version = Number(versionText);
  const migrationId = `${input.databaseName}__${versionText}_${description}`;

  // Of several intact files of that version (rolled back, then applied under another
  // description), the one applied last.
  let latest: { version: number; snap: SnapshotFile } | undefined;
  const earlier = (await listSnapshots(root, input.databaseName)).filter((e) => e.version < version).reverse();
  for (const entry of earlier) {
    if (latest && entry.version < latest.version) break;
    const snap = await readSnapshot(entry.path, options);
    if (snap && (!latest || snap.applied_at > latest.snap.applied_at)) latest = { version: entry.version, snap };
  }
  const previous = latest?.snap.checksum ?? null;

  const body = canonicalize({
    format_version: SNAPSHOT_FORMAT_VERSION,
    migration_id: migrationId,
    database_name: input.databaseName,
    database_type: input.databaseType,
    applied_at: (input.appliedAt ?? new Date()).toISOString(),
    previous_checksum: previous,
    tables: input.schema.tables,
    enums: input.schema.enums,
    indexes: input.schema.indexes,
    constraints: input.schema.constraints,
  }) as Record<string, unknown>;
  const snapshot = { ...body, checksum: snapshotChecksum(body) } as unknown as SnapshotFile;
  const dir = snapshotDir(root);
  await mkdir(dir, { recursive: true });
  const path = join(dir, `${migrationId}.schema.json`);
  await writeFileAtomic(path, snapshotText(snapshot as unknown as Record<string, unknown>), { verify: true });
  return { path, snapshot };
}

/**
 * Read and validate one snapshot file. A file that cannot be read, is not JSON, has an unknown
 * `format_version`, lacks fields or whose checksum does not match yields `undefined` and a
 * warning naming the file (spec: callers then fall back to the live database). Version 1 files
 * are normalized to version 2 (see `snapshot-v1.ts`); the returned object then carries the
 * original v1 checksum.
 */
export async function readSnapshot(path: string, options: SnapshotLogOptions = {}): Promise<SnapshotFile | undefined> {
  const log = options.log ?? defaultLogger;
  const reject = (why: string) => {
    log.warn(`schema snapshot ${path} is unusable and is ignored: ${why}`, { file: path });
    return undefined;
  };
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    return reject(`cannot read it (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    const conflict = CONFLICT_MARKER.exec(text);
    if (conflict) {
      const line = text.slice(0, conflict.index).split('\n').length;
      return reject(
        `it holds a git merge conflict marker at line ${line}: mtool writes a snapshot whole, so resolve the conflict by keeping one side whole ` +
          `(\`git checkout --ours\` or \`--theirs\` on the file, then \`git add\` it), not by merging its lines`,
      );
    }
    return reject(`it is not valid JSON (${(error as Error).message}); it was probably truncated or edited`);
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return reject('it is not a JSON object');
  const raw = data as Record<string, unknown>;
  const version = raw.format_version ?? 1;
  if (version !== 1 && version !== 2) return reject(`format_version ${JSON.stringify(version)} is not supported (this mtool reads 1 and 2)`);
  if (typeof raw.checksum !== 'string') return reject('it has no checksum');
  let verified: ReturnType<typeof verifySnapshotChecksum>;
  try {
    verified = verifySnapshotChecksum(raw);
  } catch (error) {
    return reject((error as Error).message);
  }
  if (!verified.ok) return reject(`checksum mismatch (file says ${raw.checksum.slice(0, 12)}…, content hashes to ${verified.actual.slice(0, 12)}…)`);
  for (const field of ['migration_id', 'database_name', 'database_type', 'applied_at'] as const) {
    if (typeof raw[field] !== 'string') return reject(`field '${field}' is missing`);
  }
  const header = {
    format_version: 2 as const,
    migration_id: raw.migration_id as string,
    database_name: raw.database_name as string,
    database_type: raw.database_type as DatabaseType,
    applied_at: raw.applied_at as string,
    checksum: raw.checksum,
    previous_checksum: typeof raw.previous_checksum === 'string' ? raw.previous_checksum : null,
  };
  if (version === 1) return { ...header, ...normalizeV1Schema(raw) };
  try {
    checkSchemaShape(raw, path);
  } catch (error) {
    return reject((error as Error).message);
  }
  const schema = raw as unknown as SchemaIR;
  return { ...header, tables: schema.tables, enums: schema.enums, indexes: schema.indexes, constraints: schema.constraints };
}

/**
 * Snapshot files of one database (or all), ordered by database name then version ascending.
 * Temp files of interrupted writes (dot files) are not listed.
 */
export async function listSnapshots(root: string, databaseName?: string): Promise<SnapshotEntry[]> {
  const dir = snapshotDir(root);
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new MtoolError('MTOOL_SNAPSHOT', `cannot list schema snapshots in ${dir}: ${(error as Error).message}`, { cause: error });
  }
  const entries: SnapshotEntry[] = [];
  const REST_RE = /^(\d+)_(.+)\.schema\.json$/;
  for (const name of names) {
    if (name.startsWith('.')) continue;
    let db: string;
    let m: RegExpExecArray | null;
    if (databaseName !== undefined) {
      // Database names may contain `__`: match the requested name as a whole prefix.
      if (!name.startsWith(`${databaseName}__`)) continue;
      db = databaseName;
      m = REST_RE.exec(name.slice(databaseName.length + 2));
    } else {
      const whole = FILE_RE.exec(name);
      if (!whole) continue;
      db = whole[1] as string;
      m = REST_RE.exec(name.slice(db.length + 2));
    }
    if (!m) continue;
    const versionText = m[1] as string;
    const description = m[2] as string;
    entries.push({ path: join(dir, name), databaseName: db, version: Number(versionText), versionText, description, migrationId: `${db}__${versionText}_${description}` });
  }
  return entries.sort((a, b) => (a.databaseName < b.databaseName ? -1 : a.databaseName > b.databaseName ? 1 : a.version - b.version || (a.path < b.path ? -1 : 1)));
}

/**
 * The latest intact snapshot of a database: highest version prefix; when that file is corrupt
 * (bad JSON, checksum mismatch) the previous intact one, with a warning for each skipped file.
 * `undefined` when there is none.
 */
export async function findLatestSnapshot(root: string, databaseName: string, options: SnapshotLogOptions = {}): Promise<(SnapshotFile & { path: string }) | undefined> {
  const entries = await listSnapshots(root, databaseName);
  for (const entry of entries.reverse()) {
    const snap = await readSnapshot(entry.path, options);
    if (snap) return { ...snap, path: entry.path };
  }
  return undefined;
}

/** @throws MtoolError `MTOOL_SNAPSHOT` when one of the four IR maps is missing or not an object. */
export function checkSchemaShape(schema: unknown, where: string): void {
  const s = schema as Record<string, unknown> | null;
  for (const field of ['tables', 'enums', 'indexes', 'constraints']) {
    const v = s?.[field];
    if (typeof v !== 'object' || v === null || Array.isArray(v)) {
      throw new MtoolError('MTOOL_SNAPSHOT', `${where}: '${field}' must be an object keyed by name`);
    }
  }
}
