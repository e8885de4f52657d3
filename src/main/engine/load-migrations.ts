import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, sep } from 'node:path';
import type { SplitDialect } from '../../dialects/types.js';
import { checksumOf, parseMigrationFile, type MigrationFile, type MigrationFileInput } from '../../parser/migration-file.js';
import { scanMigrationNames, type MigrationFileName } from '../migrations/read-directory.js';

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
  const contents = filenames.map((filename) => readFileSync(prefix + filename));
  const bytes = contents.reduce((sum, c) => sum + c.byteLength, 0);
  if (poolAllowed && bytes >= threshold.bytes) {
    const { parseInPool } = await import('../../workers/parse-pool.js');
    return parseInPool({ dir, database: options.database, dialect: options.dialect, filenames, contents });
  }
  return names.map((name, i) => lazyMigrationFile(name, prefix + name.filename, contents[i], options));
}

/** What a lazy file keeps until it is parsed, by file (out of sight of spreads and equality checks). */
interface LazySource {
  input: MigrationFileInput;
  parsed: MigrationFile | undefined;
}
const SOURCES = new WeakMap<MigrationFile, LazySource>();

function parsedOf(file: MigrationFile): MigrationFile {
  const source = SOURCES.get(file)!;
  return (source.parsed ??= parseMigrationFile(source.input));
}

/**
 * The parsed fields as enumerable own getters, shared by every file (no closures per file),
 * each defined with its own `Object.defineProperty` call: one `Object.defineProperties` with a
 * descriptor map cost about three times as much (~3 ms of a no-op run over 1,000 files).
 */
const PARSED_FIELDS = (['upgrade', 'rollback', 'irreversible', 'directives'] as const).map(
  (key) => [key, { get(this: MigrationFile) { return parsedOf(this)[key]; }, enumerable: true, configurable: false }] as const,
);

/**
 * A migration file whose name fields and checksum are known at once and whose sections are
 * parsed (split into statements) on first access. A no-op `migrate` or a `status` over many
 * applied files then only hashes them: splitting was most of the time of a no-op run over 1,000
 * files. The engine touches {@link ensureParsed} on every file it is about to run, so a
 * malformed pending file still fails before anything executes.
 */
function lazyMigrationFile(name: MigrationFileName, path: string, content: Buffer, options: LoadMigrationsOptions): MigrationFile {
  const { filename, kind, version, description } = name;
  const checksum = checksumOf(content);
  const file = (version === undefined ? { filename, path, kind, description, checksum } : { filename, path, kind, version, description, checksum }) as MigrationFile;
  const input: MigrationFileInput = { filename, path, content, database: options.database, dialect: options.dialect };
  SOURCES.set(file, { input, parsed: undefined });
  // An index loop: destructuring `for...of` runs the iterator protocol, slow in code that runs once.
  for (let i = 0; i < PARSED_FIELDS.length; i++) Object.defineProperty(file, PARSED_FIELDS[i][0], PARSED_FIELDS[i][1]);
  return file;
}

/** Parse files now (throwing the first file's error), before any of them runs. */
export function ensureParsed(files: Iterable<MigrationFile>): void {
  for (const file of files) void file.upgrade;
}
