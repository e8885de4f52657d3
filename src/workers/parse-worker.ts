import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isMtoolError } from '../errors.js';
import { unreadable } from '../main/migrations/read-directory.js';
import { parseMigrationFile, type MigrationFile } from '../parser/migration-file.js';
import { packFiles, type ParseTask, type ParseTaskResult } from './parse-task.js';

/**
 * Worker entry of the piscina pool: read, hash and split one batch of migration files.
 * Errors come back as data so their `code` survives the thread boundary.
 */
export default function parseBatch(task: ParseTask): ParseTaskResult {
  try {
    const files: MigrationFile[] = [];
    for (let i = 0; i < task.filenames.length; i++) {
      const filename = task.filenames[i];
      const path = join(task.dir, filename);
      let content: Buffer;
      try {
        content = task.contents ? Buffer.from(task.contents[i]) : readFileSync(path);
      } catch (error) {
        throw unreadable(path, error, task.database);
      }
      files.push(parseMigrationFile({ filename, path, content, database: task.database, dialect: task.dialect }));
    }
    return { ok: true, packed: packFiles(files) };
  } catch (error) {
    if (isMtoolError(error)) return { ok: false, error: { code: error.code, message: error.message, database: error.database } };
    return { ok: false, error: { code: 'MTOOL_INTERNAL', message: error instanceof Error ? (error.stack ?? error.message) : String(error), database: task.database } };
  }
}
