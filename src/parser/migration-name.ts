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

// Numbered groups (no named groups): a `migrate` or `status` classifies every file name of the
// folder, and a groups object per name was half the time of that step over 1,000 files.
const DESCRIPTION = '[A-Za-z0-9][A-Za-z0-9_-]*';
/** 1: database, 2: version, 3: description. */
const VERSIONED = new RegExp(`^(.+?)__(\\d+)_(${DESCRIPTION})\\.sql$`);
/** 1: RA or ROC, 2: description. */
const REPEATABLE = new RegExp(`^(RA|ROC)__(${DESCRIPTION})\\.sql$`);
/** What follows `<database>__` in a versioned file name. 1: version, 2: description. */
const VERSION_AND_DESCRIPTION = new RegExp(`^(\\d+)_(${DESCRIPTION})\\.sql$`);

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
 *   that is not four digits, a `<db>__` prefix naming another database, or a `.SQL` (any case but
 *   lower) extension.
 * @example classifyMigrationName('app__0002_add_users.sql', 'app') // { kind: 'versioned', version: '0002', description: 'add_users' }
 */
export function classifyMigrationName(filename: string, database: string): MigrationName | undefined {
  if (filename.startsWith('.')) return undefined;
  if (!filename.endsWith('.sql')) {
    // `.SQL` (what some Windows tools write) would be skipped without a word, and the migration never run.
    if (/\.sql$/i.test(filename)) throw badName(filename, `the extension must be lower-case '.sql'; rename it to ${filename.slice(0, -4)}.sql`, database);
    return undefined;
  }
  if (isMigrationCompanion(filename)) return undefined;

  const repeatable = filename.startsWith('R') ? REPEATABLE.exec(filename) : null;
  if (repeatable) {
    const kind = repeatable[1] === 'RA' ? 'repeatable_always' : 'repeatable_on_change';
    return { kind, description: repeatable[2]! };
  }

  // Prefer the folder's own database name so a name containing `__` cannot be misread.
  const own = filename.startsWith(database) && filename.startsWith('__', database.length)
    ? VERSION_AND_DESCRIPTION.exec(filename.slice(database.length + 2))
    : null;
  const match = own ?? VERSIONED.exec(filename);
  if (!match) throw badName(filename, prefixCaseProblem(filename) ?? descriptionProblem(filename, database) ?? 'not a migration file name', database);
  const db = own ? database : match[1]!;
  const version = own ? own[1]! : match[2]!;
  const description = own ? own[2]! : match[3]!;
  if (db === 'v' && db !== database) throw badName(filename, prefixCaseProblem(filename)!, database);
  if (db !== 'V' && db !== database) {
    throw badName(filename, `the prefix '${db}__' names another database than the folder's '${database}'`, database);
  }
  // `version` is digits already.
  if (version.length !== 4) throw badName(filename, `version '${version}' must be exactly four digits (for example 0001)`, database);
  return { kind: 'versioned', version, description };
}

/** 1: a `V__`, `RA__` or `ROC__` prefix in another letter case, 2: the rest of the name. */
const LOWER_PREFIX = /^(v__(?=\d)|ra__|roc__)(.+)$/i;

/** Why `v__0001_x.sql`, `ra__x.sql` or `Roc__x.sql` is refused, with the name to rename it to; undefined for other names. */
function prefixCaseProblem(filename: string): string | undefined {
  const loose = LOWER_PREFIX.exec(filename);
  if (!loose || !/[a-z]/.test(loose[1]!)) return undefined;
  const prefix = loose[1]!.toUpperCase();
  return `the prefix '${loose[1]}' must be upper-case '${prefix}'; rename it to ${prefix}${loose[2]}`;
}

/** A name of an accepted form but for its description (`app__0001_add users.sql`, `RA__café.sql`): 1: what precedes the description, 2: the description. */
const LOOSE_REPEATABLE = /^((?:RA|ROC)__)(.+)\.sql$/;
const LOOSE_VERSIONED = /^(.+?__\d{4}_)(.+)\.sql$/;

/** Why a name of an accepted form is refused for its description, with the name to rename it to; undefined for other names. */
function descriptionProblem(filename: string, database: string): string | undefined {
  const loose = LOOSE_REPEATABLE.exec(filename) ?? (filename.startsWith(`${database}__`) || filename.startsWith('V__') ? LOOSE_VERSIONED.exec(filename) : null);
  if (!loose) return undefined;
  const slug = slugifyDescription(loose[2]!);
  const rename = slug === '' ? 'give it a description of letters and digits' : `rename it to ${loose[1]}${slug}.sql`;
  return `the description '${loose[2]}' may hold only ASCII letters, digits, '_' and '-' and must start with a letter or digit; ${rename}`;
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
