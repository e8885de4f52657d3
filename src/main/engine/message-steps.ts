import type { StatementStep, StepPart } from '../../dialects/types.js';
import type { MigrationFile, SqlStatement } from '../../parser/migration-file.js';
import type { ExecutedStatement } from './migration-error.js';

/**
 * The steps of one message of several migrations ({@link import('../../dialects/types.js').Connection.sendAll}):
 * every statement of every file in order, each file's first step opening its transaction and its
 * last one carrying its tracking statement (and COMMIT) where the files run in a transaction of
 * their own. Pure: what runs, not how it is sent.
 */
export interface MessageSteps {
  steps: StatementStep[];
  /** Each step's file (index into the files) and statement. */
  owners: { file: number; statement: SqlStatement }[];
  /** The step carrying each file's record. */
  recordSteps: number[];
}

/** `recordSql(f, elapsedMsSql, nowSql, returningMs)`: file `f`'s tracking statement, as {@link StatementStep.record} asks for it. */
export function messageSteps(
  files: readonly MigrationFile[],
  inTransaction: boolean,
  recordSql: (file: number, elapsedMsSql: string, nowSql?: string, returningMs?: boolean) => string,
): MessageSteps {
  const steps: StatementStep[] = [];
  const owners: MessageSteps['owners'] = [];
  const recordSteps: number[] = [];
  for (let f = 0; f < files.length; f++) {
    const statements = files[f]!.upgrade;
    for (let i = 0; i < statements.length; i++) {
      const last = i === statements.length - 1;
      steps.push({
        sql: statements[i]!.text,
        ...(i === 0 && inTransaction ? { begin: true } : {}),
        ...(last ? { record: (msSql: string, nowSql?: string, returningMs?: boolean) => recordSql(f, msSql, nowSql, returningMs), commit: inTransaction } : {}),
      });
      owners.push({ file: f, statement: statements[i]! });
    }
    recordSteps.push(steps.length - 1);
  }
  return { steps, owners, recordSteps };
}

/**
 * After a message failed at step `failing` (part `part`) in file `file`: that file's statements
 * that ran before it (the failing one too when its record or COMMIT failed), and the statement
 * that failed, if one did.
 */
export function ranBeforeFailure(message: MessageSteps, file: number, failing: number, part: StepPart): { executed: ExecutedStatement[]; failed: SqlStatement | undefined } {
  const executed: ExecutedStatement[] = [];
  for (let step = 0; step < message.owners.length; step++) {
    const owner = message.owners[step]!;
    if (owner.file !== file) continue;
    if (step > failing || (step === failing && part !== 'record' && part !== 'commit')) return { executed, failed: owner.statement };
    executed.push({ line: owner.statement.line, text: owner.statement.text });
  }
  return { executed, failed: undefined };
}
