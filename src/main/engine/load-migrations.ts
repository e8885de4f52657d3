import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, sep } from 'node:path';
import { setImmediate as nextImmediate } from 'node:timers/promises';
import type { SplitDialect } from '../../dialects/types.js';
import { checksumOf, PARSED_FIELDS, parseMigrationFile, type MigrationFile, type MigrationFileInput } from '../../parser/migration-file.js';
import { scanMigrationNames, unreadable, type MigrationFileName } from '../migrations/read-directory.js';

/**
 * When reading, hashing and splitting a migration folder moves to the worker pool. Set from
 * `node bench/directory-parse.mjs` on the project's 2-CPU machines: with synchronous reads the
 * main thread handles a small file in about 20-45 µs and 1 MB of SQL in 9-25 ms, while the pool
 * costs about 90-190 ms to start and, with only two cores shared with the main thread, was
 * slower per file too (structured cloning of the results included): it lost at 100, 1,000,
 * 3,000 and 20,000 files and at 8 and 32 MB. So the pool is used only with at least four CPUs
 * and for folders far beyond those sizes, where two or more workers can beat the start-up cost.
 */
export const POOL_THRESHOLD = {
  /** Files in the folder (decided from the listing alone, before reading anything). */
  files: 20_000,
  /** Total bytes read on the main thread; above it, splitting moves to the pool. */
  bytes: 128 * 1024 * 1024,
  /** Fewer CPUs than this: never use the pool (two cores showed no gain at any size). */
  minCpus: 4,
} as const;

export interface LoadMigrationsOptions {
  database: string;
  dialect: SplitDialect;
  /** Override the thresholds (tests and the benchmark). */
  threshold?: { files: number; bytes: number; minCpus?: number };
}

/**
 * Read and parse `migrations/<database>/`: versioned files by version, then repeatables by name.
 * Small folders are parsed on the main thread; large ones in the piscina pool, which is imported
 * and started only then.
 */
export async function loadMigrations(dir: string, options: LoadMigrationsOptions): Promise<MigrationFile[]> {
  const threshold = options.threshold ?? POOL_THRESHOLD;
  const names = await scanMigrationNames(dir, options.database);
  if (names.length === 0) return [];
  const filenames = names.map((n) => n.filename);
  const poolAllowed = availableParallelism() >= (threshold.minCpus ?? 0);
  if (poolAllowed && names.length >= threshold.files) {
    const { parseInPool } = await import('../../workers/parse-pool.js');
    return parseInPool({ dir, database: options.database, dialect: options.dialect, filenames });
  }
  // Synchronous reads on purpose: a promise read costs four thread-pool round trips per file
  // (open, fstat, read, close), which dominated the time for folders of small files
  // (bench/directory-parse.mjs: about 4x slower at 10,000 files).
  // The folder path once, then plain concatenation: path.join per file normalises the same
  // prefix a thousand times (a few ms of a no-op run).
  const prefix = join(dir, sep);
  const folder = await readFolder(prefix, filenames, options);
  const contents = (): Buffer[] => filenames.map((_, i) => folder.content(i));
  if (poolAllowed && folder.bytes.length >= threshold.bytes) {
    const { parseInPool } = await import('../../workers/parse-pool.js');
    return parseInPool({ dir, database: options.database, dialect: options.dialect, filenames, contents: contents() });
  }
  const fields = parsedFields(folder);
  return names.map((name, i) => lazyMigrationFile(name, prefix + name.filename, folder.checksums[i]!, fields));
}

/**
 * A folder's files as read: their bytes back to back in one buffer and their checksums. A lazy
 * file finds its bytes here by name when it is parsed, so nothing per file (a Buffer, its
 * parse input) stays alive beside the file itself for the garbage collector to trace: a no-op
 * run over 1,000 files parses none of them.
 */
interface Folder {
  bytes: Buffer;
  checksums: string[];
  /** File index by file name. */
  index: Map<string, number>;
  content(i: number): Buffer;
  database: string;
  dialect: SplitDialect;
  /** Parsed files by file name. */
  parsed: Map<string, MigrationFile>;
}

/** readFileSync's options as an object: given as a string they are copied into a new object on every call. */
const UTF8 = { encoding: 'utf8', flag: 'r' } as const;

/**
 * How many files are read between two turns of the event loop: the folder is read while the
 * database connection opens and the lock is taken, and those need the main thread for a moment
 * at each answer. 64 small files take about a millisecond.
 */
const FILES_PER_TURN = 64;

