import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isMtoolError, type MtoolError } from '../errors.js';
import { unreadable } from '../main/migrations/read-directory.js';
import { checksumOf, parseMigrationFile, type MigrationFile } from '../parser/migration-file.js';
import { classifyMigrationName } from '../parser/migration-name.js';
import { packFiles, type ParseTask, type ParseTaskError, type ParseTaskResult } from './parse-task.js';

/**
 * Worker entry of the piscina pool: read, hash and split one batch of migration files.
 * Errors come back as data so their `code` survives the thread boundary; a file that does not
 * parse comes back beside the others with its error (see {@link ParseTaskResult}).
 */
export default function parseBatch(task: ParseTask): ParseTaskResult {
  try {
    const files: MigrationFile[] = [];
    const failed: Extract<ParseTaskResult, { ok: true }>['failed'] = [];
    for (let i = 0; i < task.filenames.length; i++) {
      const filename = task.filenames[i];
      const path = join(task.dir, filename);
      let content: Buffer;
      try {
        content = task.contents ? Buffer.from(task.contents[i]) : readFileSync(path);
      } catch (error) {
        throw unreadable(path, error, task.database);
      }
      try {
        files.push(parseMigrationFile({ filename, path, content, database: task.database, dialect: task.dialect }));
      } catch (error) {
        const name = isMtoolError(error) ? classifyMigrationName(filename, task.database) : undefined;
        if (!isMtoolError(error) || !name) throw error;
        failed.push({ index: files.length, error: asData(error) });
        files.push({ filename, path, ...name, checksum: checksumOf(content), upgrade: [], rollback: undefined, irreversible: false, directives: [] });
      }
    }
    return { ok: true, packed: packFiles(files), failed };
  } catch (error) {
    if (isMtoolError(error)) return { ok: false, error: asData(error) };
    return { ok: false, error: { code: 'MTOOL_INTERNAL', message: error instanceof Error ? (error.stack ?? error.message) : String(error), database: task.database } };
  }
}

/** An MtoolError as data that crosses the thread boundary with its code. */
function asData(error: MtoolError): ParseTaskError {
  return { code: error.code, message: error.message, database: error.database };
}
