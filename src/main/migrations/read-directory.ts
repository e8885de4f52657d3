import type { Dirent } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SplitDialect } from '../../dialects/types.js';
import { MtoolError } from '../../errors.js';
import { parseMigrationFile, type MigrationFile } from '../../parser/migration-file.js';
import { classifyMigrationName, type MigrationName } from '../../parser/migration-name.js';

/** Files read at once by {@link readMigrationDirectory}. */
const READ_CONCURRENCY = 32;

export interface MigrationDirectoryOptions {
  database: string;
  dialect: SplitDialect;
}

/** A migration file known by name only (no content read). */
export interface MigrationFileName extends MigrationName {
  filename: string;
}

/**
 * File names of a folder; a missing folder is an empty list.
 * @throws MtoolError `MTOOL_MIGRATION_FILE` for a subfolder holding `.sql` files: they would be
 *   skipped without a word (a folder per year, say), and their migrations never run.
 */
async function listFiles(dir: string, database: string): Promise<string[]> {
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const files: string[] = [];
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i]!;
    if (entry.isFile() || entry.isSymbolicLink()) files.push(entry.name);
    else if (entry.isDirectory() && !entry.name.startsWith('.')) await refuseMigrationsBelow(dir, entry.name, database);
  }
  return files;
}

async function refuseMigrationsBelow(dir: string, folder: string, database: string): Promise<void> {
  const below = (await readdir(join(dir, folder), { recursive: true })).filter((name) => /\.sql$/i.test(name));
  if (below.length === 0) return;
  const some = below.slice(0, 3).map((name) => join(folder, name)).join(', ');
  throw new MtoolError(
    'MTOOL_MIGRATION_FILE',
    `${dir}: its subfolder ${folder}/ holds .sql files (${some}${below.length > 3 ? `, and ${below.length - 3} more` : ''}), but mtool reads only the files directly in ${dir}: move them there (versions keep them in order)`,
    { database },
  );
}

/** Sort order of a migration folder: versioned by version, then repeatables by file name. */
function compareMigrations(a: MigrationFileName, b: MigrationFileName): number {
  // Versions are four ASCII digits: plain comparison is exact, and localeCompare would start
  // an ICU collator (about 10 ms of a no-op migrate over 1,000 files).
  if (a.kind === 'versioned' && b.kind === 'versioned') return a.version! < b.version! ? -1 : a.version! > b.version! ? 1 : 0;
  if (a.kind === 'versioned') return -1;
  if (b.kind === 'versioned') return 1;
  return a.filename < b.filename ? -1 : a.filename > b.filename ? 1 : 0;
}

function assertUniqueVersions(names: MigrationFileName[], dir: string, database: string): void {
  const byVersion = new Map<string, string>();
  // Index loops here and below: a for...of allocates an iterator result per file in code that runs once.
  for (let i = 0; i < names.length; i++) {
    const name = names[i]!;
    if (name.kind !== 'versioned') continue;
    const other = byVersion.get(name.version!);
    if (other !== undefined) {
      throw new MtoolError(
        'MTOOL_MIGRATION_FILE',
        `${dir}: version ${name.version} is used by two files, ${other} and ${name.filename}; renumber one of them (versions are unique per database)`,
        { database },
      );
    }
    byVersion.set(name.version!, name.filename);
  }
}

/**
 * Classify the migration file names of a folder without reading them (used by `new` to pick the
 * next version). Sorted like {@link readMigrationDirectory}.
 * @throws MtoolError `MTOOL_MIGRATION_FILE` for a bad name or a version used twice.
 */
export async function scanMigrationNames(dir: string, database: string): Promise<MigrationFileName[]> {
  const names: MigrationFileName[] = [];
  const filenames = await listFiles(dir, database);
  for (let i = 0; i < filenames.length; i++) {
    const filename = filenames[i]!;
    const name = classifyMigrationName(filename, database);
    if (name) names.push(name.version === undefined ? { filename, kind: name.kind, description: name.description } : { filename, kind: name.kind, version: name.version, description: name.description });
  }
  assertUniqueVersions(names, dir, database);
  return names.sort(compareMigrations);
}

/**
 * Read and parse every migration of `migrations/<database>/`: versioned files sorted by version,
 * then repeatable files (`RA__`, `ROC__`) by name. A missing folder gives an empty list.
 * @throws MtoolError `MTOOL_MIGRATION_FILE` naming the file (and line) for any malformed file,
 *   or both files when two share a version.
 * @example await readMigrationDirectory('migrations/app', { database: 'app', dialect: 'postgresql' })
 */
export async function readMigrationDirectory(dir: string, options: MigrationDirectoryOptions): Promise<MigrationFile[]> {
  const names = await scanMigrationNames(dir, options.database);
  const files = new Array<MigrationFile>(names.length);
  let next = 0;
  // A bounded number of reads in flight: a folder of thousands of files must not hit EMFILE.
  const worker = async (): Promise<void> => {
    while (next < names.length) {
      const index = next++;
      const { filename } = names[index];
      const path = join(dir, filename);
      const content = await readFile(path);
      files[index] = parseMigrationFile({ filename, path, content, database: options.database, dialect: options.dialect });
    }
  };
  await Promise.all(Array.from({ length: Math.min(READ_CONCURRENCY, names.length) }, worker));
  return files;
}