async function readFolder(prefix: string, filenames: readonly string[], options: LoadMigrationsOptions): Promise<Folder> {
  let bytes = Buffer.allocUnsafe(64 * 1024);
  // File i's bytes are bytes[offsets[i], offsets[i + 1]).
  const offsets = new Float64Array(filenames.length + 1);
  const checksums = new Array<string>(filenames.length);
  const index = new Map<string, number>();
  let length = 0;
  for (let i = 0; i < filenames.length; i++) {
    if (i > 0 && i % FILES_PER_TURN === 0) await nextImmediate();
    const path = prefix + filenames[i];
    // Read as UTF-8 text: one call into the native side for the whole file (open, fstat, read,
    // close, decode), where reading to a Buffer crosses into JavaScript for each system call
    // (~3.5 ms of a no-op run over 1,000 small files). Text without a replacement character was
    // valid UTF-8, so its UTF-8 form is the file's bytes exactly; otherwise the checksum and the
    // bytes kept come from the file's bytes, read again.
    let content: string | Buffer;
    try {
      const text = readFileSync(path, UTF8);
      content = text.includes('\uFFFD') ? readFileSync(path) : text;
    } catch (error) {
      throw unreadable(path, error, options.database);
    }
    checksums[i] = checksumOf(content);
    // UTF-8 takes at most three bytes per UTF-16 unit: room for the whole file before writing it.
    const room = typeof content === 'string' ? content.length * 3 : content.length;
    if (length + room > bytes.length) {
      const bigger = Buffer.allocUnsafe(Math.max(bytes.length * 2, length + room));
      bytes.copy(bigger, 0, 0, length);
      bytes = bigger;
    }
    length += typeof content === 'string' ? bytes.write(content, length) : content.copy(bytes, length);
    offsets[i + 1] = length;
    index.set(filenames[i]!, i);
  }
  const all = bytes.subarray(0, length);
  return {
    bytes: all,
    checksums,
    index,
    content: (i) => all.subarray(offsets[i], offsets[i + 1]),
    database: options.database,
    dialect: options.dialect,
    parsed: new Map(),
  };
}

function parsedOf(folder: Folder, file: MigrationFile): MigrationFile {
  let parsed = folder.parsed.get(file.filename);
  if (parsed === undefined) {
    const input: MigrationFileInput = { filename: file.filename, path: file.path, content: folder.content(folder.index.get(file.filename)!), database: folder.database, dialect: folder.dialect, checksum: file.checksum };
    parsed = parseMigrationFile(input);
    folder.parsed.set(file.filename, parsed);
  }
  return parsed;
}

/**
 * The parsed fields as enumerable own getters, shared by every file of a folder (no closures per
 * file), each defined with its own `Object.defineProperty` call: one `Object.defineProperties`
 * with a descriptor map cost about three times as much (~3 ms of a no-op run over 1,000 files).
 */
function parsedFields(folder: Folder): (readonly [string, PropertyDescriptor])[] {
  return PARSED_FIELDS.map(
    (key) => [key, { get(this: MigrationFile) { return parsedOf(folder, this)[key]; }, enumerable: true, configurable: false }] as const,
  );
}

/**
 * A migration file whose name fields and checksum are known at once and whose sections are
 * parsed (split into statements) on first access. A no-op `migrate` or a `status` over many
 * applied files then only hashes them: splitting was most of the time of a no-op run over 1,000
 * files. The engine touches {@link ensureParsed} on every file it is about to run, so a
 * malformed pending file still fails before anything executes.
 */
function lazyMigrationFile(name: MigrationFileName, path: string, checksum: string, fields: readonly (readonly [string, PropertyDescriptor])[]): MigrationFile {
  const { filename, kind, version, description } = name;
  const file = (version === undefined ? { filename, path, kind, description, checksum } : { filename, path, kind, version, description, checksum }) as MigrationFile;
  // An index loop: destructuring `for...of` runs the iterator protocol, slow in code that runs once.
  for (let i = 0; i < fields.length; i++) Object.defineProperty(file, fields[i]![0], fields[i]![1]);
  return file;
}

/** Parse files now (throwing the first file's error), before any of them runs. */
export function ensureParsed(files: Iterable<MigrationFile>): void {
  for (const file of files) void file.upgrade;
}

/** How long one slice of {@link parseAhead} keeps the main thread before the event loop's next turn. */
const AHEAD_SLICE_MS = 1;

/**
 * Parse `files`, newest first, in slices of about a millisecond between turns of the event loop,
 * until `stop.stopped` is set or every file is parsed. `migrate` runs it from the moment the
 * folder is read until it knows which files will run, so the main thread parses while it would
 * otherwise wait for the database (the tracking tables, the lock, the records); ensureParsed
 * then parses only the rest. Measured on a 2-CPU machine, 1000 files, 12 alternating runs in
 * each order: from the plan to the first migration message 14-22 ms sooner on PostgreSQL,
 * whose lock and records came after the folder was read, 6-7 ms on MariaDB; a no-op `migrate`
 * the same within the noise. Newest first: a batch's pending files are usually the last. A file
 * that does not parse is skipped here; {@link ensureParsed} throws its error when the file is
 * to run, before anything runs, as without this.
 */
export async function parseAhead(files: readonly MigrationFile[], stop: { stopped: boolean }): Promise<void> {
  let i = files.length - 1;
  while (i >= 0 && !stop.stopped) {
    const until = performance.now() + AHEAD_SLICE_MS;
    do {
      try {
        void files[i]!.upgrade;
      } catch {
        // Thrown again by ensureParsed if this file is to run.
      }
      i--;
    } while (i >= 0 && performance.now() < until);
    await nextImmediate();
  }
}
