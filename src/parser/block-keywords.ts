import type { BlockMode } from './presets.js';

/*
 * Keywords the block tracker reacts to, as small integers so the scanner never allocates a
 * string per word. Codes above 0 are words; negative codes are punctuation the tracker needs.
 */
export const K_OTHER = 0;
export const K_BEGIN = 1;
export const K_END = 2;
export const K_CASE = 3;
export const K_IF = 4;
export const K_LOOP = 5;
export const K_WHILE = 6;
export const K_REPEAT = 7;
export const K_ATOMIC = 8;
export const K_NOT = 9;
export const K_THEN = 10;
export const K_ELSE = 11;
export const K_DO = 12;
export const K_CREATE = 13;
export const K_ALTER = 14;
/** PROCEDURE, FUNCTION, TRIGGER or EVENT: the statement is a stored program. */
export const K_ROUTINE = 15;
export const K_TEMP = 16;
/** Words that end a routine body's header: `FOR EACH ROW`, characteristics (`DETERMINISTIC`, `READS SQL DATA` ...). */
export const K_HEADER_END = 17;
/** A CREATE of something that is not a stored program (TABLE, VIEW, INDEX ...). */
export const K_NOT_ROUTINE = 18;
/** SQLite's only stored program. */
export const K_TRIGGER = 19;

export const P_OTHER = -1;
export const P_SEMICOLON = -2;
export const P_COLON = -3;
export const P_RPAREN = -4;
export const P_STRING = -5;

interface Entry {
  readonly word: string;
  readonly first: number;
  readonly code: number;
}
/** Entries bucketed by word length. */
type Buckets = readonly (readonly Entry[] | undefined)[];

/**
 * Keywords by length, plus a filter: bit `(first letter & 31)` of `mask[length]` is set when
 * some keyword of that length starts with that letter. The scanner tests the mask inline, so
 * nearly every word is rejected without a call.
 */
export interface KeywordTable {
  readonly buckets: Buckets;
  readonly mask: Uint32Array;
}

/** Longest word the mask covers; longer words are never keywords here ("deterministic" is 13). */
export const MAX_KEYWORD_LENGTH = 15;

function table(words: Record<string, number>): KeywordTable {
  const buckets: Entry[][] = [];
  const mask = new Uint32Array(MAX_KEYWORD_LENGTH + 1);
  for (const [word, code] of Object.entries(words)) {
    (buckets[word.length] ??= []).push({ word, first: word.charCodeAt(0), code });
    mask[word.length] |= 1 << (word.charCodeAt(0) & 31);
  }
  return { buckets, mask };
}

const MYSQL = table({
  begin: K_BEGIN, end: K_END, case: K_CASE, if: K_IF, loop: K_LOOP, while: K_WHILE, repeat: K_REPEAT,
  atomic: K_ATOMIC, not: K_NOT, then: K_THEN, else: K_ELSE, do: K_DO, create: K_CREATE, alter: K_ALTER,
  procedure: K_ROUTINE, function: K_ROUTINE, trigger: K_ROUTINE, event: K_ROUTINE,
  row: K_HEADER_END, deterministic: K_HEADER_END, sql: K_HEADER_END, data: K_HEADER_END,
  definer: K_HEADER_END, invoker: K_HEADER_END,
  table: K_NOT_ROUTINE, view: K_NOT_ROUTINE, index: K_NOT_ROUTINE, database: K_NOT_ROUTINE,
  schema: K_NOT_ROUTINE, user: K_NOT_ROUTINE, role: K_NOT_ROUTINE, server: K_NOT_ROUTINE,
  sequence: K_NOT_ROUTINE, tablespace: K_NOT_ROUTINE, unique: K_NOT_ROUTINE, fulltext: K_NOT_ROUTINE,
  spatial: K_NOT_ROUTINE, temporary: K_NOT_ROUTINE,
});

const SQLITE = table({
  begin: K_BEGIN, end: K_END, case: K_CASE, create: K_CREATE, temp: K_TEMP, temporary: K_TEMP, trigger: K_TRIGGER,
});

const POSTGRESQL = table({ begin: K_BEGIN, end: K_END, case: K_CASE, atomic: K_ATOMIC });

const NONE = table({});

/** The keyword table a block mode needs. */
export function keywordTable(mode: BlockMode): KeywordTable {
  switch (mode) {
    case 'mysql':
      return MYSQL;
    case 'sqlite-trigger':
      return SQLITE;
    case 'pg-atomic':
      return POSTGRESQL;
    case 'none':
      return NONE;
  }
}

/**
 * Words that can change a resting block tracker's state (see `BlockTracker.skippable`), outside
 * a body (`inBody` false) or inside one: the scanner searches plain code for these natively
 * instead of reading every word. Lower-case. PostgreSQL needs `begin` anywhere in a statement
 * (`BEGIN ATOMIC` opens a body), and `case` and `end` inside a body; MySQL and SQLite decide from
 * a statement's first words whether a body can follow, and read every token of one, so once
 * they rest nothing wakes them before the next statement.
 */
export function wakeWords(mode: BlockMode, inBody: boolean): readonly string[] {
  if (mode !== 'pg-atomic') return [];
  return inBody ? ['begin', 'case', 'end'] : ['begin'];
}

/**
 * The code of the word `sql[start, start+len)` (ASCII case-insensitive), or K_OTHER.
 * `| 0x20` lower-cases ASCII letters; word characters that are not letters can never map onto
 * a letter that way, so no false match is possible.
 */
export function keywordCode(tbl: KeywordTable, sql: string, start: number, len: number): number {
  const bucket = len < tbl.buckets.length ? tbl.buckets[len] : undefined;
  if (bucket === undefined) return K_OTHER;
  const c0 = sql.charCodeAt(start) | 0x20;
  for (let b = 0; b < bucket.length; b++) {
    const e = bucket[b];
    if (e.first !== c0) continue;
    let k = 1;
    while (k < len && (sql.charCodeAt(start + k) | 0x20) === e.word.charCodeAt(k)) k++;
    if (k === len) return e.code;
  }
  return K_OTHER;
}

/** Whether the word at `start` is `lower` (ASCII case-insensitive; `lower` is lower-case letters). */
export function wordEquals(sql: string, start: number, lower: string): boolean {
  for (let k = 0; k < lower.length; k++) {
    if ((sql.charCodeAt(start + k) | 0x20) !== lower.charCodeAt(k)) return false;
  }
  return true;
}
