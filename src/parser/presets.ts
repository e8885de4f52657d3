import type { SplitDialect } from '../dialects/types.js';

/**
 * How `BEGIN ... END` style bodies protect the semicolons inside them:
 * - `pg-atomic`: SQL-standard function bodies `BEGIN ATOMIC ... END` (PostgreSQL 14+).
 * - `mysql`: stored programs (CREATE PROCEDURE/FUNCTION/TRIGGER/EVENT, MariaDB `BEGIN NOT ATOMIC`)
 *   with nested BEGIN/CASE/IF/LOOP/WHILE/REPEAT ... END [kind].
 * - `sqlite-trigger`: `CREATE [TEMP] TRIGGER ... BEGIN ... END` with CASE ... END inside.
 */
export type BlockMode = 'none' | 'pg-atomic' | 'mysql' | 'sqlite-trigger';

/**
 * The lexical rules of one dialect, as far as splitting needs them. One scanner reads every
 * dialect; a preset only switches its rules on and off, so a fix to the scanner fixes all of them.
 */
export interface SplitPreset {
  readonly dialect: SplitDialect;
  /** A backslash escapes the next character inside '...' (MySQL, ClickHouse). */
  readonly backslashInSingle: boolean;
  /** `E'...'` / `e'...'` strings with backslash escapes (PostgreSQL). */
  readonly eStrings: boolean;
  /** `"..."` is a quoted identifier (standard) or a string literal (MySQL without ANSI_QUOTES). */
  readonly doubleQuote: 'identifier' | 'string';
  /** A backslash escapes the next character inside "..." (MySQL strings, ClickHouse identifiers). */
  readonly backslashInDouble: boolean;
  /** `` `...` `` quoted identifiers. */
  readonly backticks: boolean;
  /** A backslash escapes the next character inside `` `...` `` (ClickHouse). */
  readonly backslashInBacktick: boolean;
  /** `[...]` quoted identifiers (SQLite). */
  readonly brackets: boolean;
  /** `$$ ... $$` and `$tag$ ... $tag$` strings (PostgreSQL). */
  readonly dollarQuotes: boolean;
  /**
   * ClickHouse heredocs `$$ ... $$` and `$tag$ ... $tag$`: a `$` at a token start opens one when
   * an ASCII tag (letters, digits, `_`, possibly empty) and a `$` follow and the same `$tag$`
   * comes again later; otherwise the `$` starts a name (`$x`, `$a$`). Case-sensitive tags, no
   * escapes inside, and never an error: an unclosed `$tag$` is a name, as ClickHouse reads it.
   */
  readonly heredocs: boolean;
  /** `$` continues an unquoted identifier (`a$b`), so `x$$` never opens a dollar quote. */
  readonly dollarInWords: boolean;
  /** `--` opens a comment always, or only when followed by whitespace/control/end (MySQL: `1--1` is arithmetic). */
  readonly dashComment: 'always' | 'space';
  /** `#` comments: never, always (MySQL), or only `# ` and `#!` (ClickHouse). */
  readonly hashComment: 'none' | 'always' | 'space-or-bang';
  /** Block comments nest (PostgreSQL, ClickHouse): `/* /* *\/ *\/`. */
  readonly nestedBlockComments: boolean;
  /** `/*! ... *\/` and `/*M! ... *\/` are statement content, not comments (MySQL, MariaDB). */
  readonly executableComments: boolean;
  /** `DELIMITER xx` lines change the terminator (the mysql client convention). */
  readonly delimiterDirective: boolean;
  /** The data lines after `COPY ... FROM STDIN;` up to a line `\.` are psql's, not SQL (PostgreSQL). */
  readonly copyData: boolean;
  readonly blocks: BlockMode;
}

const postgresql: SplitPreset = {
  dialect: 'postgresql',
  backslashInSingle: false,
  eStrings: true,
  doubleQuote: 'identifier',
  backslashInDouble: false,
  backticks: false,
  backslashInBacktick: false,
  brackets: false,
  dollarQuotes: true,
  heredocs: false,
  dollarInWords: true,
  dashComment: 'always',
  hashComment: 'none',
  nestedBlockComments: true,
  executableComments: false,
  delimiterDirective: false,
  copyData: true,
  blocks: 'pg-atomic',
};

/** MySQL and MariaDB with default sql_mode (backslash escapes on, ANSI_QUOTES off). */
const mysql: SplitPreset = {
  dialect: 'mysql',
  backslashInSingle: true,
  eStrings: false,
  doubleQuote: 'string',
  backslashInDouble: true,
  backticks: true,
  backslashInBacktick: false,
  brackets: false,
  dollarQuotes: false,
  heredocs: false,
  dollarInWords: true,
  dashComment: 'space',
  hashComment: 'always',
  nestedBlockComments: false,
  executableComments: true,
  delimiterDirective: true,
  copyData: false,
  blocks: 'mysql',
};

const sqlite: SplitPreset = {
  dialect: 'sqlite',
  backslashInSingle: false,
  eStrings: false,
  doubleQuote: 'identifier',
  backslashInDouble: false,
  backticks: true,
  backslashInBacktick: false,
  brackets: true,
  dollarQuotes: false,
  heredocs: false,
  dollarInWords: true,
  dashComment: 'always',
  hashComment: 'none',
  nestedBlockComments: false,
  executableComments: false,
  delimiterDirective: false,
  copyData: false,
  blocks: 'sqlite-trigger',
};

/** ClickHouse's lexer: backslash escapes in strings and quoted identifiers, heredocs, nested comments, `# ` comments. */
const clickhouse: SplitPreset = {
  dialect: 'clickhouse',
  backslashInSingle: true,
  eStrings: false,
  doubleQuote: 'identifier',
  backslashInDouble: true,
  backticks: true,
  backslashInBacktick: true,
  brackets: false,
  dollarQuotes: false,
  heredocs: true,
  dollarInWords: true,
  dashComment: 'always',
  hashComment: 'space-or-bang',
  nestedBlockComments: true,
  executableComments: false,
  delimiterDirective: false,
  copyData: false,
  blocks: 'none',
};

/** The preset of every split dialect. MariaDB uses `mysql`. */
export const SPLIT_PRESETS: Readonly<Record<SplitDialect, SplitPreset>> = { postgresql, mysql, sqlite, clickhouse };
