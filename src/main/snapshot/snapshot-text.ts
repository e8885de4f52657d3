import { canonicalJson, canonicalJsonCompact, sha256Hex } from '../../schema/canonical-json.js';

/**
 * The members of a snapshot laid out one entry per line (the schema's maps). A snapshot after
 * each migration of a batch holds the whole schema, so a batch writes the sum of its schemas'
 * sizes: an entry's text on one line instead of indented over ~40 lines makes the files less
 * than half as big (1000 two-column tables: ~400 instead of ~950 bytes each) and keeps a diff
 * of two snapshots to one line per changed table.
 */
export const SNAPSHOT_MAPS: ReadonlySet<string> = new Set(['constraints', 'enums', 'indexes', 'tables']);

/**
 * The text of a snapshot file: canonical content (keys sorted at every depth, `undefined`
 * dropped), one top-level member per line, and within the maps of {@link SNAPSHOT_MAPS} one entry
 * per line as compact canonical JSON. The checksum is the SHA-256 of this text for the content
 * without `checksum` ({@link snapshotChecksum}), so a writer hashes the bytes it writes minus the
 * checksum's line.
 * @example snapshotText({ tables: { users: { name: 'users' } }, format_version: 2 })
 * // '{\n  "format_version": 2,\n  "tables": {\n    "users": {"name":"users"}\n  }\n}\n'
 */
export function snapshotText(content: Record<string, unknown>): string {
  const members = Object.keys(content)
    .filter((key) => content[key] !== undefined)
    .sort()
    .map((key) => `${memberPrefix(key)}${memberText(key, content[key])}`);
  return members.length === 0 ? `${LAYOUT.empty}\n` : `${LAYOUT.open}${members.join(LAYOUT.separator)}${LAYOUT.close}`;
}

/**
 * The punctuation of {@link snapshotText}, for the writer, which lays the same text out from
 * kept byte pieces (snapshot-writer.ts, map-text.ts): top level and maps open with `{` and a line
 * break, members and entries are separated by `,` and a line break.
 */
export const LAYOUT = {
  open: '{\n',
  separator: ',\n',
  close: '\n}\n',
  /** A map member's closing brace, at the members' indent. */
  mapClose: '\n  }',
  empty: '{}',
} as const;

/** A top-level member's line up to its value. */
export function memberPrefix(key: string): string {
  return `  ${JSON.stringify(key)}: `;
}

/** One entry of a map member, as its whole line (the writer keeps these per IR object). */
export function snapshotEntryLine(key: string, value: unknown): string {
  return `    ${JSON.stringify(key)}: ${canonicalJsonCompact(value)}`;
}

function memberText(key: string, value: unknown): string {
  if (!SNAPSHOT_MAPS.has(key) || typeof value !== 'object' || value === null || Array.isArray(value) || value instanceof Date) return canonicalJsonCompact(value);
  const map = value as Record<string, unknown>;
  const keys = Object.keys(map)
    .filter((k) => map[k] !== undefined)
    .sort();
  return keys.length === 0 ? LAYOUT.empty : `${LAYOUT.open}${keys.map((k) => snapshotEntryLine(k, map[k])).join(LAYOUT.separator)}${LAYOUT.mapClose}`;
}

/** The checksum rule: SHA-256 of {@link snapshotText} of the content without `checksum`. */
export function snapshotChecksum(content: Record<string, unknown>): string {
  const { checksum: _ignored, ...rest } = content;
  return sha256Hex(snapshotText(rest));
}

/**
 * Whether `content` carries its own checksum: by {@link snapshotChecksum}, or by the rule of
 * snapshots written before the one-line entries (SHA-256 of the fully indented canonical JSON),
 * which is also the rule of version 1 files. Returns the checksum the content hashes to by the
 * current rule when neither matches.
 */
export function verifySnapshotChecksum(content: Record<string, unknown>): { ok: true } | { ok: false; actual: string } {
  const actual = snapshotChecksum(content);
  if (actual === content.checksum) return { ok: true };
  const { checksum: _ignored, ...rest } = content;
  if (sha256Hex(canonicalJson(rest)) === content.checksum) return { ok: true };
  return { ok: false, actual };
}
