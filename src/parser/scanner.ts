import { SqlSyntaxError } from '../errors.js';
import { K_BEGIN, K_END, K_OTHER, MAX_KEYWORD_LENGTH, P_COLON, P_OTHER, P_RPAREN, P_STRING, keywordCode, keywordTable, wakeWords, wordEquals } from './block-keywords.js';
import { BlockTracker } from './block-tracker.js';
import { COPY_FROM_STDIN, endOfCopyData } from './copy-data.js';
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
  /** P_SPACE, P_TOKEN or P_SPECIAL for each ASCII code unit (see {@link plainCodePattern}). */
  readonly plain: Uint8Array;
  /** For each ASCII code unit that opens a quoted run, how the run ends (Q_*); Q_NONE otherwise. */
  readonly quoteKind: Uint8Array;
  readonly dollarInWords: boolean;
  readonly eStrings: boolean;
  /**
   * Find the next code unit that may start something other than a word, whitespace or
   * one-character punctuation (see {@link plainCodePattern}), outside and inside a block body.
   * Global, so `lastIndex` sets where `test` starts; every match is one code unit long.
   */
  readonly special: RegExp;
  readonly specialInBody: RegExp;
}

// What a code unit is to the jump over plain code: whitespace, the start of a word or
// punctuation token, or a character the jump must stop at.
const P_SPACE = 1;
const P_TOKEN = 2;
const P_SPECIAL = 0;

// How a quoted run ends: at an undoubled quote, also skipping backslash escapes, or at `]`.
const Q_NONE = 0;
const Q_DOUBLED = 1;
const Q_BACKSLASHED = 2;
const Q_BRACKET = 3;

/**
 * The source of the regular expression that finds, in plain code, the next code unit that
 * matters when nothing but terminators, quotes and comments can change the scan: `;`, every
 * character that opens a quoted run or a comment in this dialect, and the first letter of each
 * word that can wake the block tracker (a look-ahead checks the rest of the word, so a match is
 * always one code unit). `-`, `/` and `#` match even where they turn out to be operators, and
 * `$` even inside a word (`a$b`): the scanner sorts those out, which is cheaper than making
 * the pattern exact.
 */
function plainCodePattern(p: SplitPreset, inBody: boolean): string {
  const chars = `;${openerChars(p)}`;
  const words = wakeWords(p.blocks, inBody).map((w) => {
    const either = (ch: string) => `[${ch.toUpperCase()}${ch}]`;
    return `${either(w[0])}(?=${[...w.slice(1)].map(either).join('')})`;
  });
  return [`[${chars}]`, ...words].join('|');
}

/**
 * The code units that may open a quoted run or a comment in this dialect, as a character class
 * body: quotes, `-`, `/`, and where the dialect has them backticks, brackets, `$` and `#` (also
 * where they turn out to be operators or part of a word).
 */
export function openerChars(p: SplitPreset): string {
  let chars = `'"\\-/`;
  if (p.backticks) chars += '`';
  if (p.brackets) chars += '\\[';
  if (p.dollarQuotes || p.heredocs) chars += '$';
  if (p.hashComment !== 'none') chars += '#';
  return chars;
}

/** 1 where an ASCII code unit continues an unquoted word in this dialect (every code unit >= 128 does). */
export function wordPartTable(p: SplitPreset): Uint8Array {
  return tablesFor(p).wordPart;
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
  // `$` opens a dollar quote or a `$1` parameter in PostgreSQL, a heredoc or a name (`$x`) in
  // ClickHouse; elsewhere it starts a name.
  start[36] = p.dollarQuotes || p.heredocs ? C_DOLLAR : p.dollarInWords ? C_WORD : C_OTHER;
  start[45] = C_DASH;
  start[47] = C_SLASH;
  if (p.hashComment !== 'none') start[35] = C_HASH;
  start[41] = C_RPAREN;
  start[58] = C_COLON;
  const plain = new Uint8Array(128);
  for (let c = 0; c < 128; c++) {
    const k = start[c];
    plain[c] = k === C_SPACE ? P_SPACE : (k === C_WORD || k === C_OTHER || k === C_RPAREN || k === C_COLON) && c !== SEMICOLON ? P_TOKEN : P_SPECIAL;
  }
  const quoteKind = new Uint8Array(128);
  quoteKind[QUOTE] = p.backslashInSingle ? Q_BACKSLASHED : Q_DOUBLED;
  quoteKind[34] = p.backslashInDouble ? Q_BACKSLASHED : Q_DOUBLED;
  if (p.backticks) quoteKind[96] = p.backslashInBacktick ? Q_BACKSLASHED : Q_DOUBLED;
  if (p.brackets) quoteKind[91] = Q_BRACKET;
  t = {
    start, wordPart, plain, quoteKind, dollarInWords: p.dollarInWords, eStrings: p.eStrings,
    special: new RegExp(plainCodePattern(p, false), 'g'), specialInBody: new RegExp(plainCodePattern(p, true), 'g'),
  };
  tablesCache.set(p, t);
  return t;
}

