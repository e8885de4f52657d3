import type { SplitDialect } from '../../src/dialects/types.js';
import { parseMigrationFile, type MigrationFile } from '../../src/parser/migration-file.js';

/** `content` parsed as `migrations/app/<filename>` of database `app`. */
export function parseFile(content: string | Buffer, dialect: SplitDialect = 'postgresql', filename = 'app__0001_init.sql'): MigrationFile {
  return parseMigrationFile({ filename, path: `migrations/app/${filename}`, content: typeof content === 'string' ? Buffer.from(content) : content, database: 'app', dialect });
}

/** The error `fn` throws; fails the test when it throws none. */
export function errorOf(fn: () => unknown): Error & { code?: string } {
  try {
    fn();
  } catch (error) {
    return error as Error & { code?: string };
  }
  throw new Error('expected an error');
}
