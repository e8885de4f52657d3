import { MtoolError } from '../../errors.js';
import { maskSqlSecrets } from '../../net/sql-secrets.js';

/** One statement that ran before a failure, for the "what already ran" part of a message. */
export interface ExecutedStatement {
  line: number;
  text: string;
}

/**
 * A migration (or rollback) statement failed. The message starts with `<file>:<line>:` and says
 * what state the database is left in: rolled back entirely, or which statements already ran and
 * that manual inspection is needed. The tracking table never records the failed migration.
 */
export class MigrationFailedError extends MtoolError {
  /** File name of the migration. */
  readonly file: string;
  /** Line of the failing statement in the file. */
  readonly line: number;
  /** True when the database rolled the whole file back. */
  readonly rolledBack: boolean;
  /** Statements that completed before the failure and may have left effects (empty when rolled back). */
  readonly executed: readonly ExecutedStatement[];

  constructor(message: string, details: { file: string; line: number; rolledBack: boolean; executed: readonly ExecutedStatement[]; database: string; cause?: unknown }) {
    super('MTOOL_MIGRATION_FAILED', message, { database: details.database, cause: details.cause });
    this.name = 'MigrationFailedError';
    this.file = details.file;
    this.line = details.line;
    this.rolledBack = details.rolledBack;
    this.executed = details.executed;
  }
}

/** First line of a statement, shortened for messages and logs, its password literals masked (`PASSWORD '***'`). */
export function statementPreview(statement: string, max = 80): string {
  const text = maskSqlSecrets(statement);
  const first = text.split('\n', 1)[0].trim();
  const more = first.length < text.trim().length;
  return first.length > max ? `${first.slice(0, max - 3)}...` : more ? `${first} ...` : first;
}
