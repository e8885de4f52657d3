import { SqlSyntaxError } from '../errors.js';
import { P_COLON, P_OTHER, P_RPAREN, P_STRING, keywordCode, keywordTable, wordEquals } from './block-keywords.js';
import { BlockTracker } from './block-tracker.js';
import { PositionTracker } from './position-tracker.js';
import type { SplitPreset } from './presets.js';
import type { SqlStatement } from './split-statements.js';

// Character classes of ASCII code units; every code unit >= 128 is part of a word.
const C_OTHER = 0;
const C_SPACE = 1;
const C_WORD = 2;
const C_SQUOTE = 3;
const C_DQUOTE = 4;
const C_BACKTICK = 5;
const C_BRACKET = 6;
const C_DOLLAR = 7;
const C_DASH = 8;
const C_SLASH = 9;
const C_HASH = 10;
const C_RPAREN = 11;
const C_COLON = 12;

const SEMICOLON = 59;
const QUOTE = 39;
const BACKSLASH = 92;

interface Tables {
  /** Class of the first code unit of a token. */
  readonly start: Uint8Array;
  /** 1 where an ASCII code unit continues an unquoted word. */
  readonly wordPart: Uint8Array;
}

const tablesCache = new WeakMap<SplitPreset, Tables>();

function tablesFor(p: SplitPreset): Tables {
  let t = tablesCache.get(p);
  if (t !== undefined) return t;
  const start = new Uint8Array(128);
  const wordPart = new Uint8Array(128);
  for (let c = 0; c < 128; c++) {
    const isWord = (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
    if (isWord) {
      start[c] = C_WORD;
      wordPart[c] = 1;
    }
  }
  for (const c of [9, 10, 11, 12, 13, 32]) start[c] = C_SPACE;
  start[QUOTE] = C_SQUOTE;
  start[34] = C_DQUOTE;
  if (p.backticks) start[96] = C_BACKTICK;
  if (p.brackets) start[91] = C_BRACKET;
  if (p.dollarInWords) wordPart[36] = 1;
  // `$` opens a dollar quote or a `$1` parameter in PostgreSQL; elsewhere it starts a name (`$x`).
  start[36] = p.dollarQuotes ? C_DOLLAR : p.dollarInWords ? C_WORD : C_OTHER;
  start[45] = C_DASH;
  start[47] = C_SLASH;
  if (p.hashComment !== 'none') start[35] = C_HASH;
  start[41] = C_RPAREN;
  start[58] = C_COLON;
  t = { start, wordPart };
  tablesCache.set(p, t);
  return t;
}

function isDollarTagStart(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c >= 128;
}

function isDollarTagPart(c: number): boolean {
  return isDollarTagStart(c) || (c >= 48 && c <= 57);
}

/** End (exclusive) of a quoted run opened at `i` that escapes its quote by doubling it; -1 if unterminated. */
function endOfDoubled(sql: string, i: number, quote: string): number {
  const q = quote.charCodeAt(0);
  let j = i + 1;
  for (;;) {
    const k = sql.indexOf(quote, j);
    if (k < 0) return -1;
    if (sql.charCodeAt(k + 1) !== q) return k + 1;
    j = k + 2;
  }
}

/** Same, where a backslash also escapes the next code unit. */
function endOfBackslashed(sql: string, i: number, q: number): number {
  const n = sql.length;
  let j = i + 1;
  while (j < n) {
    const c = sql.charCodeAt(j);
    if (c === BACKSLASH) j += 2;
    else if (c === q) {
      if (sql.charCodeAt(j + 1) !== q) return j + 1;
      j += 2;
    } else j++;
  }
  return -1;
}

/** End of a `/* ... *\/` comment opened at `i`, honouring nesting if asked; -1 if unterminated. */
function endOfBlockComment(sql: string, i: number, nested: boolean): number {
  if (!nested) {
    const k = sql.indexOf('*/', i + 2);
    return k < 0 ? -1 : k + 2;
  }
  const n = sql.length - 1;
  let depth = 1;
  let j = i + 2;
  while (j < n) {
    const c = sql.charCodeAt(j);
    if (c === 42 && sql.charCodeAt(j + 1) === 47) {
      j += 2;
      if (--depth === 0) return j;
    } else if (c === 47 && sql.charCodeAt(j + 1) === 42) {
      j += 2;
      depth++;
    } else j++;
  }
  return -1;
}

/** Index of the line break ending the line that contains `i` (or the input's length). */
function endOfLine(sql: string, i: number, hasCr: boolean): number {
  if (!hasCr) {
    const k = sql.indexOf('\n', i);
    return k < 0 ? sql.length : k;
  }
  const n = sql.length;
  let j = i;
  while (j < n) {
    const c = sql.charCodeAt(j);
    if (c === 10 || c === 13) return j;
    j++;
  }
  return n;
}

function quoteName(c: number, p: SplitPreset): string {
  switch (c) {
    case QUOTE:
      return 'string literal';
    case 34:
      return p.doubleQuote === 'string' ? 'string literal' : 'quoted identifier';
    default:
      return 'quoted identifier';
  }
}

const BLOCK_HINT: Record<string, string> = {
  'pg-atomic': 'unterminated BEGIN ATOMIC body: add the END that closes it (each CASE inside needs its own END)',
  mysql: 'unterminated BEGIN ... END block in a stored program: add the missing END (IF, CASE, LOOP, WHILE and REPEAT need END IF, END CASE, END LOOP ...), or put the routine between DELIMITER lines',
  'sqlite-trigger': 'unterminated CREATE TRIGGER body: add END after its last statement (each CASE inside needs its own END)',
};

/**
 * Splits `sql` into statements by the rules of `preset`. One pass with `charCodeAt`; quoted
 * runs and comments are skipped with `indexOf` where the dialect allows. Throws
 * {@link SqlSyntaxError} for anything left open at the end of the input.
 */
export function scanStatements(sql: string, preset: SplitPreset, file: string | undefined, startLine: number): SqlStatement[] {
  const n = sql.length;
  const out: SqlStatement[] = [];
  const { start: cls, wordPart } = tablesFor(preset);
  const kwTable = keywordTable(preset.blocks);
  const blocks = new BlockTracker(preset.blocks);
  const pos = new PositionTracker(sql, startLine);
  const hasCr = sql.indexOf('\r') >= 0;
  const fail = (message: string, at: number): never => {
    throw new SqlSyntaxError(message, pos.positionOf(at), file);
  };

  let delim = ';';
  let delimFirst = SEMICOLON;
  let delimLen = 1;
  // Blocks only matter while `;` ends statements: under DELIMITER $$ the body needs no help.
  let trackBlocks = preset.blocks !== 'none';
  let stmtStart = -1;
  let lastEnd = -1;

  const emit = (): void => {
    pos.moveTo(stmtStart);
    const line = pos.line;
    const column = pos.column;
    const offset = pos.byteOffset;
    pos.moveTo(lastEnd);
    out.push({ text: sql.slice(stmtStart, lastEnd), line, column, offset, endOffset: pos.byteOffset });
  };

  // A byte order mark is not part of the first statement.
  let i = n > 0 && sql.charCodeAt(0) === 0xfeff ? 1 : 0;
  while (i < n) {
    const c = sql.charCodeAt(i);

    if (c === delimFirst && (delimLen === 1 || sql.startsWith(delim, i))) {
      if (trackBlocks && blocks.semicolon(i)) {
        lastEnd = ++i;
        continue;
      }
      if (stmtStart >= 0) emit();
      stmtStart = -1;
      blocks.reset();
      i += delimLen;
      continue;
    }

    const k = c < 128 ? cls[c] : C_WORD;
    switch (k) {
      case C_SPACE:
        i++;
        continue;

      case C_WORD: {
        let j = i + 1;
        while (j < n) {
          const d = sql.charCodeAt(j);
          // A custom delimiter may start with a word character (`END$$`): it still ends the word.
          if (d < 128 && (wordPart[d] === 0 || (d === delimFirst && sql.startsWith(delim, j)))) break;
          j++;
        }
        if (preset.eStrings && j === i + 1 && (c | 0x20) === 101 && sql.charCodeAt(j) === QUOTE) {
          const e = endOfBackslashed(sql, j, QUOTE);
          if (e < 0) fail("unterminated E'' string literal: add the closing ' (inside E'' strings \\' does not close the string)", i);
          if (stmtStart < 0) stmtStart = i;
          if (trackBlocks) blocks.punct(P_STRING, i);
          lastEnd = i = e;
          continue;
        }
        if (stmtStart < 0) {
          if (preset.delimiterDirective && j - i === 9 && wordEquals(sql, i, 'delimiter')) {
            i = readDelimiterDirective(j);
            continue;
          }
          stmtStart = i;
        }
        if (trackBlocks) blocks.word(keywordCode(kwTable, sql, i, j - i), i, sql.charCodeAt(j) === 40);
        lastEnd = i = j;
        continue;
      }

      case C_SQUOTE:
      case C_DQUOTE:
      case C_BACKTICK: {
        const backslash = k === C_SQUOTE ? preset.backslashInSingle : k === C_DQUOTE ? preset.backslashInDouble : preset.backslashInBacktick;
        const e = backslash ? endOfBackslashed(sql, i, c) : endOfDoubled(sql, i, sql[i]);
        if (e < 0) {
          const hint = backslash ? ' (a backslash escapes the character after it)' : '';
          fail(`unterminated ${quoteName(c, preset)}: add the closing ${sql[i]}${hint}`, i);
        }
        if (stmtStart < 0) stmtStart = i;
        if (trackBlocks) blocks.punct(k === C_SQUOTE || (k === C_DQUOTE && preset.doubleQuote === 'string') ? P_STRING : P_OTHER, i);
        lastEnd = i = e;
        continue;
      }

      case C_BRACKET: {
        const e = sql.indexOf(']', i + 1);
        if (e < 0) fail('unterminated quoted identifier: add the closing ]', i);
        if (stmtStart < 0) stmtStart = i;
        if (trackBlocks) blocks.punct(P_OTHER, i);
        lastEnd = i = e + 1;
        continue;
      }

      case C_DOLLAR: {
        const e = endOfDollarToken(i);
        if (stmtStart < 0) stmtStart = i;
        if (trackBlocks) blocks.punct(P_OTHER, i);
        lastEnd = i = e;
        continue;
      }

      case C_DASH:
        if (sql.charCodeAt(i + 1) === 45 && (preset.dashComment === 'always' || i + 2 >= n || sql.charCodeAt(i + 2) <= 32)) {
          i = endOfLine(sql, i + 2, hasCr);
          continue;
        }
        break;

      case C_HASH:
        if (preset.hashComment === 'always' || (i + 1 < n && (sql.charCodeAt(i + 1) === 32 || sql.charCodeAt(i + 1) === 33))) {
          i = endOfLine(sql, i + 1, hasCr);
          continue;
        }
        break;

      case C_SLASH:
        if (sql.charCodeAt(i + 1) === 42) {
          const e = endOfBlockComment(sql, i, preset.nestedBlockComments);
          if (e < 0) {
            const what = isExecutableComment(i) ? 'executable comment /*! ... */' : 'block comment';
            fail(`unterminated ${what}: add the closing */${preset.nestedBlockComments ? ' (comments nest here: every /* inside needs its own */)' : ''}`, i);
          }
          if (isExecutableComment(i)) {
            // MySQL runs the text of /*! ... */: it is part of the statement, and may be all of it.
            if (stmtStart < 0) stmtStart = i;
            if (trackBlocks) blocks.punct(P_OTHER, i);
            lastEnd = e;
          }
          i = e;
          continue;
        }
        break;
    }

    // Any other code unit is a one-character token.
    if (stmtStart < 0) stmtStart = i;
    if (trackBlocks) blocks.punct(k === C_RPAREN ? P_RPAREN : k === C_COLON ? P_COLON : P_OTHER, i);
    lastEnd = ++i;
  }

  if (trackBlocks) {
    blocks.resolve();
    if (blocks.depth > 0) fail(BLOCK_HINT[preset.blocks], blocks.outerStart);
  }
  if (stmtStart >= 0) emit();
  return out;

  function isExecutableComment(at: number): boolean {
    if (!preset.executableComments) return false;
    const c2 = sql.charCodeAt(at + 2);
    return c2 === 33 || ((c2 === 77 || c2 === 109) && sql.charCodeAt(at + 3) === 33);
  }

  /** `$1` parameter, `$tag$ ... $tag$` string, or a lone `$`; returns the end of the token. */
  function endOfDollarToken(at: number): number {
    let j = at + 1;
    const c1 = sql.charCodeAt(j);
    if (c1 >= 48 && c1 <= 57) {
      while (j < n && sql.charCodeAt(j) >= 48 && sql.charCodeAt(j) <= 57) j++;
      return j;
    }
    if (c1 !== 36) {
      if (!isDollarTagStart(c1)) return j;
      while (j < n && isDollarTagPart(sql.charCodeAt(j))) j++;
      if (sql.charCodeAt(j) !== 36) return at + 1; // `$name` without a closing `$` is not a quote
    }
    const tag = sql.slice(at, j + 1);
    const close = sql.indexOf(tag, j + 1);
    if (close < 0) fail(`unterminated dollar-quoted string: add the closing ${tag}`, at);
    return close + tag.length;
  }

  /**
   * `DELIMITER xx` (the mysql client's command): the rest of the line is the new terminator.
   * The line is not a statement. Returns where scanning resumes.
   */
  function readDelimiterDirective(afterWord: number): number {
    const eol = endOfLine(sql, afterWord, hasCr);
    const arg = sql.slice(afterWord, eol).trim();
    const wordAt = afterWord - 9;
    if (arg === '') fail('DELIMITER needs a terminator string, for example DELIMITER $$', wordAt);
    if (/\s/.test(arg)) fail(`DELIMITER takes one terminator string, got "${arg}": remove the text after the terminator`, wordAt);
    if (arg.includes('\\')) fail('DELIMITER cannot contain a backslash: choose another terminator, for example $$', wordAt);
    delim = arg;
    delimFirst = arg.charCodeAt(0);
    delimLen = arg.length;
    trackBlocks = preset.blocks !== 'none' && arg === ';';
    blocks.reset();
    return eol;
  }
}
