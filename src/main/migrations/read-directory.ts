import type { Dirent } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { MtoolError } from '../../errors.js';
import { classifyMigrationName, type MigrationName } from '../../parser/migration-name.js';

/** A migration file known by name only (no content read). */
export interface MigrationFileName extends MigrationName {
  filename: string;
}

/**
 * A migration file or folder the system would not let mtool read, as the user's problem to fix
 * (`MTOOL_MIGRATION_FILE`, exit 2) rather than a failure of mtool: every file is read before
 * anything runs, since each applied one's checksum is checked.
 * @example throw unreadable('migrations/app/app__0002_b.sql', error, 'app')
 */
export function unreadable(path: string, error: unknown, database: string, what: 'file' | 'folder' = 'file'): Error {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const why =
    code === 'EACCES' || code === 'EPERM'
      ? `permission denied: let the user running mtool read it (mtool reads every migration ${what === 'file' ? 'file' : 'folder'} to check the applied ones' checksums)`
      : code === 'ENOENT'
        ? 'it is a symbolic link whose target does not exist: restore the target or remove the link'
        : code === 'ELOOP'
          ? 'it is a symbolic link that leads back to itself (a loop of links): point it at a file or remove it'
        : code === 'EISDIR'
          ? 'it is a folder, not a file: rename it so that it does not end in .sql'
          : code === 'ENOTDIR'
            ? 'it is a file, not a folder: migrations of a database live in the folder migrations/<databaseName>/'
            : `${code ?? 'read error'}: ${(error as Error | undefined)?.message ?? String(error)}`;
  return new MtoolError('MTOOL_MIGRATION_FILE', `${path}: cannot read the migration ${what}: ${why}`, { database, cause: error });
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
    throw unreadable(dir, error, database, 'folder');
  }
  const files: string[] = [];
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i]!;
    if (entry.isFile()) files.push(entry.name);
    else if (entry.name.startsWith('.')) {
      if (entry.isSymbolicLink()) files.push(entry.name);
    } else if (entry.isDirectory()) {
      // Named like a file mtool reads: refused as a link to a folder is when it is read.
      if (SQL_NAME.test(entry.name)) throw unreadable(join(dir, entry.name), { code: 'EISDIR' }, database);
      await refuseMigrationsBelow(dir, entry.name, database);
    } else if (entry.isSymbolicLink()) {
      // A link to a folder is a subfolder like any other (a shared folder linked in, say): its
      // .sql files would never run. Links named .sql, or that lead nowhere, are read as files.
      const target = await stat(join(dir, entry.name)).catch(() => undefined);
      if (!SQL_NAME.test(entry.name) && target?.isDirectory()) await refuseMigrationsBelow(dir, entry.name, database);
      else if (SQL_NAME.test(entry.name) && target !== undefined && !target.isFile() && !target.isDirectory()) throw notAFile(join(dir, entry.name), database);
      else files.push(entry.name);
    } else if (SQL_NAME.test(entry.name)) {
      throw notAFile(join(dir, entry.name), database);
    }
  }
  return files;
}

const SQL_NAME = /\.sql$/i;

/** A pipe, socket or device named like a migration: reading it would wait forever or read no file's bytes. */
function notAFile(path: string, database: string): Error {
  return new MtoolError('MTOOL_MIGRATION_FILE', `${path}: cannot read the migration file: it is not a regular file (a pipe, socket or device); replace it with the file, or rename it so that it does not end in .sql`, { database });
}

async function refuseMigrationsBelow(dir: string, folder: string, database: string): Promise<void> {
  const below = (await readdir(join(dir, folder), { recursive: true }).catch((error: unknown) => {
    throw unreadable(join(dir, folder), error, database, 'folder');
  })).filter((name) => /\.sql$/i.test(name));
  if (below.length === 0) return;
  const some = below.slice(0, 3).map((name) => join(folder, name)).join(', ');
  throw new MtoolError(
    'MTOOL_MIGRATION_FILE',
    `${dir}: its subfolder ${folder}/ holds .sql files (${some}${below.length > 3 ? `, and ${below.length - 3} more` : ''}), but mtool reads only the files directly in ${dir}: move them there (versions keep them in order)`,
    { database },
  );
}

/**
 * A migration file of this database lying in the folder above its own (`migrations/app__0008_x.sql`
 * beside `migrations/app/`) would never run, without a word: refused like one in a subfolder. Only
 * names that are this database's (`<database>__`) or any database's (`V__`, `RA__`, `ROC__`) count;
 * other `.sql` files there (a schema dump, say) are not migrations.
 */
async function refuseMigrationsAbove(dir: string, database: string): Promise<void> {
  // Only for the layout mtool reads (migrations/<database>/): a folder given some other way (the
  // library's loadMigrations on any path) may sit beside anything.
  if (basename(dir) !== database) return;
  const parent = dirname(dir);
  const entries = await readdir(parent, { withFileTypes: true }).catch(() => [] as Dirent[]);
  const prefixes = [`${database}__`, 'V__', 'RA__', 'ROC__'];
  const misplaced = entries
    .filter((e) => (e.isFile() || e.isSymbolicLink()) && e.name.endsWith('.sql') && prefixes.some((p) => e.name.startsWith(p)))
    .map((e) => e.name);
  if (misplaced.length === 0) return;
  const some = misplaced.slice(0, 3).join(', ');
  throw new MtoolError(
    'MTOOL_MIGRATION_FILE',
    `${parent}: it holds migration files (${some}${misplaced.length > 3 ? `, and ${misplaced.length - 3} more` : ''}), but mtool reads the migrations of '${database}' only from ${join(parent, basename(dir))}: move them there (or, for another database, into its own folder)`,
    { database },
  );
}

/**
 * Sort order of a migration folder: versioned by version, then repeatables by description (the
 * name after `RA__` / `ROC__`, so `ROC__01_views` runs before `RA__02_grants` as Flyway orders its
 * repeatables), then by file name.
 */
function compareMigrations(a: MigrationFileName, b: MigrationFileName): number {
  // Versions are four ASCII digits: plain comparison is exact, and localeCompare would start
  // an ICU collator (about 10 ms of a no-op migrate over 1,000 files).
  if (a.kind === 'versioned' && b.kind === 'versioned') return a.version! < b.version! ? -1 : a.version! > b.version! ? 1 : 0;
  if (a.kind === 'versioned') return -1;
  if (b.kind === 'versioned') return 1;
  if (a.description !== b.description) return a.description < b.description ? -1 : 1;
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
 * next version, and by the engine before reading them): versioned files by version, then
 * repeatables (`RA__`, `ROC__`) by description ({@link compareMigrations}).
 * @throws MtoolError `MTOOL_MIGRATION_FILE` for a bad name or a version used twice.
 */
export async function scanMigrationNames(dir: string, database: string): Promise<MigrationFileName[]> {
  const names: MigrationFileName[] = [];
  const filenames = await listFiles(dir, database);
  await refuseMigrationsAbove(dir, database);
  for (let i = 0; i < filenames.length; i++) {
    const filename = filenames[i]!;
    const name = classifyMigrationName(filename, database);
    if (name) names.push(name.version === undefined ? { filename, kind: name.kind, description: name.description } : { filename, kind: name.kind, version: name.version, description: name.description });
  }
  assertUniqueVersions(names, dir, database);
  return names.sort(compareMigrations);
}