/** Whether code unit `c` continues an unquoted word (every code unit >= 128 does). */
function isWordPart(wordPart: Uint8Array, c: number): boolean {
  return c >= 128 || wordPart[c] === 1;
}

/**
 * Jumps over plain code and quoted runs from token boundary `from`, while only terminators,
 * comments, dollar quotes and wake words can change the scan (the caller checks that), and
 * returns where the scanner must look again: the next match of `special` (see
 * {@link plainCodePattern}) that is not a quoted run, or the input's length.
 *
 * Right after a word character, `$` continues the word (`a$b`) and a letter is no wake word:
 * the search goes on. A quote right after a one-letter word `E` stops at the `E`, so the
 * word code reads the prefix of an E'' string; an unterminated quoted run stops at its quote,
 * so the scanner reports it. A small function of its own, so it stays a tight loop: the
 * scanner's main loop pays for its many variables on every turn.
 */
function jumpPlainCode(sql: string, t: Tables, special: RegExp, from: number): number {
  const wordPart = t.wordPart;
  // Start of the current run of plain code: a token boundary (`from`, or the end of a quoted run).
  let start = from;
  let at = from - 1;
  for (;;) {
    special.lastIndex = at + 1;
    if (!special.test(sql)) return sql.length;
    at = special.lastIndex - 1;
    const d = sql.charCodeAt(at);
    if (at > start) {
      const before = sql.charCodeAt(at - 1);
      if (d === QUOTE) {
        if (t.eStrings && (before | 0x20) === 101 && (at - 1 === start || !isWordPart(wordPart, sql.charCodeAt(at - 2)))) return at - 1;
      } else if ((d === 36 ? t.dollarInWords : ((d | 0x20) - 97) >>> 0 < 26) && isWordPart(wordPart, before)) {
        continue;
      }
    }
    const q = t.quoteKind[d];
    if (q === Q_NONE) return at;
    const e = q === Q_DOUBLED ? endOfDoubled(sql, at, d) : q === Q_BACKSLASHED ? endOfBackslashed(sql, at, d) : endOfBracket(sql, at);
    if (e < 0) return at;
    start = e;
    at = e - 1;
  }
}

/** End (exclusive) of a `[...]` identifier opened at `i`; -1 if unterminated. */
export function endOfBracket(sql: string, i: number): number {
  const k = sql.indexOf(']', i + 1);
  return k < 0 ? -1 : k + 1;
}

/** End of the last token in plain code `sql[from, to)`: `to` less trailing whitespace (`from` if none). */
function endOfPlainTokens(sql: string, cls: Uint8Array, from: number, to: number): number {
  let e = to;
  while (e > from) {
    const d = sql.charCodeAt(e - 1);
    if (d > 32 || cls[d] !== C_SPACE) break;
    e--;
  }
  return e;
}

function isDollarTagStart(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c >= 128;
}

function isDollarTagPart(c: number): boolean {
  return isDollarTagStart(c) || (c >= 48 && c <= 57);
}

