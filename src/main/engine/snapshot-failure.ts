import { MtoolError } from '../../errors.js';

/**
 * The error `migrate` warns with when schema snapshots of a batch could not be written (spec: a
 * snapshot write failure only logs a warning): which files, why, the folder, and what to do.
 * `problems`: per snapshot, `file (why)`; the same reason given for several files is said once.
 * `dir`: the snapshot folder (snapshotDir of the project root). `writing`: whether a write
 * failed (else only the schema could not be read, as when the connection was lost, and nothing
 * about the folder needs fixing).
 * @example throw snapshotsNotWritten('/app/.mtool/schemas', 'app', [{ filename: 'app__0002_b.sql', reason: 'EACCES: ...' }], cause)
 */
export function snapshotsNotWritten(dir: string, database: string, problems: readonly { filename: string; reason: string }[], cause?: unknown, writing = true): MtoolError {
  const byReason = new Map<string, string[]>();
  for (const p of problems) byReason.set(p.reason, [...(byReason.get(p.reason) ?? []), p.filename]);
  const groups = [...byReason].map(([reason, files]) => `${files.length > 5 ? `${files.slice(0, 5).join(', ')} and ${files.length - 5} more` : files.join(', ')} (${reason})`);
  const listed = groups.length > 5 ? [...groups.slice(0, 5), `and ${groups.length - 5} more`] : groups;
  return new MtoolError(
    'MTOOL_SNAPSHOT',
    `schema snapshots of database '${database}' not written to ${dir}: ${listed.join('; ')}. ` +
      `The migrations are applied and recorded. ${writing ? `Fix what keeps mtool from writing there (${dir} must be a folder mtool can write in, and no snapshot file's path in it a folder); the` : 'The'} next \`migrate\` that applies a migration writes a snapshot again.`,
    { database, ...(cause !== undefined ? { cause } : {}) },
  );
}

/** An error's message, for {@link snapshotsNotWritten}'s reasons. */
export function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
