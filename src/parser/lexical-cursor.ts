import type { SplitPreset } from './presets.js';
import {
  endOfBackslashed, endOfBlockComment, endOfBracket, endOfDollarToken, endOfDoubled, endOfHeredocToken, endOfLine, openerChars, wordPartTable,
} from './scanner.js';

/** A position is in code: a `-- upgrade` line or `-- mtool:` directive starting there counts. */
export const IN_CODE = 0;
/** Inside a block comment (or a MySQL executable comment) that began earlier. */
export const IN_COMMENT = 1;
/** Inside a string literal, quoted identifier, dollar-quoted body or heredoc that began earlier. */
export const IN_QUOTE = 2;
export type LexicalContext = typeof IN_CODE | typeof IN_COMMENT | typeof IN_QUOTE;

const QUOTE = 39;
const NO_RUN = -2;

/**
 * Says, for positions in ascending order, whether each is in code or inside a comment or quoted
 * run that began before it, by the lexical rules of a splitter preset: the same rules and the
 * same helpers as the scanner, so the migration file parser and the splitter never disagree on
 * where a string or a comment ends. Reads the text lazily, only as far as the last position
 * asked about, jumping from one opener to the next with a native search.
 *
 * An unterminated string or comment runs to the end of the text (the splitter then reports it
 * where it starts). MySQL `DELIMITER` lines are read as code: a terminator that opens a quote or
 * a comment (`DELIMITER '`) is not supported.
 *
 * @example
 * const at = new LexicalCursor("SELECT '\n-- rollback\n';\n", SPLIT_PRESETS.postgresql);
 * at.contextAt(9); // IN_QUOTE: the line `-- rollback` is inside the string
 */
export class LexicalCursor {
  readonly #sql: string;
  readonly #p: SplitPreset;
  readonly #openers: RegExp;
  readonly #wordPart: Uint8Array;
  readonly #hasCr: boolean;
  /** Code resumes here: the end of the last quoted run or comment read (a token boundary). */
  #next = 0;
  /** The last run read, `[#runStart, #next)`, and what it is. */
  #runStart = 0;
  #runKind: LexicalContext = IN_CODE;
  /** The next opener at or after `#next` (`-1`: not searched yet), so plain stretches are searched once. */
  #opener = -1;

  constructor(sql: string, preset: SplitPreset) {
    this.#sql = sql;
    this.#p = preset;
    this.#openers = new RegExp(`[${openerChars(preset)}]`, 'g');
    this.#wordPart = wordPartTable(preset);
    this.#hasCr = sql.includes('\r');
  }

  /** Whether string index `pos` is in code, in a comment or in a quoted run. `pos` never decreases between calls. */
  contextAt(pos: number): LexicalContext {
    const sql = this.#sql;
    const n = sql.length;
    const p = this.#p;
    for (;;) {
      if (pos < this.#next) return pos > this.#runStart ? this.#runKind : IN_CODE;
      if (this.#opener < this.#next) this.#opener = this.#search(this.#next);
      const at = this.#opener;
      if (at >= pos) return IN_CODE;
      const c = sql.charCodeAt(at);
      const c1 = sql.charCodeAt(at + 1);
      // End of the run `at` opens (-1: unterminated, so it takes the rest of the text), or NO_RUN.
      let end = NO_RUN;
      let kind: LexicalContext = IN_QUOTE;
      switch (c) {
        case QUOTE:
          end = p.backslashInSingle || (p.eStrings && this.#eStringPrefix(at)) ? endOfBackslashed(sql, at, c) : endOfDoubled(sql, at, c);
          break;
        case 34:
          end = p.backslashInDouble ? endOfBackslashed(sql, at, c) : endOfDoubled(sql, at, c);
          break;
        case 96:
          end = p.backslashInBacktick ? endOfBackslashed(sql, at, c) : endOfDoubled(sql, at, c);
          break;
        case 91:
          end = endOfBracket(sql, at);
          break;
        case 36:
          // Inside a word (`a$b`, `x$$`) a `$` opens nothing.
          if (at === this.#next || !this.#isWordPart(sql.charCodeAt(at - 1))) {
            end = p.heredocs ? endOfHeredocToken(sql, this.#wordPart, at) : endOfDollarToken(sql, at);
          }
          break;
        case 45:
          if (c1 === 45 && (p.dashComment === 'always' || at + 2 >= n || sql.charCodeAt(at + 2) <= 32)) end = endOfLine(sql, at + 2, this.#hasCr);
          break;
        case 35:
          if (p.hashComment === 'always' || c1 === 32 || c1 === 33) end = endOfLine(sql, at + 1, this.#hasCr);
          break;
        default: // `/`
          if (c1 === 42) {
            kind = IN_COMMENT;
            end = endOfBlockComment(sql, at, p.nestedBlockComments);
          }
      }
      if (end === NO_RUN) {
        // An operator (`-`, `/`, `#`) or a `$` inside a word: code goes on after it.
        this.#opener = this.#search(at + 1);
        continue;
      }
      this.#runStart = at;
      this.#runKind = kind;
      // Unterminated: the run holds the rest of the text, its end included.
      this.#next = end < 0 ? n + 1 : end;
    }
  }

  /** Index of the first opener at or after `from`, or the text's length. */
  #search(from: number): number {
    this.#openers.lastIndex = from;
    return this.#openers.test(this.#sql) ? this.#openers.lastIndex - 1 : this.#sql.length;
  }

  /** PostgreSQL's `E'...'`: the quote follows a one-letter word E. */
  #eStringPrefix(at: number): boolean {
    if (at === 0 || (this.#sql.charCodeAt(at - 1) | 0x20) !== 101) return false;
    return at - 1 === this.#next || at - 1 === 0 || !this.#isWordPart(this.#sql.charCodeAt(at - 2));
  }

  #isWordPart(c: number): boolean {
    return c >= 128 || this.#wordPart[c] === 1;
  }
}
