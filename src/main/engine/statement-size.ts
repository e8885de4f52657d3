import type { Connection, DatabaseType } from '../../dialects/types.js';
import type { MigrationFile, SqlStatement } from '../../parser/migration-file.js';
import { MigrationFailedError } from './migration-error.js';

/** Statements up to this size are never asked about: every server takes them (MySQL's smallest default max_allowed_packet is 4 MiB). */
const ALWAYS_TAKEN_BYTES = 1024 * 1024;

/** What mtool sends with a statement in the same packet at most (the execution clock, the tracking row). */
const HEADROOM_BYTES = 4 * 1024;

/**
 * Refuse, before anything of the run is executed, a statement the server would refuse for its
 * size (MySQL's and MariaDB's `max_allowed_packet`): the server closes the session on it, after
 * the statements before it in the same file ran. Asks the server for its limit only when a
 * statement is over 1 MiB. Nothing to do where the connection has no such limit.
 * @throws MigrationFailedError naming the file, the line and both sizes.
 */
export async function checkStatementSizes(
  conn: Connection,
  type: DatabaseType,
  database: string,
  files: readonly MigrationFile[],
  statementsOf: (file: MigrationFile) => readonly SqlStatement[],
): Promise<void> {
  if (conn.statementLimitBytes === undefined) return;
  let limit: number | undefined;
  for (const file of files) {
    for (const statement of statementsOf(file)) {
      // UTF-8 takes at most three bytes per UTF-16 unit: most statements are cleared by their length alone.
      if (statement.text.length * 3 <= ALWAYS_TAKEN_BYTES) continue;
      const bytes = Buffer.byteLength(statement.text, 'utf8');
      if (bytes <= ALWAYS_TAKEN_BYTES) continue;
      limit ??= await conn.statementLimitBytes();
      if (bytes + HEADROOM_BYTES <= limit) continue;
      throw new MigrationFailedError(
        `${file.filename}:${statement.line}: the statement is ${mib(bytes)}, more than this ${type} server takes in one statement (max_allowed_packet: ${mib(limit)}) — ` +
          `nothing was run: split it (several INSERTs of fewer rows each) or raise max_allowed_packet on the server.`,
        { file: file.filename, line: statement.line, rolledBack: false, executed: [], database },
      );
    }
  }
}

const mib = (bytes: number): string => `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