/** End (exclusive) of a quoted run opened at `i` that escapes its quote by doubling it; -1 if unterminated. */
export function endOfDoubled(sql: string, i: number, q: number): number {
  const quote = q === QUOTE ? "'" : q === 34 ? '"' : '`';
  let j = i + 1;
  for (;;) {
    const k = sql.indexOf(quote, j);
    if (k < 0) return -1;
    if (sql.charCodeAt(k + 1) !== q) return k + 1;
    j = k + 2;
  }
}

/**
 * Same, where a backslash also escapes the next code unit. Quotes are found with `indexOf`; one
 * is escaped when an odd run of backslashes precedes it (a run starts on a fresh code unit, and
 * its backslashes escape each other in pairs), which is what reading unit by unit would find.
 */
export function endOfBackslashed(sql: string, i: number, q: number): number {
  const quote = q === QUOTE ? "'" : q === 34 ? '"' : '`';
  let j = i + 1;
  for (;;) {
    const k = sql.indexOf(quote, j);
    if (k < 0) return -1;
    let b = k;
    while (b > j && sql.charCodeAt(b - 1) === BACKSLASH) b--;
    if (((k - b) & 1) === 1) j = k + 1;
    else if (sql.charCodeAt(k + 1) === q) j = k + 2;
    else return k + 1;
  }
}

