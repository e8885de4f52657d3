import type { SourcePosition } from '../errors.js';

/**
 * Turns string indexes into line, column and UTF-8 byte offset, walking forward only, so a
 * whole split costs one extra pass over the text no matter how many statements it has.
 *
 * Lines end at `\n`, `\r\n` or a lone `\r`. Columns count UTF-16 code units from 1.
 * Byte offsets count UTF-8 bytes as `Buffer.from(text)` would encode the text (a lone
 * surrogate becomes U+FFFD, 3 bytes). A leading byte order mark takes no column (editors
 * do not show it) but keeps its 3 bytes.
 */
export class PositionTracker {
  readonly #sql: string;
  readonly #firstLine: number;
  /** Where line 1's columns start counting: after a byte order mark, if there is one. */
  readonly #firstLineStart: number;
  #pos = 0;
  #line: number;
  #lineStart: number;
  /** UTF-8 bytes minus UTF-16 code units before #pos. */
  #extra = 0;

  constructor(sql: string, firstLine: number) {
    this.#sql = sql;
    this.#firstLine = firstLine;
    this.#line = firstLine;
    this.#firstLineStart = sql.charCodeAt(0) === 0xfeff ? 1 : 0;
    this.#lineStart = this.#firstLineStart;
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
    }
    const sql = this.#sql;
    let line = this.#line;
    let lineStart = this.#lineStart;
    let extra = this.#extra;
    let k = this.#pos;
    for (; k < to; k++) {
      const c = sql.charCodeAt(k);
      if (c < 0x80) {
        if (c === 10) {
          line++;
          lineStart = k + 1;
        } else if (c === 13 && sql.charCodeAt(k + 1) !== 10) {
          line++;
          lineStart = k + 1;
        }
      } else if (c < 0x800) {
        extra += 1;
      } else if (c >= 0xd800 && c <= 0xdbff && k + 1 < sql.length && (sql.charCodeAt(k + 1) & 0xfc00) === 0xdc00) {
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
