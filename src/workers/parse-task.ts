import type { SplitDialect } from '../dialects/types.js';
import type { MigrationFile, SqlStatement } from '../parser/migration-file.js';

/** One batch of migration files for a worker: read (unless contents are given) and parse. */
export interface ParseTask {
  dir: string;
  database: string;
  dialect: SplitDialect;
  filenames: string[];
  /** File bytes already read on the main thread, same order as `filenames`. */
  contents?: Uint8Array[];
}

/** An MtoolError crossing the thread boundary (structured clone drops custom fields). */
export interface ParseTaskError {
  code: string;
  message: string;
  database: string | undefined;
}

/**
 * Parsed files in a compact form. Structured-cloning one object per statement back to the main
 * thread cost more than parsing them (bench/directory-parse.mjs), so statements travel as one
 * string of all their texts plus one transferable Int32Array of numbers, and file metadata as
 * one JSON string.
 */
export interface PackedFiles {
  /** JSON of {@link PackedMeta}[]. */
  meta: string;
  /** Every statement text, concatenated in file order: upgrade statements, then rollback ones. */
  text: string;
  /** Per statement: text length, line, column, offset, endOffset. */
  numbers: Int32Array;
}

type PackedMeta = Omit<MigrationFile, 'upgrade' | 'rollback'> & { up: number; down: number | null };

/**
 * A batch's files, and those of them that did not parse: each stands in the batch with its name
 * fields and checksum, and its error is raised when its statements are first read, as the main
 * thread's lazy files do (an applied file that no longer parses stops only what would run it).
 */
export type ParseTaskResult = { ok: true; packed: PackedFiles; failed: { index: number; error: ParseTaskError }[] } | { ok: false; error: ParseTaskError };

const FIELDS = 5;

/** Pack parsed files for the trip to the main thread (see {@link PackedFiles}). */
export function packFiles(files: readonly MigrationFile[]): PackedFiles {
  const meta: PackedMeta[] = [];
  const texts: string[] = [];
  let count = 0;
  for (const f of files) count += f.upgrade.length + (f.rollback?.length ?? 0);
  const numbers = new Int32Array(count * FIELDS);
  let at = 0;
  const put = (s: SqlStatement) => {
    texts.push(s.text);
    numbers[at++] = s.text.length;
    numbers[at++] = s.line;
    numbers[at++] = s.column;
    numbers[at++] = s.offset;
    numbers[at++] = s.endOffset;
  };
  for (const f of files) {
    const { upgrade, rollback, ...rest } = f;
    meta.push({ ...rest, up: upgrade.length, down: rollback ? rollback.length : null });
    upgrade.forEach(put);
    rollback?.forEach(put);
  }
  return { meta: JSON.stringify(meta), text: texts.join(''), numbers };
}

/** Inverse of {@link packFiles}. */
export function unpackFiles(packed: PackedFiles): MigrationFile[] {
  const meta = JSON.parse(packed.meta) as PackedMeta[];
  const { text, numbers } = packed;
  let pos = 0;
  let at = 0;
  const take = (n: number): SqlStatement[] => {
    const out: SqlStatement[] = new Array(n);
    for (let i = 0; i < n; i++) {
      const length = numbers[at];
      out[i] = { text: text.slice(pos, pos + length), line: numbers[at + 1], column: numbers[at + 2], offset: numbers[at + 3], endOffset: numbers[at + 4] };
      pos += length;
      at += FIELDS;
    }
    return out;
  };
  return meta.map(({ up, down, ...rest }) => {
    const upgrade = take(up);
    const rollback = down === null ? undefined : take(down);
    return { ...rest, upgrade, rollback };
  });
}
