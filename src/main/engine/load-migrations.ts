import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import type { SplitDialect } from '../../dialects/types.js';
import { parseMigrationFile, type MigrationFile } from '../../parser/migration-file.js';
import { scanMigrationNames } from '../migrations/read-directory.js';

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
  const contents = filenames.map((filename) => readFileSync(join(dir, filename)));
  const bytes = contents.reduce((sum, c) => sum + c.byteLength, 0);
  if (poolAllowed && bytes >= threshold.bytes) {
    const { parseInPool } = await import('../../workers/parse-pool.js');
    return parseInPool({ dir, database: options.database, dialect: options.dialect, filenames, contents });
  }
  return filenames.map((filename, i) =>
    parseMigrationFile({ filename, path: join(dir, filename), content: contents[i], database: options.database, dialect: options.dialect }),
  );
}
