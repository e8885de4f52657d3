import type { SplitDialect } from '../dialects/types.js';
import { MtoolError } from '../errors.js';
import { SPLIT_PRESETS, type SplitPreset } from './presets.js';
import { scanStatements } from './scanner.js';

export type { SplitDialect } from '../dialects/types.js';

/** One statement found by {@link splitStatements}. */
export interface SqlStatement {
  /**
   * The statement's source text from its first token to the end of its last token: comments
   * between tokens are kept; leading and trailing whitespace and comments, and the terminator,
   * are not. MySQL executable comments (`/*! ... *\/`) are tokens, so they are kept everywhere.
   */
  text: string;
  /** 1-based line of the first token (counted from `startLine`). */
  line: number;
  /** 1-based column of the first token, in UTF-16 code units. */
  column: number;
  /** UTF-8 byte offset of the first token in the input. */
  offset: number;
  /** UTF-8 byte offset just past the statement text (so `endOffset - offset` is the text's byte length). */
  endOffset: number;
}

export interface SplitOptions {
  /** Which lexical rules apply. MariaDB uses `mysql`. */
  dialect: SplitDialect;
  /** File name put in front of error messages (`file:line:col: ...`). */
  file?: string;
  /** Line number of the input's first character (sections of a file are split separately). Default 1. */
  startLine?: number;
}

/**
 * Splits SQL text into statements at its terminators (`;`, or what a MySQL `DELIMITER` line
 * sets), never inside strings, quoted identifiers, comments, dollar quotes or `BEGIN ... END`
 * bodies. Empty statements (`;;`) and a comment-only tail are dropped. Pure and synchronous:
 * safe to call from worker threads. A word next to a `.` is part of a qualified name, never a
 * keyword that opens or closes a body (`t.end`, `NEW.begin`, `end.x`).
 *
 * What each dialect understands:
 * - `postgresql`: `'...'` with `''`, `E'...'` with backslash escapes, `$$ ... $$` and
 *   `$tag$ ... $tag$` (`$1` is a parameter), `"a""b"`, `--`, nested `/* /* *\/ *\/`,
 *   `BEGIN ATOMIC ... END` function bodies; the data lines after `COPY ... FROM STDIN;` up to a
 *   line `\.` (psql's, as in a `pg_dump`) belong to no statement.
 * - `mysql` (and MariaDB; default sql_mode): backslash escapes in `'...'` and `"..."`
 *   (both are strings), `` `...` ``, `#` and `-- ` comments, `/* *\/` (not nested),
 *   `/*! ... *\/` executable comments as statement text, `DELIMITER xx` lines (not
 *   statements themselves), stored-program bodies with nested BEGIN/CASE/IF/LOOP/WHILE/REPEAT
 *   ... END without DELIMITER. `BEGIN;` and `BEGIN WORK;` stay transaction statements.
 * - `sqlite`: `"..."`, `` `...` `` and `[...]` identifiers, `CREATE TRIGGER ... BEGIN ... END`
 *   bodies (with CASE ... END inside).
 * - `clickhouse`: backslash escapes in strings and quoted identifiers, `` `...` ``, heredocs
 *   `$$ ... $$` and `$tag$ ... $tag$` (a `$` elsewhere starts a name: `$x`, `a$b`), nested
 *   block comments, `# ` and `#!` comments.
 *
 * @throws SqlSyntaxError (code `MTOOL_SQL_SYNTAX`) for an unterminated string, quoted
 *   identifier, comment, dollar quote or block, at the line and column where it STARTED.
 * @throws MtoolError (code `MTOOL_INTERNAL`) for an unknown dialect or a bad `startLine`.
 * @example
 * splitStatements("INSERT INTO t VALUES ('a;b');\nSELECT 1;", { dialect: 'postgresql' });
 * // [{ text: "INSERT INTO t VALUES ('a;b')", line: 1, column: 1, offset: 0, endOffset: 28 },
 * //  { text: 'SELECT 1', line: 2, column: 1, offset: 30, endOffset: 38 }]
 */
export function splitStatements(sql: string, options: SplitOptions): SqlStatement[] {
  const preset = splitPreset(options.dialect);
  const startLine = options.startLine ?? 1;
  if (!Number.isInteger(startLine) || startLine < 1) {
    throw new MtoolError('MTOOL_INTERNAL', `splitStatements: startLine must be an integer >= 1, got ${String(startLine)}`);
  }
  if (typeof sql !== 'string') {
    throw new MtoolError('MTOOL_INTERNAL', `splitStatements: expected SQL text as a string, got ${typeof sql}`);
  }
  return scanStatements(sql, preset, options.file, startLine);
}

/**
 * The lexical rules of `dialect`.
 * @throws MtoolError (code `MTOOL_INTERNAL`) for an unknown dialect.
 */
export function splitPreset(dialect: SplitDialect): SplitPreset {
  const preset = Object.hasOwn(SPLIT_PRESETS, dialect) ? SPLIT_PRESETS[dialect] : undefined;
  if (preset === undefined) {
    throw new MtoolError('MTOOL_INTERNAL', `splitStatements: unknown dialect "${String(dialect)}"; expected one of ${Object.keys(SPLIT_PRESETS).join(', ')}`);
  }
  return preset;
}
