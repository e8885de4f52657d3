import { ChecksumMismatchError, MtoolError } from '../../errors.js';
import type { MigrationFile } from '../../parser/migration-file.js';
import type { MigrationRecord, StatusEntry, TrackedMigration } from './types.js';

/**
 * Pure planning over plain data (files on disk, rows of the tracking table): no connection, no
 * I/O, so every rule here is tested without a database.
 */

export interface MigratePlanOptions {
  /** Apply at most this many versioned migrations. */
  count?: number;
  /** Apply versioned migrations up to and including this version. */
  toVersion?: string;
  /** Record pending versioned migrations up to `toVersion` as applied without running them. */
  baseline?: boolean;
}

export interface RepeatableStep {
  file: MigrationFile;
  /** The row to update; undefined when the file never ran. */
  existing: TrackedMigration | undefined;
}

export interface MigratePlan {
  versioned: MigrationFile[];
  repeatables: RepeatableStep[];
  baseline: boolean;
}

export interface RollbackStep {
  file: MigrationFile;
  record: MigrationRecord;
}

/** Versions compare as numbers: `0010` > `0009`, and `10000` > `9999`. */
export function compareVersions(a: string, b: string): number {
  // Digit strings of one length (the four-digit versions of a folder) compare digit by digit: no
  // BigInt to allocate and no pattern to run for each of the thousands of comparisons a `migrate`
  // makes. Anything else goes through BigInt.
  if (a.length === b.length && a.length > 0) {
    let order = 0;
    let digits = true;
    for (let i = 0; i < a.length; i++) {
      const x = a.charCodeAt(i);
      const y = b.charCodeAt(i);
      if (x < 48 || x > 57 || y < 48 || y > 57) {
        digits = false;
        break;
      }
      if (order === 0 && x !== y) order = x < y ? -1 : 1;
    }
    if (digits) return order;
  }
  const x = BigInt(a);
  const y = BigInt(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

const VERSION = /^\d{1,18}$/;

/** Validate a `--to-version`/`--to` value. */
export function parseVersionOption(value: string, flag: string): string {
  const trimmed = value.trim();
  if (!VERSION.test(trimmed)) {
    throw new MtoolError('MTOOL_USAGE', `${flag} expects a migration version such as 0003, got '${value}'`);
  }
  return trimmed;
}

/** Checksum prefix shown in messages (spec: "checksum prefixes"). */
const checksumPrefix = (checksum: string): string => checksum.slice(0, 12);

/**
 * The checks every migrate, status, rollback and downgrade runs before doing anything:
 * an applied versioned file must be unchanged, and a pending file must not reuse the version of
 * an applied one under another name.
 * @throws ChecksumMismatchError for the first changed applied versioned file.
 */
/**
 * The warning for versioned migrations recorded as applied whose files are gone from the folder
 * (undefined when none): they stay applied, but nothing can roll back past them.
 */
export function missingAppliedWarning(files: readonly MigrationFile[], records: readonly TrackedMigration[], database: string): string | undefined {
  const onDisk = new Set<string>();
  for (let i = 0; i < files.length; i++) onDisk.add(files[i]!.filename);
  const missing: string[] = [];
  for (let i = 0; i < records.length; i++) if (records[i]!.type === 'versioned' && !onDisk.has(records[i]!.filename)) missing.push(records[i]!.filename);
  if (missing.length === 0) return undefined;
  const shown = missing.length > 5 ? `${missing.slice(0, 5).join(', ')} and ${missing.length - 5} more` : missing.join(', ');
  return (
    `${missing.length === 1 ? 'an applied migration is' : `${missing.length} applied migrations are`} no longer in migrations/${database}/: ${shown}. ` +
    `${missing.length === 1 ? 'It stays' : 'They stay'} applied, but rollback and downgrade cannot go past ${missing.length === 1 ? 'it' : 'them'}: restore the file${missing.length === 1 ? '' : 's'} as applied (from version control; \`mtool history --database ${database}\` shows the checksums)`
  );
}

export function verifyApplied(
  files: readonly MigrationFile[],
  records: readonly TrackedMigration[],
  database: string,
  /** A sentence on how a changed file differs, when that can be told (see checksum-drift.ts). */
  explainDrift?: (file: MigrationFile, appliedChecksum: string) => string | undefined,
): void {
  // Index loops over files and records: a for...of allocates an iterator result per step in code
  // that runs once, ~40 KB per loop over a thousand migrations for the garbage collector.
  const byFilename = new Map<string, MigrationFile>();
  for (let i = 0; i < files.length; i++) byFilename.set(files[i]!.filename, files[i]!);
  for (let i = 0; i < records.length; i++) {
    const record = records[i]!;
    if (record.type !== 'versioned') continue;
    const file = byFilename.get(record.filename);
    if (file && file.checksum !== record.checksum) {
      throw new ChecksumMismatchError(
        `checksum mismatch in database '${database}': migration ${record.filename} was applied with checksum ${checksumPrefix(record.checksum)} ` +
          `but the file now has ${checksumPrefix(file.checksum)}. An applied migration must never change and this is never safe to ignore: ` +
          `restore the file to its applied content (see \`mtool history --database ${database}\` for when and by whom it was applied) ` +
          `and put further changes in a new migration.${drift(file, record.checksum, explainDrift)}`,
        { database },
      );
    }
  }
  const appliedVersions = new Map<string, TrackedMigration>();
  const appliedNames = new Set<string>();
  for (let i = 0; i < records.length; i++) {
    const record = records[i]!;
    if (record.version !== null) appliedVersions.set(record.version, record);
    appliedNames.add(record.filename);
  }
  for (let i = 0; i < files.length; i++) {
    const file = files[i]!;
    if (file.kind !== 'versioned' || appliedNames.has(file.filename)) continue;
    const other = appliedVersions.get(file.version as string);
    if (other === undefined) continue;
    // The other file is never in the folder: two files of one version are refused as it is read.
    const why =
      other.checksum === file.checksum
        ? `it is that migration renamed (same content): an applied migration file must not be renamed: restore its name`
        : `a file no longer in migrations/${database}/ (another branch's, or renamed): give ${file.filename} the next free version, ` +
          `or, if ${other.filename} should not stay applied here, roll it back first where its file is (on its branch)`;
    throw new MtoolError('MTOOL_MIGRATION_FILE', `database '${database}': ${file.filename} has version ${file.version}, which is already applied as ${other.filename}; ${why}`, { database });
  }
  // A pending file with the bytes of an applied one whose file is gone is that migration renamed
  // (renumbered after a merge, say): migrate would run it a second time.
  const goneByChecksum = new Map<string, TrackedMigration>();
  for (let i = 0; i < records.length; i++) {
    const record = records[i]!;
    if (record.type === 'versioned' && !byFilename.has(record.filename)) goneByChecksum.set(record.checksum, record);
  }
  if (goneByChecksum.size === 0) return;
  for (let i = 0; i < files.length; i++) {
    const file = files[i]!;
    if (file.kind !== 'versioned' || appliedNames.has(file.filename)) continue;
    const was = goneByChecksum.get(file.checksum);
    if (was !== undefined) {
      throw new MtoolError(
        'MTOOL_MIGRATION_FILE',
        `database '${database}': ${file.filename} is ${was.filename} renamed: it has the same content, and ${was.filename} (version ${was.version}) is applied ` +
          `but no longer in migrations/${database}/, so \`mtool migrate\` would run it a second time. Rename it back to ${was.filename}: ` +
          `a migration keeps the name it was applied with (to renumber one, roll it back first under its old name)`,
        { database },
      );
    }
  }
}

/** Highest applied version, null when none. */
export function currentVersion(records: readonly { version: string | null }[]): string | null {
  let best: string | null = null;
  for (let i = 0; i < records.length; i++) {
    const version = records[i]!.version;
    if (version !== null && (best === null || compareVersions(version, best) > 0)) best = version;
  }
  return best;
}

const hasVersion = (items: readonly { version?: string | null }[], target: string): boolean =>
  items.some((item) => item.version !== undefined && item.version !== null && compareVersions(item.version, target) === 0);

/**
 * Whether the files alone settle that `migrate --to-version <target>` names a migration: true
 * when a file has that version. Otherwise only the tracking table can tell (an applied migration
 * whose file is gone), see {@link checkMigrateTarget}.
 */
export function fileHasVersion(files: readonly MigrationFile[], target: string): boolean {
  return hasVersion(files, target);
}

/**
 * `migrate --to-version <target>`: the version must be that of a migration file or of an applied
 * migration; a typo would otherwise apply nothing, or everything pending below it, without a word.
 * @throws MtoolError `MTOOL_NOT_FOUND` (exit 1) naming the version.
 */
export function checkMigrateTarget(files: readonly MigrationFile[], records: readonly { version: string | null }[], database: string, target: string): void {
  if (hasVersion(files, target) || hasVersion(records, target)) return;
  throw new MtoolError(
    'MTOOL_NOT_FOUND',
    `database '${database}': no migration has version ${target} (no file in the migrations folder, none applied); nothing was applied: ` +
      `give --to-version a version that \`mtool status --database ${database}\` lists`,
    { database },
  );
}

/**
 * `rollback --to-version <target>` / `downgrade --to <target>`: the target is the version that
 * stays applied, so it must be applied; any other version would roll back everything above it
 * (0000: everything) or nothing, without a word.
 * @throws MtoolError `MTOOL_ROLLBACK` (exit 1) listing the applied versions.
 */
export function checkRollbackTarget(records: readonly { version: string | null; type: string }[], database: string, target: string, command: 'rollback' | 'downgrade'): void {
  const applied = records.filter((r) => r.type === 'versioned' && r.version !== null).map((r) => r.version as string);
  if (applied.some((v) => compareVersions(v, target) === 0)) return;
  applied.sort(compareVersions);
  const flag = command === 'downgrade' ? '--to' : '--to-version';
  const what = command === 'downgrade' ? `cannot downgrade to version ${target}` : `cannot roll back to version ${target}`;
  // What a target below applied versions (0000 for "everything") most likely meant.
  const above = applied.filter((v) => compareVersions(v, target) > 0).length;
  const count = command === 'rollback' && above > 0 ? `, or \`mtool rollback --database ${database} --count ${above}\` to roll back the ${above} applied above it` : '';
  throw new MtoolError(
    'MTOOL_ROLLBACK',
    `database '${database}': ${what}: it is not applied (${appliedVersions(applied)}); nothing was rolled back: ` +
      (applied.length === 0 ? 'there is nothing to roll back' : `give ${flag} an applied version, which stays applied${count}`),
    { database },
  );
}

/** The applied versions for a message, in order: all of a few, the ends of many. */
function appliedVersions(sorted: readonly string[]): string {
  if (sorted.length === 0) return 'no versioned migration is applied';
  if (sorted.length <= 12) return `applied versions: ${sorted.join(', ')}`;
  return `${sorted.length} versions applied: ${sorted.slice(0, 3).join(', ')} ... ${sorted.slice(-3).join(', ')}`;
}

/**
 * What `migrate` will do: pending versioned files in version order (cut by `count` /
 * `toVersion`), then the repeatables that are due: every `RA__` file, and `ROC__` files that never
 * ran or whose checksum changed. Baseline plans record versioned files only.
 * @throws MtoolError for a pending version below the highest applied one; `MTOOL_NOT_FOUND` for an unknown `toVersion`.
 */
export function planMigrate(
  files: readonly MigrationFile[],
  records: readonly TrackedMigration[],
  database: string,
  options: MigratePlanOptions = {},
): MigratePlan {
  const applied = new Map(records.map((r) => [r.filename, r]));
  const current = currentVersion(records);
  let versioned = files
    .filter((f) => f.kind === 'versioned' && !applied.has(f.filename))
    .sort((a, b) => compareVersions(a.version as string, b.version as string));

  if (current !== null) {
    const late = versioned.find((f) => compareVersions(f.version as string, current) < 0);
    if (late) {
      throw new MtoolError(
        'MTOOL_MIGRATION_FILE',
        `database '${database}': ${late.filename} (version ${late.version}) is pending but version ${current} is already applied; ` +
          `mtool applies versions in order only: renumber the file above ${current}`,
        { database },
      );
    }
  }
  if (options.toVersion !== undefined) {
    const target = options.toVersion;
    checkMigrateTarget(files, records, database, target);
    versioned = versioned.filter((f) => compareVersions(f.version as string, target) <= 0);
  }
  if (options.count !== undefined) versioned = versioned.slice(0, options.count);
  if (options.baseline) return { versioned, repeatables: [], baseline: true };

  const repeatables: RepeatableStep[] = [];
  for (let i = 0; i < files.length; i++) {
    const file = files[i]!;
    if (file.kind === 'versioned') continue;
    const existing = applied.get(file.filename);
    if (file.kind === 'repeatable_always' || !existing || existing.checksum !== file.checksum) repeatables.push({ file, existing });
  }
  return { versioned, repeatables, baseline: false };
}

export interface RollbackPlanOptions {
  /** Roll back the last N applied versioned migrations (default 1). */
  count?: number;
  /** Roll back every applied versioned migration above this version. */
  toVersion?: string;
  /** Names the command in the error for a `toVersion` that is not applied. Default `rollback`. */
  command?: 'rollback' | 'downgrade';
}

/**
 * Which applied versioned migrations `rollback` / `downgrade` revert, newest first. Every one of
 * them is checked before anything runs: its file exists, has rollback statements and is not
 * marked irreversible; a `toVersion` must be applied.
 * @throws MtoolError `MTOOL_ROLLBACK` naming the first migration that cannot be reverted, or a `toVersion` that is not applied.
 */
export function planRollback(
  files: readonly MigrationFile[],
  records: readonly MigrationRecord[],
  database: string,
  options: RollbackPlanOptions,
): RollbackStep[] {
  const applied = records
    .filter((r) => r.type === 'versioned' && r.version !== null)
    .sort((a, b) => compareVersions(b.version as string, a.version as string));
  let targets: MigrationRecord[];
  if (options.toVersion !== undefined) {
    const target = options.toVersion;
    checkRollbackTarget(applied, database, target, options.command ?? 'rollback');
    targets = applied.filter((r) => compareVersions(r.version as string, target) > 0);
  } else {
    const count = options.count ?? 1;
    targets = applied.slice(0, count);
  }
  const byFilename = new Map(files.map((f) => [f.filename, f]));
  return targets.map((record, above) => {
    const file = byFilename.get(record.filename);
    const refuse = (why: string, todo: string): MtoolError =>
      new MtoolError(
        'MTOOL_ROLLBACK',
        `database '${database}': cannot roll back ${record.filename}: ${why}; nothing was rolled back. ${todo}${rollBackAbove(database, record, above, options.command ?? 'rollback')}`,
        { database },
      );
    // Adding the section to the file now is the obvious fix and a trap: the file is applied, and
    // a changed applied file blocks every later migrate, status and rollback (checksum mismatch).
    const newMigration = 'An applied file must not change (its checksum is checked), so do not add a rollback to it now: undo what it did in a new migration';
    if (!file) throw refuse('the file is no longer in the migrations folder', `Restore it as it was applied (\`mtool history --database ${database}\` shows its checksum)`);
    if (file.irreversible) throw refuse('it is marked `-- mtool: irreversible`', 'Undo what it did in a new migration');
    // An upgrade of no statements (a placeholder) changed nothing: reverting it only removes its
    // record, and it must not stop a downgrade past it.
    if (file.upgrade.length === 0 && !file.rollback?.length) return { file, record };
    if (file.rollback === undefined) throw refuse('it has no `-- rollback` section', newMigration);
    if (file.rollback.length === 0) throw refuse('its `-- rollback` section has no statements', newMigration);
    return { file, record };
  });
}

/** The command that rolls back only the `above` migrations newer than `record` (none: nothing). */
function rollBackAbove(database: string, record: MigrationRecord, above: number, command: 'rollback' | 'downgrade'): string {
  if (above === 0) return '.';
  const what = `the ${above === 1 ? 'migration' : `${above} migrations`} above it`;
  const run = command === 'downgrade' ? `mtool downgrade --database ${database} --to ${record.version}` : `mtool rollback --database ${database} --count ${above}`;
  return `, or roll back only ${what}: \`${run}\``;
}

/** Per-file state for `status`: applied, pending, changed (ROC due), missing (recorded, file gone) or blocked (pending below the applied version). */
export function statusEntries(files: readonly MigrationFile[], records: readonly MigrationRecord[]): StatusEntry[] {
  const applied = new Map(records.map((r) => [r.filename, r]));
  const current = currentVersion(records);
  const entries: StatusEntry[] = files.map((file) => {
    const record = applied.get(file.filename);
    let state: StatusEntry['state'] = record ? 'applied' : 'pending';
    let note: string | null = null;
    if (record && file.kind === 'repeatable_on_change' && record.checksum !== file.checksum) state = 'changed';
    // planMigrate refuses the whole run over such a file: say so rather than show it as due.
    if (!record && file.kind === 'versioned' && current !== null && compareVersions(file.version as string, current) < 0) {
      state = 'blocked';
      note = `version ${file.version} is below the applied version ${current}: \`mtool migrate\` refuses to run (applies nothing) until this file is renumbered above ${current}`;
    }
    return {
      filename: file.filename,
      version: file.version ?? null,
      type: file.kind,
      state,
      appliedAt: record?.appliedAt ?? null,
      checksum: file.checksum,
      note,
    };
  });
  const onDisk = new Set(files.map((f) => f.filename));
  for (const record of records) {
    if (onDisk.has(record.filename)) continue;
    entries.push({ filename: record.filename, version: record.version, type: record.type, state: 'missing', appliedAt: record.appliedAt, checksum: record.checksum, note: null });
  }
  return entries;
}

function drift(file: MigrationFile, appliedChecksum: string, explain: ((file: MigrationFile, appliedChecksum: string) => string | undefined) | undefined): string {
  const sentence = explain?.(file, appliedChecksum);
  return sentence === undefined ? '' : ` ${sentence}`;
}
