import type { SourcePosition } from '../errors.js';

/**
 * Turns string indexes into line, column and UTF-8 byte offset, walking forward only, so a
 * whole split costs about one extra pass over the text no matter how many statements it has.
 * That pass is mostly native: lines are found with `indexOf('\n')`, non-ASCII runs with a
 * regular expression, and only the code units of those runs are read one by one (a mostly
 * ASCII script costs almost nothing). Text with `\r` line breaks is walked unit by unit.
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
  readonly #hasCr: boolean;
  /** Finds the next non-ASCII code unit; `test` + `lastIndex` allocate nothing. */
  readonly #nonAscii = /[^\x00-\x7f]/g;
  /** Index of the first non-ASCII code unit at or after #pos not yet counted (or the length). */
  #nextNonAscii = -1;
  #pos = 0;
  #line: number;
  #lineStart: number;
  /** UTF-8 bytes minus UTF-16 code units before #pos. */
  #extra = 0;
  /** Index of the first `\n` at or after #pos (or the length), so lines are searched once. */
  #nextNewline = -1;

  constructor(sql: string, firstLine: number, hasCr = sql.indexOf('\r') >= 0) {
    this.#sql = sql;
    this.#firstLine = firstLine;
    this.#line = firstLine;
    this.#firstLineStart = sql.charCodeAt(0) === 0xfeff ? 1 : 0;
    this.#lineStart = this.#firstLineStart;
    this.#hasCr = hasCr;
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
    if (to < this.#pos) {
      this.#pos = 0;
      this.#line = this.#firstLine;
      this.#lineStart = this.#firstLineStart;
      this.#extra = 0;
      this.#nextNewline = -1;
      this.#nextNonAscii = -1;
    }
    if (to === this.#pos) return;
    if (this.#hasCr) this.#walk(to);
    else {
      const sql = this.#sql;
      let nl = this.#nextNewline;
      if (nl < this.#pos) nl = this.#find(this.#pos);
      while (nl < to) {
        this.#line++;
        this.#lineStart = nl + 1;
        nl = this.#find(nl + 1);
      }
      this.#nextNewline = nl;
      let na = this.#nextNonAscii;
      if (na < this.#pos) na = this.#findNonAscii(this.#pos);
      while (na < to) {
        // Count the run of non-ASCII code units starting at `na` (up to `to`).
        let k = na;
        let extra = this.#extra;
        for (; k < to; k++) {
          const c = sql.charCodeAt(k);
          if (c < 0x80) break;
          if (c < 0x800) extra += 1;
          else if (c >= 0xd800 && c <= 0xdbff && (sql.charCodeAt(k + 1) & 0xfc00) === 0xdc00) {
            extra += 2;
            k++;
          } else extra += 2;
        }
        this.#extra = extra;
        na = k < to ? this.#findNonAscii(k) : k;
      }
      this.#nextNonAscii = na;
      this.#pos = to;
    }
  }

  #findNonAscii(from: number): number {
    // Non-ASCII text comes in clusters (a word, a comment): look a few code units ahead in JS
    // before paying for a regular expression call (~40x the cost of reading one code unit).
    const sql = this.#sql;
    const near = Math.min(from + 64, sql.length);
    for (let k = from; k < near; k++) if (sql.charCodeAt(k) >= 0x80) return k;
    if (near === sql.length) return near;
    const re = this.#nonAscii;
    re.lastIndex = near;
    return re.test(sql) ? re.lastIndex - 1 : sql.length;
  }

  #find(from: number): number {
    const k = this.#sql.indexOf('\n', from);
    return k < 0 ? this.#sql.length : k;
  }

  /** Code unit by code unit: for text with `\r`, which `indexOf('\n')` alone cannot count. */
  #walk(to: number): void {
    const sql = this.#sql;
    let line = this.#line;
    let lineStart = this.#lineStart;
    let extra = this.#extra;
    let k = this.#pos;
    for (; k < to; k++) {
      const c = sql.charCodeAt(k);
      if (c < 0x80) {
        if (c === 10 || (c === 13 && sql.charCodeAt(k + 1) !== 10)) {
          line++;
          lineStart = k + 1;
        }
      } else if (c < 0x800) {
        extra += 1;
      } else if (c >= 0xd800 && c <= 0xdbff && (sql.charCodeAt(k + 1) & 0xfc00) === 0xdc00) {
        // A surrogate pair: 2 code units, 4 bytes. Step over the low half so it is not counted alone.
        extra += 2;
        k++;
      } else {
        // Rest of the BMP (3 bytes), and lone surrogates, which encode as U+FFFD (3 bytes).
        extra += 2;
      }
    }
    this.#pos = k;
    this.#line = line;
    this.#lineStart = lineStart;
    this.#extra = extra;
  }

  /** The position of string index `at`, for error messages. */
  positionOf(at: number): SourcePosition {
    this.moveTo(at);
    return { line: this.line, column: this.column, offset: this.byteOffset };
  }
}
