import type { SqlStatement } from './split-statements.js';

/**
 * Statements that begin or end a transaction at the top level of a script, as a psql or sqlite3
 * script, a `sqlite3 .dump`, or a migration written for a tool that does not wrap files in a
 * transaction (golang-migrate, sqitch) has them: `BEGIN [TRANSACTION | WORK | DEFERRED ...]`,
 * `START TRANSACTION ...`, `COMMIT`, `END`, `ROLLBACK`, `ABORT`. Not `BEGIN NOT ATOMIC ... END`
 * (a MariaDB compound statement), not `ROLLBACK TO SAVEPOINT`, and nothing inside a body: the
 * splitter keeps bodies whole, so a statement's text starts with what runs at the top level.
 * Pure, for the parser and the engine alike.
 */

/** Opens a transaction; PostgreSQL's modes (`ISOLATION LEVEL ...`, `READ ONLY`) may follow. */
const BEGINS = /^(?:BEGIN(?:\s+(?:TRANSACTION|WORK|DEFERRED|IMMEDIATE|EXCLUSIVE|ISOLATION|READ)\b[\s\S]*)?|START\s+TRANSACTION\b[\s\S]*)$/i;
/** Ends one; with `AND CHAIN` a new one begins at once. */
const ENDS = /^(?:COMMIT|END|ABORT|ROLLBACK)(?:\s+(?:TRANSACTION|WORK))?(\s+AND\s+(NO\s+)?CHAIN)?$/i;

export type TransactionControl = 'begin' | 'end';

/**
 * The second letter (lower case) of the only keyword a statement starting with a given letter
 * can be one of these with: ABORT, BEGIN, COMMIT, END, ROLLBACK, START. Checked before any
 * pattern runs, so CREATE, ALTER, SELECT, REPLACE ... cost two character reads (the parser asks
 * for every statement of every file).
 */
const SECOND_LETTER: Readonly<Record<number, number>> = { 0x61: 0x62, 0x62: 0x65, 0x63: 0x6f, 0x65: 0x6e, 0x72: 0x6f, 0x73: 0x74 };

/** Whether a statement's text begins a transaction, ends one, or neither. */
export function transactionControl(text: string): TransactionControl | undefined {
  const second = SECOND_LETTER[text.charCodeAt(0) | 0x20];
  if (second === undefined || (text.charCodeAt(1) | 0x20) !== second) return undefined;
  if (BEGINS.test(text)) return 'begin';
  const end = ENDS.exec(text);
  if (end === null) return undefined;
  return end[1] !== undefined && end[2] === undefined ? 'begin' : 'end';
}

/** The first statement that begins or ends a transaction: the file controls its own. */
export function firstTransactionControl(statements: readonly SqlStatement[]): SqlStatement | undefined {
  for (let i = 0; i < statements.length; i++) if (transactionControl(statements[i]!.text) !== undefined) return statements[i];
  return undefined;
}

/** The statement that begins a transaction no later statement ends, if any. */
export function unendedTransaction<T extends { text: string }>(statements: readonly T[]): T | undefined {
  let open: T | undefined;
  for (let i = 0; i < statements.length; i++) {
    const control = transactionControl(statements[i]!.text);
    if (control === 'begin') open = statements[i];
    else if (control === 'end') open = undefined;
  }
  return open;
}
