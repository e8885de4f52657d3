/**
 * The `mtool` package root: what a project's `mtool.config.ts` imports, and the library API.
 * Kept light on purpose: a config file imports this module, and loading a config must stay
 * fast and must not pull in any database driver.
 * @example
 * import { databaseConfig, env } from 'mtool';
 * export const app = databaseConfig({ databaseName: 'app', default: true, databaseType: 'postgresql', databaseUrl: env('DATABASE_URL') });
 */
export { databaseConfig, MtoolDatabase, env } from './config-api.js';
export type { DatabaseConfigInput, DatabaseHandle, DatabaseType } from './config-api.js';
export { splitStatements } from './parser/split-statements.js';
export type { SqlStatement, SplitOptions, SplitDialect } from './parser/split-statements.js';
export {
  MtoolError,
  MtoolConfigError,
  LockError,
  ChecksumMismatchError,
  SqlSyntaxError,
  ERROR_CODES,
  EXIT,
  isMtoolError,
} from './errors.js';
export type { ErrorCode, ExitCode } from './errors.js';
