import { mkdir, readdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { MtoolError } from '../../errors.js';
import { classifyMigrationName, type MigrationKind, type MigrationName, slugifyDescription } from '../../parser/migration-name.js';
import { writeFileAtomic } from '../fs/atomic-write.js';
import { scanMigrationNames } from './read-directory.js';

/** `--type` values of `new` and `make-migrations` (spec), by the kind they select. */
const TYPE_ALIASES: Record<string, MigrationKind> = {
  versioned: 'versioned',
  ra: 'repeatable_always',
  runs_always: 'repeatable_always',
  roc: 'repeatable_on_change',
  runs_on_change: 'repeatable_on_change',
};

/**
 * @throws MtoolError `MTOOL_USAGE` for a value other than versioned, ra, runs_always, roc, runs_on_change.
 */
export function parseMigrationType(value: string | undefined): MigrationKind {
  if (value === undefined) return 'versioned';
  const kind = TYPE_ALIASES[value.toLowerCase()];
  if (!kind) {
    throw new MtoolError('MTOOL_USAGE', `--type '${value}' is not a migration type; use one of: ${Object.keys(TYPE_ALIASES).join(', ')}`);
  }
  return kind;
}

export interface ScaffoldRequest {
  /** `migrations/<database>` folder (created when missing). */
  dir: string;
  database: string;
  /** Free text; becomes the snake-case file-name description. */
  description: string;
  kind: MigrationKind;
  /** Four digits; versioned only. Default: highest existing version + 1. */
  version?: string;
  /** Creation time written in the header (default: now). */
  now?: Date;
}

export interface ScaffoldResult {
  filename: string;
  path: string;
  kind: MigrationKind;
  version?: string;
}

/** The text of a new manual migration: both sections, nothing else to fill in but SQL. */
function scaffoldText(filename: string, description: string, now: Date): string {
  return `-- ${filename}
-- Description: ${description.replace(/\s+/g, ' ').trim()}
-- Created by mtool new at ${now.toISOString()}.
-- Statements end with ';'. Add '-- mtool: irreversible' when no rollback can be written.

-- upgrade


-- rollback

`;
}

function classifyQuietly(filename: string, database: string): MigrationName | undefined {
  try {
    return classifyMigrationName(filename, database);
  } catch {
    return undefined;
  }
}

/**
 * Create a migration scaffold with exclusive, atomic creation: an existing file is never replaced,
 * and a version already used by another file is refused.
 * @throws MtoolError `MTOOL_USAGE` (empty description, bad version, version with a repeatable type),
 *   `MTOOL_FILE_EXISTS` (version used, file exists), `MTOOL_MIGRATION_FILE` (malformed folder).
 * @example await createMigrationScaffold({ dir: 'migrations/app', database: 'app', description: 'add users', kind: 'versioned' })
 */
export async function createMigrationScaffold(request: ScaffoldRequest): Promise<ScaffoldResult> {
  const { dir, database, kind } = request;
  const description = slugifyDescription(request.description);
  if (description === '') {
    throw new MtoolError('MTOOL_USAGE', `the description '${request.description}' has no letters or digits; describe the change, for example "add users table"`);
  }
  if (kind !== 'versioned' && request.version !== undefined) {
    throw new MtoolError('MTOOL_USAGE', `--version applies to versioned migrations only; RA__ and ROC__ files have no version`);
  }
  if (request.version !== undefined && !/^\d{4}$/.test(request.version)) {
    throw new MtoolError('MTOOL_USAGE', `--version '${request.version}' must be exactly four digits, for example 0007`);
  }

  const existing = await scanMigrationNames(dir, database);
  let version: string | undefined;
  let filename: string;
  if (kind === 'versioned') {
    const used = existing.filter((m) => m.kind === 'versioned');
    if (request.version !== undefined) {
      const clash = used.find((m) => m.version === request.version);
      if (clash) {
        throw new MtoolError('MTOOL_FILE_EXISTS', `version ${request.version} of database '${database}' is already used by ${clash.filename}; pick another --version or leave it out to take the next free one`, { database });
      }
      version = request.version;
    } else {
      const highest = Math.max(0, ...used.map((m) => Number(m.version)));
      if (highest >= 9999) {
        throw new MtoolError('MTOOL_USAGE', `database '${database}' already has version 9999, the last four-digit version`, { database });
      }
      version = String(highest + 1).padStart(4, '0');
    }
    filename = `${database}__${version}_${description}.sql`;
  } else {
    filename = `${kind === 'repeatable_always' ? 'RA' : 'ROC'}__${description}.sql`;
  }

  await mkdir(dir, { recursive: true });
  const path = join(dir, filename);
  try {
    await writeFileAtomic(path, scaffoldText(filename, request.description, request.now ?? new Date()), { exclusive: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
      throw new MtoolError('MTOOL_FILE_EXISTS', `${path} already exists; choose another description`, { database, cause: error });
    }
    throw error;
  }
  if (version !== undefined) {
    // Two `new` runs at once may both pick the same next version under different names; the
    // exclusive write cannot see that, so look again and back out rather than leave a clash.
    const names = await readdir(dir);
    const twin = names.find((n) => n !== filename && classifyQuietly(n, database)?.version === version);
    if (twin !== undefined) {
      await unlink(path);
      throw new MtoolError('MTOOL_FILE_EXISTS', `version ${version} of database '${database}' was taken by ${twin} while ${filename} was being created; run the command again`, { database });
    }
  }
  return { filename, path, kind, ...(version === undefined ? {} : { version }) };
}
