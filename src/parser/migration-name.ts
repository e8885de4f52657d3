import { MtoolError } from '../errors.js';

/**
 * File-name classes of a migration folder (spec: Migration file):
 * `<db>__<NNNN>_<desc>.sql` and `V__<NNNN>_<desc>.sql` (versioned), `RA__<desc>.sql` (runs always),
 * `ROC__<desc>.sql` (runs on change). Pure: no file access, safe in workers.
 */

export type MigrationKind = 'versioned' | 'repeatable_always' | 'repeatable_on_change';

export interface MigrationName {
  kind: MigrationKind;
  /** Four digits, versioned files only. */
  version?: string;
  description: string;
}

/** The accepted forms, quoted in every error about a bad file name. */
export const ACCEPTED_MIGRATION_NAMES = [
  '<database>__<NNNN>_<description>.sql',
  'V__<NNNN>_<description>.sql',
  'RA__<description>.sql',
  'ROC__<description>.sql',
] as const;

const DESCRIPTION = '[A-Za-z0-9][A-Za-z0-9_-]*';
const VERSIONED = new RegExp(`^(?<db>.+?)__(?<version>\\d+)_(?<description>${DESCRIPTION})\\.sql$`);
const REPEATABLE = new RegExp(`^(?<prefix>RA|ROC)__(?<description>${DESCRIPTION})\\.sql$`);
/** What follows `<database>__` in a versioned file name. */
const VERSION_AND_DESCRIPTION = new RegExp(`^(?<version>\\d+)_(?<description>${DESCRIPTION})\\.sql$`);

/** Companion files beside migrations that the folder reader skips. */
export function isMigrationCompanion(filename: string): boolean {
  return filename.endsWith('.plan.json') || filename.endsWith('.rollback.sql');
}

function badName(filename: string, why: string, database: string): MtoolError {
  const forms = ACCEPTED_MIGRATION_NAMES.map((f) => f.replace('<database>', database)).join(', ');
  return new MtoolError('MTOOL_MIGRATION_FILE', `${filename}: ${why}; accepted migration file names: ${forms}`, { database });
}

/**
 * Classify one file name of `migrations/<database>/`.
 * @returns the class, or `undefined` for files that are not migrations (not `.sql`, companions, dot-files).
 * @throws MtoolError `MTOOL_MIGRATION_FILE` for a `.sql` file that matches no accepted form, a version
 *   that is not four digits, or a `<db>__` prefix naming another database.
 * @example classifyMigrationName('app__0002_add_users.sql', 'app') // { kind: 'versioned', version: '0002', description: 'add_users' }
 */
export function classifyMigrationName(filename: string, database: string): MigrationName | undefined {
  if (filename.startsWith('.') || !filename.endsWith('.sql') || isMigrationCompanion(filename)) return undefined;

  const repeatable = REPEATABLE.exec(filename);
  if (repeatable?.groups) {
    const kind = repeatable.groups.prefix === 'RA' ? 'repeatable_always' : 'repeatable_on_change';
    return { kind, description: repeatable.groups.description };
  }

  // Prefer the folder's own database name so a name containing `__` cannot be misread.
  const own = filename.startsWith(`${database}__`)
    ? VERSION_AND_DESCRIPTION.exec(filename.slice(database.length + 2))
    : null;
  const match = own?.groups ? { db: database, ...own.groups } : VERSIONED.exec(filename)?.groups;
  if (!match) throw badName(filename, 'not a migration file name', database);
  const { db, version, description } = match as { db: string; version: string; description: string };
  if (db !== 'V' && db !== database) {
    throw badName(filename, `the prefix '${db}__' names another database than the folder's '${database}'`, database);
  }
  if (!/^\d{4}$/.test(version)) throw badName(filename, `version '${version}' must be exactly four digits (for example 0001)`, database);
  return { kind: 'versioned', version, description };
}

/** Turn free text into a file-name description: lower snake case, ASCII letters and digits. */
export function slugifyDescription(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 72)
    .replace(/_+$/, '');
}
