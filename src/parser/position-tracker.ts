import type { SourcePosition } from '../errors.js';

/**
 * UTF-8 bytes minus UTF-16 code units of `sql[from, to)` (`to` on a code point boundary): 1 for
 * U+0080..U+07FF, 2 for the rest of the BMP and for a surrogate pair (2 units, 4 bytes), 2 for
 * a lone surrogate, which encodes as U+FFFD (3 bytes).
 */
function extraBytes(sql: string, from: number, to: number): number {
  let extra = 0;
  for (let k = from; k < to; k++) {
    const c = sql.charCodeAt(k);
    if (c < 0x80) continue;
    if (c < 0x800) extra += 1;
    else {
      extra += 2;
      if (c >= 0xd800 && c <= 0xdbff && (sql.charCodeAt(k + 1) & 0xfc00) === 0xdc00) k++;
    }
  }
  return extra;
}

/**
 * Turns string indexes into line, column and UTF-8 byte offset, walking forward only, so a
 * whole split costs about one extra pass over the text no matter how many statements it has.
 * That pass is native: line breaks are found with `indexOf('\n')` (a regular expression when
 * the text has `\r`), the next non-ASCII code unit with a regular expression; only spans that
 * hold non-ASCII text are read code unit by code unit (a mostly ASCII script costs almost
 * nothing there).
 *
 * Lines end at `\n`, `\r\n` or a lone `\r`. Columns count UTF-16 code units from 1. Byte
 * offsets count UTF-8 bytes as `Buffer.from(text)` encodes the text (a lone surrogate becomes
 * U+FFFD, 3 bytes). A leading byte order mark takes no column (editors do not show it) but
 * keeps its 3 bytes. Positions must fall on code point boundaries (token edges always do).
 */
export class PositionTracker {
  readonly #sql: string;
  readonly #firstLine: number;
  /** Where line 1's columns start counting: after a byte order mark, if there is one. */
  readonly #firstLineStart: number;
  /** Finds the next line break when the text has `\r`; `test` + `lastIndex` allocate nothing. */
  readonly #breaks: RegExp | undefined;
  /** Finds the next non-ASCII code unit. */
  readonly #nonAscii = /[^\x00-\x7f]/g;
  /** Lines are counted up to #pos. */
  #pos = 0;
  #line: number;
  #lineStart: number;
  /** Index of the first line break at or after #pos (or the length), so breaks are searched once. */
  #nextBreak = -1;
  /** Bytes are counted up to #bytePos (>= #pos: a statement's end is reached for its byte offset only). */
  #bytePos = 0;
  /** UTF-8 bytes minus UTF-16 code units before #bytePos. */
  #extra = 0;
  /** Index of the first non-ASCII code unit at or after #bytePos (or the length). */
  #nextNonAscii = -1;

  constructor(sql: string, firstLine: number, hasCr = sql.indexOf('\r') >= 0) {
    this.#sql = sql;
    this.#firstLine = firstLine;
    this.#line = firstLine;
    this.#firstLineStart = sql.charCodeAt(0) === 0xfeff ? 1 : 0;
    this.#lineStart = this.#firstLineStart;
    this.#breaks = hasCr ? /[\r\n]/g : undefined;
  }

  get line(): number {
    return this.#line;
  }

  get column(): number {
    return this.#pos - this.#lineStart + 1;
  }

  get byteOffset(): number {
    return this.#pos + this.#extra;
  }

  /** Moves to string index `to` (rewinds to the start first if `to` lies behind). */
  moveTo(to: number): void {
    if (to < this.#pos || to < this.#bytePos) this.#rewind();
    this.#countBytes(to);
    if (to === this.#pos) return;
    const sql = this.#sql;
    const n = sql.length;
    let k = this.#nextBreak;
    if (k < this.#pos) k = this.#findBreak(this.#pos);
    if (k < to) {
      let line = this.#line;
      let lineStart = this.#lineStart;
      do {
        // `\r\n` is one break; one that `to` splits is counted once `to` is past its `\n`.
        let next = k + 1;
        if (sql.charCodeAt(k) === 13 && sql.charCodeAt(next) === 10) {
          if (next >= to) break;
          next++;
        }
        line++;
        lineStart = next;
        k = this.#breaks === undefined ? sql.indexOf('\n', next) : this.#findBreak(next);
        if (k < 0) k = n;
      } while (k < to);
      this.#line = line;
      this.#lineStart = lineStart;
    }
    this.#nextBreak = k;
    this.#pos = to;
  }

  /**
   * The UTF-8 byte offset of string index `to` (at or after the current position), counting
   * bytes only: the lines on the way are counted by the next {@link moveTo}. For the end of a
   * statement, whose lines the move to the next statement counts anyway.
   */
  byteOffsetOf(to: number): number {
    if (to < this.#pos || to < this.#bytePos) this.moveTo(to);
    else this.#countBytes(to);
    return to + this.#extra;
  }

  /** The position of string index `at`, for error messages. */
  positionOf(at: number): SourcePosition {
    this.moveTo(at);
    return { line: this.line, column: this.column, offset: this.byteOffset };
  }

  #rewind(): void {
    this.#pos = 0;
    this.#line = this.#firstLine;
    this.#lineStart = this.#firstLineStart;
    this.#nextBreak = -1;
    this.#bytePos = 0;
    this.#extra = 0;
    this.#nextNonAscii = -1;
  }

  #countBytes(to: number): void {
    if (to <= this.#bytePos) return;
    let na = this.#nextNonAscii;
    if (na < this.#bytePos) na = this.#findNonAscii(this.#bytePos);
    if (na < to) {
      // Count the whole span from the first non-ASCII code unit in one loop, then search on
      // from `to`: non-ASCII text comes in clusters, so one regular expression call per span
      // beats one per run (~40x the cost of reading one code unit).
      this.#extra += extraBytes(this.#sql, na, to);
      na = this.#findNonAscii(to);
    }
    this.#nextNonAscii = na;
    this.#bytePos = to;
  }

  #findNonAscii(from: number): number {
    const re = this.#nonAscii;
    re.lastIndex = from;
    return re.test(this.#sql) ? re.lastIndex - 1 : this.#sql.length;
  }

  /** The first line break (`\n`, or `\r` when the text has one) at or after `from`, or the length. */
  #findBreak(from: number): number {
    const re = this.#breaks;
    if (re === undefined) {
      const k = this.#sql.indexOf('\n', from);
      return k < 0 ? this.#sql.length : k;
    }
    re.lastIndex = from;
    return re.test(this.#sql) ? re.lastIndex - 1 : this.#sql.length;
  }
}
