import * as crypto from 'node:crypto';
import type { SplitDialect } from '../dialects/types.js';
import { MtoolError } from '../errors.js';
import { IN_CODE, IN_COMMENT, LexicalCursor, type LexicalContext } from './lexical-cursor.js';
import { classifyMigrationName, type MigrationKind } from './migration-name.js';
import type { SplitPreset } from './presets.js';
import { endOfLine } from './scanner.js';
import { type SqlStatement, splitPreset, splitStatements } from './split-statements.js';
import { withoutPsqlMetaCommands } from './psql-meta.js';
import { unendedTransaction } from './transaction-control.js';

/**
 * Parse one migration file: name class, `-- upgrade` / `-- rollback` sections, `-- mtool: <word>`
 * directives, statements per section and the SHA-256 of the bytes. Pure (no I/O), so it runs in
 * workers unchanged. Markers and directives are whole lines, read by the dialect's lexical rules:
 * a line inside a block comment, a string, a quoted identifier or a dollar-quoted body (heredoc)
 * that began above it is SQL text, whatever it reads.
 */

export type { MigrationKind } from './migration-name.js';

/** Statements carry positions in the file: line and column, and UTF-8 byte offsets from the file start. */
export type { SqlStatement } from './split-statements.js';

/** Directives a file may carry as `-- mtool: <word>`; anything else is an error. */
export const MIGRATION_DIRECTIVES = {
  /** Rollback cannot be produced for this migration. */
  irreversible: 'rollback cannot be produced for this migration',
  /** Run the statements outside a transaction (for example CREATE INDEX CONCURRENTLY). */
  'no-transaction': 'run the statements outside a transaction',
} as const;
export type MigrationDirective = keyof typeof MIGRATION_DIRECTIVES;

export interface MigrationFile {
  filename: string;
  path: string;
  kind: MigrationKind;
  /** `NNNN`, versioned files only. */
  version?: string;
  description: string;
  /** SHA-256 hex of the file bytes. */
  checksum: string;
  upgrade: SqlStatement[];
  /** `undefined` when the file has no `-- rollback` section. */
  rollback: SqlStatement[] | undefined;
  irreversible: boolean;
  /** Directive words in the order they appear, each once. */
  directives: MigrationDirective[];
}

/** The fields that come from splitting a file (the others from its name and bytes): what a file parsed on first read computes then. */
export const PARSED_FIELDS = ['upgrade', 'rollback', 'irreversible', 'directives'] as const;

export interface MigrationFileInput {
  filename: string;
  path: string;
  content: string | Buffer;
  /** Database of the folder the file is in: `<db>__` prefixes must equal it. */
  database: string;
  dialect: SplitDialect;
  /** The SHA-256 of `content` when the caller has it already (a folder read hashes each file as it reads it). */
  checksum?: string;
}

const SECTION_MARKER = /^\s*--\s*(upgrade|rollback)\s*$/i;
/**
 * A comment line that is a section marker with punctuation around the word (`-- rollback:`,
 * `--- upgrade ---`, `-- [rollback]`) or a comment after it (`-- rollback -- drops t`): not a
 * marker, yet read as a plain comment it would put the rollback statements below it into the
 * upgrade, run by `migrate` right after the upgrade's own.
 */
const NEAR_MARKER = /^\s*--[^\w\s]*\s*[^\w\s]*\s*(upgrade|rollback)\s*[^\w\s]*\s*(?:(?:--|\/\*).*)?$/i;
/** The same with `#` (`# rollback`), where the dialect reads `#` as a comment: MySQL and MariaDB, ClickHouse after `# `. */
const HASH_NEAR_MARKER = /^\s*#[^\w\s]*\s*[^\w\s]*\s*(upgrade|rollback)\s*[^\w\s]*\s*(?:(?:--|#|\/\*).*)?$/i;
const DIRECTIVE = /^\s*--\s*mtool\s*:\s*(\S*)(.*)$/i;
/**
 * A directive written without its colon (`-- mtool no-transaction`) or, where `#` starts a
 * comment, with `#` (`# mtool: no-transaction`): read as a plain comment, the file would run
 * inside a transaction (or claim a rollback) against what its author declared.
 */
