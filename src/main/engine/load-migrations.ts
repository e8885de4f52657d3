import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SplitDialect } from '../../dialects/types.js';
import { parseMigrationFile, type MigrationFile } from '../../parser/migration-file.js';
import { scanMigrationNames } from '../migrations/read-directory.js';

/**
 * Thresholds above which reading, hashing and splitting a migration folder moves to the worker
 * pool. Measured with `node bench/directory-parse.mjs` (see bench/README.md): starting the pool
 * costs tens of milliseconds, which a folder pays back only from a few thousand files, or from a
 * few megabytes of SQL in fewer files.
 */
export const POOL_THRESHOLD = {
  /** Files in the folder (decided from the listing alone, before reading anything). */
  files: 3000,
  /** Total bytes read on the main thread; above it, splitting moves to the pool. */
  bytes: 8 * 1024 * 1024,
} as const;

export interface LoadMigrationsOptions {
  database: string;
  dialect: SplitDialect;
  /** Override the thresholds (tests and the benchmark). */
  threshold?: { files: number; bytes: number };
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
  if (names.length >= threshold.files) {
    const { parseInPool } = await import('../../workers/parse-pool.js');
    return parseInPool({ dir, database: options.database, dialect: options.dialect, filenames });
  }
  const contents = await Promise.all(filenames.map((filename) => readFile(join(dir, filename))));
  const bytes = contents.reduce((sum, c) => sum + c.byteLength, 0);
  if (bytes >= threshold.bytes) {
    const { parseInPool } = await import('../../workers/parse-pool.js');
    return parseInPool({ dir, database: options.database, dialect: options.dialect, filenames, contents });
  }
  return filenames.map((filename, i) =>
    parseMigrationFile({ filename, path: join(dir, filename), content: contents[i], database: options.database, dialect: options.dialect }),
  );
}