/** End of a `/* ... *\/` comment opened at `i`, honouring nesting if asked; -1 if unterminated. */
export function endOfBlockComment(sql: string, i: number, nested: boolean): number {
  const k = sql.indexOf('*/', i + 2);
  if (k < 0) return -1;
  // With no `/*` between the opener and the first `*/` nothing nests: that `*/` closes.
  if (!nested || sql.lastIndexOf('/*', k - 1) === i) return k + 2;
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
export function endOfLine(sql: string, i: number, hasCr: boolean): number {
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

/** Where splitting failed, for the error: the file and the line its text starts at. */
interface ErrorContext {
  readonly sql: string;
  readonly file: string | undefined;
  readonly startLine: number;
}

function syntaxError(ctx: ErrorContext, message: string, at: number): SqlSyntaxError {
  // Errors are rare, so a fresh tracker (one more pass) keeps the hot loop free of error state.
  return new SqlSyntaxError(message, new PositionTracker(ctx.sql, ctx.startLine).positionOf(at), ctx.file);
}

/**
 * Whether the `/*` at `at` opens a MySQL/MariaDB executable comment (`/*!`, `/*M!`) that a server
 * runs. One for version 999999, which no server has, is a comment: mariadb-dump's first line
 * `/*M!999999\- enable the sandbox mode *\/` is for the mariadb client alone and has no `;` after
 * it, so read as statement text it hid the first word of the statement after it (a `LOCK TABLES`,
 * a `SET autocommit`) from mtool, and a `DELIMITER` line after it was sent to the server.
 */
export function isExecutableComment(sql: string, at: number): boolean {
  const c2 = sql.charCodeAt(at + 2);
  const bang = c2 === 33 ? at + 2 : (c2 === 77 || c2 === 109) && sql.charCodeAt(at + 3) === 33 ? at + 3 : -1;
  return bang >= 0 && !sql.startsWith('999999', bang + 1);
}

/**
 * Where the opening tag of a PostgreSQL dollar quote (`$$`, `$tag$`: the tag an identifier) or,
 * with `heredocs`, a ClickHouse heredoc (the tag ASCII letters, digits and `_`) at `at` ends:
 * right after its second `$`; -1 where the `$` opens none (`$1`, `$name`).
 */
export function quoteTagEnd(sql: string, at: number, heredocs: boolean): number {
  const n = sql.length;
  let j = at + 1;
  if (heredocs) {
    while (j < n && isHeredocTagPart(sql.charCodeAt(j))) j++;
  } else if (sql.charCodeAt(j) !== 36) {
    if (!isDollarTagStart(sql.charCodeAt(j))) return -1;
    while (j < n && isDollarTagPart(sql.charCodeAt(j))) j++;
  }
  return j < n && sql.charCodeAt(j) === 36 ? j + 1 : -1;
}

/** End of the `$1` parameter, `$tag$ ... $tag$` string or lone `$` at `at`; -1 for an unterminated dollar quote. */
export function endOfDollarToken(sql: string, at: number): number {
  const c1 = sql.charCodeAt(at + 1);
  if (c1 >= 48 && c1 <= 57) {
    const n = sql.length;
    let j = at + 2;
    while (j < n && sql.charCodeAt(j) >= 48 && sql.charCodeAt(j) <= 57) j++;
    return j;
  }
  const tagEnd = quoteTagEnd(sql, at, false);
  if (tagEnd < 0) return at + 1; // a lone `$`, or `$name` without a closing `$`: not a quote
  const close = sql.indexOf(sql.slice(at, tagEnd), tagEnd);
  return close < 0 ? -1 : close + tagEnd - at;
}

/**
 * End of the ClickHouse token opened by `$` at token start `at`: a heredoc `$tag$ ... $tag$`
 * (the close is the first later copy of the opener, case-sensitive), or else the name that
 * starts with the `$` (`$x`, `$a$`, a lone `$`), which is what ClickHouse's lexer reads there.
 * Never -1: nothing is left open.
 */
export function endOfHeredocToken(sql: string, wordPart: Uint8Array, at: number): number {
  const tagEnd = quoteTagEnd(sql, at, true);
  if (tagEnd >= 0) {
    const close = sql.indexOf(sql.slice(at, tagEnd), tagEnd);
    if (close >= 0) return close + tagEnd - at;
  }
  const n = sql.length;
  let j = at + 1;
  while (j < n && isWordPart(wordPart, sql.charCodeAt(j))) j++;
  return j;
}

function isHeredocTagPart(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 95;
}

/**
 * Whether the word that ends at `j` is one part of a qualified name (`t.end`, `new . case`,
 * `"t".begin`, `end.x`): right after a `.` (the statement's previous token ends at `prevEnd`;
 * -1 when the word is its first token) or right before one, comments and whitespace allowed
 * around the dot. No grammar the block tracker follows puts a keyword there, so such a word is
 * a name however it is spelled. A `.` that ends a number (`THEN 1. END`) or starts one
 * (`END .5`) qualifies nothing. Called for keyword-like words only, so it stays off the hot path.
 */
function inQualifiedName(sql: string, p: SplitPreset, wordPart: Uint8Array, j: number, prevEnd: number): boolean {
  if (prevEnd > 0 && sql.charCodeAt(prevEnd - 1) === 46) {
    // `1.` is a number: digits right before the dot that do not end a longer word (`t1.`).
    let k = prevEnd - 2;
    while (k >= 0 && isDigit(sql.charCodeAt(k))) k--;
    if (k === prevEnd - 2 || (k >= 0 && isWordPart(wordPart, sql.charCodeAt(k)))) return true;
  }
  // Nearly always the word is followed by whitespace and another word, or by punctuation.
  let k = j;
  let c = sql.charCodeAt(k);
  while (c === 32 || c === 10 || c === 9 || c === 13) c = sql.charCodeAt(++k);
  if (c === 47 || c === 45 || c === 35) {
    k = nextTokenStart(sql, p, k);
    c = sql.charCodeAt(k);
  }
  return c === 46 && !isDigit(sql.charCodeAt(k + 1));
}

/** Whether the statement's previous token, ending at `prevEnd`, is the word AS. */
function afterAs(sql: string, wordPart: Uint8Array, prevEnd: number): boolean {
  return prevEnd >= 2 && wordEquals(sql, prevEnd - 2, 'as') && (prevEnd === 2 || !isWordPart(wordPart, sql.charCodeAt(prevEnd - 3)));
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** Where the next token starts at or after `from`: past whitespace and comments (not MySQL's executable ones). */
function nextTokenStart(sql: string, p: SplitPreset, from: number): number {
  const n = sql.length;
  let k = from;
  while (k < n) {
    const c = sql.charCodeAt(k);
    const c1 = sql.charCodeAt(k + 1);
    if (c === 32 || (c >= 9 && c <= 13)) k++;
    else if (c === 45 && c1 === 45 && (p.dashComment === 'always' || k + 2 >= n || sql.charCodeAt(k + 2) <= 32)) k = endOfLine(sql, k + 2, true);
    else if (c === 35 && (p.hashComment === 'always' || (p.hashComment === 'space-or-bang' && (c1 === 32 || c1 === 33)))) k = endOfLine(sql, k + 1, true);
    else if (c === 47 && c1 === 42 && !(p.executableComments && isExecutableComment(sql, k))) {
      const e = endOfBlockComment(sql, k, p.nestedBlockComments);
      if (e < 0) return n;
      k = e;
    } else break;
  }
  return k;
}

/**
 * `DELIMITER xx` (the mysql client's command) at `wordAt`: the rest of the line is the new
 * terminator. Returns it; the line is not a statement.
 */
function readDelimiter(ctx: ErrorContext, wordAt: number, eol: number): string {
  const arg = ctx.sql.slice(wordAt + 9, eol).trim();
  if (arg === '') throw syntaxError(ctx, 'DELIMITER needs a terminator string, for example DELIMITER $$', wordAt);
  if (/\s/.test(arg)) throw syntaxError(ctx, `DELIMITER takes one terminator string, got "${arg}": remove the text after the terminator`, wordAt);
  if (arg.includes('\\')) throw syntaxError(ctx, 'DELIMITER cannot contain a backslash: choose another terminator, for example $$', wordAt);
  return arg;
}

function unterminatedQuote(ctx: ErrorContext, preset: SplitPreset, at: number, backslash: boolean): SqlSyntaxError {
  const q = ctx.sql.charCodeAt(at);
  const hint = backslash ? ' (a backslash escapes the character after it)' : '';
  return syntaxError(ctx, `unterminated ${quoteName(q, preset)}: add the closing ${String.fromCharCode(q)}${hint}`, at);
}

/**
 * Splits `sql` into statements by the rules of `preset`. One forward pass that reads code unit
 * by code unit only where it must (between statements, the first token of each, block bodies
 * that need every token); elsewhere {@link jumpPlainCode} jumps from one special character to
 * the next with a native search, and quoted runs and comments are skipped with `indexOf`.
 * Throws {@link SqlSyntaxError} for anything left open at the end of the input.
 *
 * Written as one loop over locals with no closures: V8 then keeps the scan state in registers.
 */
export function scanStatements(sql: string, preset: SplitPreset, file: string | undefined, startLine: number): SqlStatement[] {
  const n = sql.length;
  const out: SqlStatement[] = [];
  const tables = tablesFor(preset);
  const cls = tables.start;
  const wordPart = tables.wordPart;
  const kwTable = keywordTable(preset.blocks);
  const kwMask = kwTable.mask;
  const blocks = new BlockTracker(preset.blocks);
  const hasCr = sql.indexOf('\r') >= 0;
  const pos = new PositionTracker(sql, startLine, hasCr);
  const ctx: ErrorContext = { sql, file, startLine };
  const eStrings = preset.eStrings;
  const nested = preset.nestedBlockComments;
  const dashAlways = preset.dashComment === 'always';
  const hashAlways = preset.hashComment === 'always';
  const plain = tables.plain;
  const directives = preset.delimiterDirective;
  const copyData = preset.copyData;

  let delim = ';';
  let delimFirst = SEMICOLON;
  let delimLen = 1;
  // `special` knows `;` only: under another terminator every code unit is read.
  let canSkip = true;
  // Blocks only matter while `;` ends statements: under DELIMITER $$ the body needs no help.
  let trackBlocks = preset.blocks !== 'none';
  let stmtStart = -1;
  let lastEnd = -1;

  // A byte order mark is not part of the first statement.
  let i = n > 0 && sql.charCodeAt(0) === 0xfeff ? 1 : 0;
  while (i < n) {
    let c = sql.charCodeAt(i);

    // While only terminators, quotes and comments (and the block tracker's wake words) can
    // change anything, jump to the next such code unit with a native search: words, whitespace
    // and punctuation in between need not be read one by one. The jump starts at a token
    // boundary, so the tokens it passes are exactly the ones the code below would read. It
    // may start a statement, but not where the first word could be a DELIMITER line.
    const pk = c < 128 ? plain[c] : P_TOKEN;
    if (pk !== P_SPECIAL && canSkip && (!trackBlocks || blocks.skippable) && (stmtStart >= 0 || (pk === P_TOKEN && !directives))) {
      if (stmtStart < 0) stmtStart = i;
      const at = jumpPlainCode(sql, tables, trackBlocks && blocks.depth > 0 ? tables.specialInBody : tables.special, i);
      // Kept out of line on purpose: every extra variable live in this loop costs TurboFan
      // registers, which measurably slows every iteration.
      const e = endOfPlainTokens(sql, cls, i, at);
      if (e > i) lastEnd = e;
      if (at >= n) break;
      i = at;
      c = sql.charCodeAt(i);
    }

    if (c === delimFirst && (delimLen === 1 || sql.startsWith(delim, i))) {
      if (trackBlocks && blocks.semicolon(i)) {
        lastEnd = ++i;
        continue;
      }
      // psql's data lines after `COPY ... FROM STDIN;` are no statement (a row may hold a lone quote).
      const copy = copyData && stmtStart >= 0 && (sql.charCodeAt(stmtStart) | 0x20) === 0x63 && COPY_FROM_STDIN.test(sql.slice(stmtStart, lastEnd));
      if (stmtStart >= 0) {
        pushStatement(out, sql, pos, stmtStart, lastEnd);
        stmtStart = -1;
      }
      blocks.reset();
      i += delimLen;
      if (copy) i = endOfCopyData(sql, i);
      continue;
    }

    const k = c < 128 ? cls[c] : C_WORD;
    switch (k) {
      case C_SPACE: {
        // Runs of whitespace are common (indentation): eat them without the dispatch above.
        let j = i + 1;
        for (; j < n; j++) {
          const d = sql.charCodeAt(j);
          if (d > 32 || cls[d] !== C_SPACE) break;
        }
        i = j;
        continue;
      }

      case C_WORD: {
        let j = i + 1;
        while (j < n) {
          const d = sql.charCodeAt(j);
          // A custom delimiter may start with a word character (`END$$`): it still ends the word.
          if (d < 128 && (wordPart[d] === 0 || (d === delimFirst && sql.startsWith(delim, j)))) break;
          j++;
        }
        if (stmtStart < 0) {
          if (preset.delimiterDirective && j - i === 9 && wordEquals(sql, i, 'delimiter')) {
            const eol = endOfLine(sql, j, hasCr);
            delim = readDelimiter(ctx, i, eol);
            delimFirst = delim.charCodeAt(0);
            delimLen = delim.length;
            trackBlocks = preset.blocks !== 'none' && delim === ';';
            canSkip = delim === ';';
            blocks.reset();
            i = eol;
            continue;
          }
          stmtStart = i;
        }
        if (trackBlocks) {
          const len = j - i;
          // `>>>` takes the shift count mod 32, i.e. the letter's low 5 bits, as the mask was built.
          let kw = len <= MAX_KEYWORD_LENGTH && ((kwMask[len] >>> c) & 1) !== 0 ? keywordCode(kwTable, sql, i, len) : K_OTHER;
          // `t.end`, `new.case`: a part of a qualified name is a name. `lastEnd` is the end of the
          // statement's previous token when there is one (the word is not its first).
          if (kw !== K_OTHER && inQualifiedName(sql, preset, wordPart, j, stmtStart < i ? lastEnd : -1)) kw = K_OTHER;
          // `SELECT 1 AS end`: an alias (no grammar here puts BEGIN or END right after AS).
          else if ((kw === K_END || kw === K_BEGIN) && stmtStart < i && afterAs(sql, wordPart, lastEnd)) kw = K_OTHER;
          if (kw !== K_OTHER || !blocks.idle) blocks.word(kw, i, sql.charCodeAt(j) === 40);
        }
        // PostgreSQL's E'...': the one-letter word E right before a quote prefixes a string
        // with backslash escapes.
        if (eStrings && j === i + 1 && (c | 0x20) === 101 && sql.charCodeAt(j) === QUOTE) {
          const e = endOfBackslashed(sql, j, QUOTE);
          if (e < 0) throw syntaxError(ctx, "unterminated E'' string literal: add the closing ' (inside E'' strings \\' does not close the string)", i);
          lastEnd = i = e;
          continue;
        }
        lastEnd = i = j;
        continue;
      }

      case C_SQUOTE:
      case C_DQUOTE:
      case C_BACKTICK: {
        const backslash = k === C_SQUOTE ? preset.backslashInSingle : k === C_DQUOTE ? preset.backslashInDouble : preset.backslashInBacktick;
        const e = backslash ? endOfBackslashed(sql, i, c) : endOfDoubled(sql, i, c);
        if (e < 0) throw unterminatedQuote(ctx, preset, i, backslash);
        if (stmtStart < 0) stmtStart = i;
        if (trackBlocks && !blocks.idle) blocks.punct(k === C_SQUOTE || (k === C_DQUOTE && preset.doubleQuote === 'string') ? P_STRING : P_OTHER, i);
        lastEnd = i = e;
        continue;
      }

      case C_BRACKET: {
        const e = endOfBracket(sql, i);
        if (e < 0) throw syntaxError(ctx, 'unterminated quoted identifier: add the closing ]', i);
        if (stmtStart < 0) stmtStart = i;
        if (trackBlocks && !blocks.idle) blocks.punct(P_OTHER, i);
        lastEnd = i = e;
        continue;
      }

      case C_DOLLAR: {
        const e = preset.heredocs ? endOfHeredocToken(sql, wordPart, i) : endOfDollarToken(sql, i);
        if (e < 0) throw syntaxError(ctx, `unterminated dollar-quoted string: add the closing ${sql.slice(i, sql.indexOf('$', i + 1) + 1)}`, i);
        if (stmtStart < 0) stmtStart = i;
        if (trackBlocks && !blocks.idle) blocks.punct(P_OTHER, i);
        lastEnd = i = e;
        continue;
      }

      case C_DASH:
        if (sql.charCodeAt(i + 1) === 45 && (dashAlways || i + 2 >= n || sql.charCodeAt(i + 2) <= 32)) {
          i = endOfLine(sql, i + 2, hasCr);
          continue;
        }
        break;

      case C_HASH:
        if (hashAlways || (i + 1 < n && (sql.charCodeAt(i + 1) === 32 || sql.charCodeAt(i + 1) === 33))) {
          i = endOfLine(sql, i + 1, hasCr);
          continue;
        }
        break;

      case C_SLASH:
        if (sql.charCodeAt(i + 1) === 42) {
          const e = endOfBlockComment(sql, i, nested);
          const executable = preset.executableComments && isExecutableComment(sql, i);
          if (e < 0) {
            const what = executable ? 'executable comment /*! ... */' : 'block comment';
            throw syntaxError(ctx, `unterminated ${what}: add the closing */${nested ? ' (comments nest here: every /* inside needs its own */)' : ''}`, i);
          }
          if (executable) {
            // MySQL runs the text of /*! ... */: it is part of the statement, and may be all of it.
            if (stmtStart < 0) stmtStart = i;
            if (trackBlocks && !blocks.idle) blocks.punct(P_OTHER, i);
            lastEnd = e;
          }
          i = e;
          continue;
        }
        break;
    }

    // Any other code unit is a one-character token.
    if (stmtStart < 0) stmtStart = i;
    if (trackBlocks && !blocks.idle) blocks.punct(k === C_RPAREN ? P_RPAREN : k === C_COLON ? P_COLON : P_OTHER, i);
    lastEnd = ++i;
  }

  // End of input: a statement may lack its terminator, a block may not lack its END.
  if (trackBlocks) {
    blocks.resolve();
    if (blocks.depth > 0) throw syntaxError(ctx, BLOCK_HINT[preset.blocks], blocks.outerStart);
  }
  if (stmtStart >= 0) pushStatement(out, sql, pos, stmtStart, lastEnd);
  return out;
}

function pushStatement(out: SqlStatement[], sql: string, pos: PositionTracker, start: number, end: number): void {
  pos.moveTo(start);
  const line = pos.line;
  const column = pos.column;
  const offset = pos.byteOffset;
  out.push({ text: sql.slice(start, end), line, column, offset, endOffset: pos.byteOffsetOf(end) });
}