const NEAR_DIRECTIVE = /^\s*(--|#)\s*mtool\s*[:=]?\s*(irreversible|no-transaction)\b/i;
/** The line git writes where a conflicted merge begins (`<<<<<<< HEAD`): no SQL starts so. */
const CONFLICT_START = /^<{7}(?: |$)/;

type Section = 'upgrade' | 'rollback';

/**
 * One-shot hashing (Node 20.12+): about three times faster than a Hash object per file, which
 * counts when a `migrate` or `status` verifies a thousand applied files. A namespace lookup, so
 * older Node 20 releases (without `crypto.hash`) fall back instead of failing to link.
 */
const hashOnce = (crypto as { hash?: (algorithm: string, data: string | Buffer, encoding: 'hex') => string }).hash;

/** SHA-256 hex of file bytes: the checksum recorded when a migration is applied. */
export function checksumOf(content: string | Buffer): string {
  return hashOnce ? hashOnce('sha256', content, 'hex') : crypto.createHash('sha256').update(content).digest('hex');
}

/**
 * `UTF-16LE` or `UTF-16BE` when the bytes are UTF-16 text (a byte-order mark, or ASCII with a
 * zero byte beside each character), which decoded as UTF-8 would read as garbage.
 */
function utf16(bytes: Uint8Array): 'UTF-16LE' | 'UTF-16BE' | undefined {
  if (bytes.length < 2) return undefined;
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'UTF-16LE';
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'UTF-16BE';
  if (bytes.length >= 4 && bytes[0] !== 0 && bytes[1] === 0 && bytes[2] !== 0 && bytes[3] === 0) return 'UTF-16LE';
  if (bytes.length >= 4 && bytes[0] === 0 && bytes[1] !== 0 && bytes[2] === 0 && bytes[3] !== 0) return 'UTF-16BE';
  return undefined;
}

/**
 * Offset of the first byte that does not belong to a well-formed UTF-8 sequence (as the decoder
 * judges: no overlong forms, surrogates or code points past U+10FFFF), or -1.
 */
function invalidUtf8At(bytes: Uint8Array): number {
  for (let i = 0; i < bytes.length; ) {
    const c = bytes[i]!;
    if (c < 0x80) {
      i++;
      continue;
    }
    const length = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
    if (length === 0 || i + length > bytes.length) return i;
    const second = bytes[i + 1]!;
    const low = c === 0xe0 ? 0xa0 : c === 0xf0 ? 0x90 : 0x80;
    const high = c === 0xed ? 0x9f : c === 0xf4 ? 0x8f : 0xbf;
    if (second < low || second > high) return i;
    for (let k = 2; k < length; k++) if ((bytes[i + k]! & 0xc0) !== 0x80) return i;
    i += length;
  }
  return -1;
}

/**
 * @throws MtoolError `MTOOL_MIGRATION_FILE` naming the file and line: bad file name, no `-- upgrade`
 *   section, a section given twice, SQL before the first section, unknown directive, rollback
 *   statements in a file marked irreversible, a section that begins a transaction it never ends,
 *   a file in UTF-16 or another encoding than UTF-8;
 *   `MTOOL_SQL_SYNTAX` from the splitter.
 * @example parseMigrationFile({ filename: 'app__0001_init.sql', path, content, database: 'app', dialect: 'postgresql' })
 */
export function parseMigrationFile(input: MigrationFileInput): MigrationFile {
  const { filename, path, database, dialect } = input;
  const name = classifyMigrationName(filename, database);
  if (!name) {
    throw new MtoolError('MTOOL_MIGRATION_FILE', `${filename}: not a migration file (migrations end in .sql)`, { database });
  }
  const fail = (line: number, message: string): MtoolError =>
    new MtoolError('MTOOL_MIGRATION_FILE', `${path}:${line}: ${message}`, { database });

  if (typeof input.content !== 'string') {
    const encoding = utf16(input.content);
    if (encoding) {
      throw fail(1, `the file is ${encoding}, not UTF-8: save it as UTF-8 (Windows PowerShell 5's '>' and Out-File write UTF-16; use Out-File -Encoding utf8, or Set-Content)`);
    }
  }
  const raw = typeof input.content === 'string' ? input.content : input.content.toString('utf8');
  if (typeof input.content !== 'string' && raw.includes('\uFFFD')) {
    // Decoding replaced bytes that are not UTF-8 (or the file holds U+FFFD itself): a file saved
    // in Latin-1 or Windows-1252 would reach the database with its accents replaced.
    const at = invalidUtf8At(input.content);
    if (at >= 0) {
      const bytes = input.content;
      let line = 1;
      for (let k = 0; k < at; k++) if (bytes[k] === 0x0a || (bytes[k] === 0x0d && bytes[k + 1] !== 0x0a)) line++;
      // mysqldump writes BLOB and BINARY values as raw bytes in string literals unless told --hex-blob.
      const binary = dialect === 'mysql' ? '. Or it holds binary data, as a mysqldump or mariadb-dump of BLOB or BINARY columns without --hex-blob does: dump again with --hex-blob' : '';
      throw fail(line, `byte 0x${input.content[at]!.toString(16).toUpperCase().padStart(2, '0')} is not UTF-8: the file is in another encoding (Latin-1 or Windows-1252, say); save it as UTF-8${binary}`);
    }
  }
  const bom = raw.startsWith('\uFEFF') ? 1 : 0;
  const text = raw.slice(bom);
  const n = text.length;
  const hasCr = text.indexOf('\r') >= 0;
  const nul = text.indexOf('\0');
  if (nul >= 0) {
    // No database takes it in SQL text, and none says so clearly: SQLite ignores the rest of the
    // statement after it (the statement after it in the same call never ran, without a word),
    // PostgreSQL's protocol refuses it as 'invalid message format', MariaDB as a syntax error.
    const at = lineAndColumn(text, nul, hasCr);
    throw fail(at.line, `a NUL byte (0x00) at column ${at.column}: SQL text cannot hold one (SQLite ignores the rest of the statement after it, PostgreSQL refuses it); remove it, or in a string literal write the character as an escape`);
  }
  /** A section: its marker's line, and where its body starts and ends in `text`. */
  type SectionRange = { markerLine: number; bodyStart: number; bodyEnd: number };
  const sections = new Map<Section, SectionRange>();
  const directives: MigrationDirective[] = [];
  let current: SectionRange | undefined;
  let currentSection: Section | undefined;
  // Markers and directives are comments, so they count only where a comment can start: not in a
  // block comment, a string or a dollar-quoted body that began on an earlier line. There a
  // marker-looking line is text like any other.
  const preset = splitPreset(dialect);
  const hashes = preset.hashComment !== 'none';
  const context = new LexicalCursor(text, preset);

  // Line by line with indexOf, without an array of the lines: inside a section only a line that
  // starts with `--` (after whitespace) can be a marker or a directive, and the patterns run on
  // those alone (most lines of most files are SQL; ~4 % fewer instructions for a folder of small
  // files than splitting the text and testing both patterns on every line).
  let lineNo = 0;
  for (let start = 0; start <= n; ) {
    lineNo++;
    // Lines end at LF, CRLF or a lone CR, as the splitter (and PostgreSQL) end a `--` comment:
    // a `-- rollback` line after a lone CR read as part of its line above left the rollback
    // statements in the upgrade section, where they ran.
    const end = endOfLine(text, start, hasCr);
    const next = end + (text.charCodeAt(end) === 13 && text.charCodeAt(end + 1) === 10 ? 2 : 1);
    if (current !== undefined && !mayBeComment(text, start, end, hashes) && text.charCodeAt(start) !== 60) {
      start = next;
      continue;
    }
    const line = text.slice(start, end);
    const marker = SECTION_MARKER.exec(line);
    const directive = marker ? null : DIRECTIVE.exec(line);
    const nearMarker = marker || directive ? null : (NEAR_MARKER.exec(line) ?? (hashes ? hashNearMarker(line, preset.hashComment) : null));
    const nearDirective = marker || directive || nearMarker ? null : nearDirectiveOf(line, preset.hashComment);
    const conflict = CONFLICT_START.test(line);
    if (current !== undefined && !marker && !directive && !nearMarker && !nearDirective && !conflict) {
      start = next;
      continue;
    }
    const where = context.contextAt(start);
    if (marker && where === IN_CODE) {
      const section = marker[1].toLowerCase() as Section;
      const earlier = sections.get(section);
      if (earlier) throw fail(lineNo, `second '-- ${section}' section (the first is at line ${earlier.markerLine}); a file has one of each`);
      if (current) current.bodyEnd = start;
      current = { markerLine: lineNo, bodyStart: Math.min(next, n), bodyEnd: n };
      currentSection = section;
      sections.set(section, current);
      start = next;
      continue;
    }
    if (directive && where === IN_CODE) {
      const word = directive[1].toLowerCase();
      if (!(word in MIGRATION_DIRECTIVES)) {
        const known = Object.keys(MIGRATION_DIRECTIVES).join(', ');
        throw fail(lineNo, `unknown directive '-- mtool: ${directive[1]}'; known directives: ${known}`);
      }
      if (!directives.includes(word as MigrationDirective)) directives.push(word as MigrationDirective);
    }
    if (nearMarker && where === IN_CODE) {
      const word = nearMarker[1].toLowerCase();
      const effect = currentSection === undefined ? ' and starts no section' : `: the statements after it would stay in the '-- ${currentSection}' section and run with it`;
      throw fail(lineNo, `'${line.trim()}' is not a section marker${effect}; write it as '-- ${word}' alone on its line`);
    }
    if (conflict && where === IN_CODE) {
      throw fail(lineNo, `'${line.trim()}' is a git merge conflict marker: the merge of this file is unresolved; resolve the conflict (and remove the marker lines) before running it`);
    }
    if (nearDirective && where === IN_CODE) {
      throw fail(lineNo, `'${line.trim()}' is not read as a directive, so '${nearDirective}' would not apply; write it as '-- mtool: ${nearDirective}'`);
    }
    // Before the first section only comments and blank lines may appear.
    if (current === undefined && !commentOrBlank(line, start, where, context, preset)) {
      throw fail(lineNo, `SQL before the '-- upgrade' section; put statements under '-- upgrade' (or '-- rollback')`);
    }
    start = next;
  }

  const upgradeSection = sections.get('upgrade');
  if (!upgradeSection) {
    throw fail(1, `no '-- upgrade' section; a migration file starts its SQL with a line '-- upgrade' (and may add '-- rollback')`);
  }
  const bomBytes = bom ? 3 : 0;
  const split = (section: SectionRange): SqlStatement[] => {
    const start = section.bodyStart;
    const body = text.slice(start, section.bodyEnd);
    const base = bomBytes + Buffer.byteLength(text.slice(0, start), 'utf8');
    // Offsets from the splitter count from the section start: make them count from the file start
    // (in place: the statements are the splitter's own fresh objects).
    const statements = splitStatements(body, { dialect, file: path, startLine: section.markerLine + 1 });
    for (const st of statements) {
      st.offset += base;
      st.endOffset += base;
    }
    return dialect === 'postgresql' ? withoutPsqlMetaCommands(statements, (line, why) => { throw fail(line, why); }) : statements;
  };

  const upgrade = split(upgradeSection);
  const rollbackSection = sections.get('rollback');
  const rollback = rollbackSection ? split(rollbackSection) : undefined;
  // A file may begin and end transactions itself (it then runs outside one of mtool's), but
  // never leave one open: its tracking row, the next migration and the lock's release would run
  // inside it, and be rolled back with it when the session closes.
  const unended = (section: Section, statements: readonly SqlStatement[]): void => {
    const open = unendedTransaction(statements);
    if (open) {
      throw fail(open.line, `'${open.text}' begins a transaction that the '-- ${section}' section never ends; end it with COMMIT (or remove it: a migration's statements run in a transaction of their own where the database allows)`);
    }
  };
  unended('upgrade', upgrade);
  if (rollback) unended('rollback', rollback);
  const irreversible = directives.includes('irreversible');
  if (irreversible && rollback && rollback.length > 0) {
    throw fail(
      rollback[0].line,
      `the file is marked '-- mtool: irreversible' but its '-- rollback' section has statements; remove one or the other`,
    );
  }

  return {
    filename,
    path,
    kind: name.kind,
    ...(name.version === undefined ? {} : { version: name.version }),
    description: name.description,
    checksum: input.checksum ?? checksumOf(input.content),
    upgrade,
    rollback,
    irreversible,
    directives,
  };
}

/** 1-based line and column (UTF-16 code units) of `text[index]`, lines ending where {@link endOfLine} ends them. */
function lineAndColumn(text: string, index: number, hasCr: boolean): { line: number; column: number } {
  let line = 1;
  let start = 0;
  for (let end = endOfLine(text, 0, hasCr); end < index; end = endOfLine(text, start, hasCr)) {
    line++;
    start = end + (text.charCodeAt(end) === 13 && text.charCodeAt(end + 1) === 10 ? 2 : 1);
  }
  return { line, column: index - start + 1 };
}

/** Whether a line before the first section (starting at `lineStart`, in context `where`) holds no SQL: blank, a `--` comment, a `#` comment where the dialect has them, or inside or made of block comments. */
function commentOrBlank(line: string, lineStart: number, where: LexicalContext, context: LexicalCursor, preset: SplitPreset): boolean {
  const trimmed = line.trim();
  if (where === IN_CODE && (trimmed === '' || trimmed.startsWith('--') || hashComment(trimmed, preset))) return true;
  const inComment = where === IN_COMMENT || (where === IN_CODE && trimmed.startsWith('/*'));
  return inComment && !sqlAfterBlockComment(line, lineStart, context, where === IN_CODE && preset.executableComments);
}

/** Whether a trimmed line is a `#` comment where the dialect has them (MySQL: any `#`; ClickHouse: `# ` and `#!`). */
function hashComment(trimmed: string, preset: SplitPreset): boolean {
  if (trimmed.charCodeAt(0) !== 35 || preset.hashComment === 'none') return false;
  const next = trimmed.charCodeAt(1);
  return preset.hashComment === 'always' || next === 32 || next === 33;
}

/**
 * Whether the line `text[start, end)` may be a `--` comment line, as a marker or a directive is
 * (the patterns allow any whitespace before the `--`): its first code unit that is not ASCII
 * whitespace is `--`, `#` (`hashes`: a dialect with `#` comments, for {@link HASH_NEAR_MARKER}),
 * or is not ASCII (Unicode whitespace; the patterns decide).
 */
function mayBeComment(text: string, start: number, end: number, hashes: boolean): boolean {
  let k = start;
  let c = text.charCodeAt(k);
  while (k < end && (c === 32 || (c >= 9 && c <= 13))) c = text.charCodeAt(++k);
  return k < end && ((c === 45 && text.charCodeAt(k + 1) === 45) || c >= 128 || (hashes && c === 35));
}

/**
 * The directive a near miss ({@link NEAR_DIRECTIVE}) meant; `#` counts only where it starts a
 * comment (MySQL/MariaDB always, ClickHouse before a space or `!`).
 */
function nearDirectiveOf(line: string, hashComment: SplitPreset['hashComment']): string | null {
  const match = NEAR_DIRECTIVE.exec(line);
  if (match === null) return null;
  if (match[1] === '#' && (hashComment === 'none' || (hashComment !== 'always' && !/^\s*#[ !]/.test(line)))) return null;
  return match[2]!.toLowerCase();
}

/** A `# rollback` near miss ({@link HASH_NEAR_MARKER}) where `#` starts a comment in the dialect. */
function hashNearMarker(line: string, hashComment: SplitPreset['hashComment']): RegExpExecArray | null {
  const match = HASH_NEAR_MARKER.exec(line);
  if (match === null || hashComment === 'always') return match;
  // ClickHouse: only `# ` and `#!` begin a comment.
  const next = line.charCodeAt(line.indexOf('#') + 1);
  return next === 32 || next === 9 || next === 33 ? match : null;
}

/**
 * Whether a line that starts in or with a block comment holds SQL after it (`/* c *\/ SELECT 0;`),
 * or is SQL itself: a MySQL/MariaDB executable comment (`/*!40101 SET NAMES utf8mb4 *\/`, as
 * mysqldump writes them) runs. Comments end where the splitter's rules say (nested ones too), so
 * the cursor, not a search for the first `*\/`, tells where code resumes.
 */
function sqlAfterBlockComment(line: string, lineStart: number, context: LexicalCursor, executableComments: boolean): boolean {
  const executable = (text: string): boolean => executableComments && /^\/\*M?!/.test(text);
  if (executable(line.trimStart())) return true;
  for (let end = line.indexOf('*/'); end >= 0; end = line.indexOf('*/', end + 2)) {
    if (context.contextAt(lineStart + end + 2) !== IN_CODE) continue;
    const rest = line.slice(end + 2).trim();
    if (rest === '' || rest.startsWith('--')) return false;
    if (!rest.startsWith('/*') || executable(rest)) return true;
  }
  // The comment goes on to the next line.
  return false;
}
