import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { tempProject } from '../support/temp-project.js';

/**
 * The package as a library: what `import ... from 'mtool'` (and its other `exports`) gives a
 * program, from the built files (dist/), resolved through node_modules as an installed package is.
 */

const run = promisify(execFile);
const PACKAGE_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const pkg = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { exports: Record<string, string | { types: string; default: string }> };
const entries = Object.entries(pkg.exports).filter((e): e is [string, { types: string; default: string }] => typeof e[1] === 'object');
const specifier = (subpath: string) => (subpath === '.' ? 'mtool' : `mtool/${subpath.slice(2)}`);

/** A folder with `node_modules/mtool` linking to this package, and `files`. */
const consumer = (files: Record<string, string>) => tempProject({ 'node_modules/mtool': { symlink: PACKAGE_ROOT }, ...files }, 'mtool-lib-');

describe('the built package as a library', () => {
  it('has a types file and a module for every export', () => {
    expect(entries.map(([subpath]) => subpath)).toEqual(['.', './schema', './seed', './plugin']);
    for (const [, target] of entries) {
      expect(existsSync(join(PACKAGE_ROOT, target.types)), target.types).toBe(true);
      expect(existsSync(join(PACKAGE_ROOT, target.default)), target.default).toBe(true);
    }
  });

  it('importing every export adds no process listener, leaves nothing running and loads no driver', async () => {
    const imports = entries.map(([subpath]) => `await import(${JSON.stringify(specifier(subpath))});`).join('\n');
    const dir = await consumer({
      'main.mjs': `
const events = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT', 'exit', 'beforeExit', 'uncaughtException', 'unhandledRejection', 'warning'];
const count = () => Object.fromEntries(events.map((e) => [e, process.listenerCount(e)]));
const before = count();
${imports}
const { createRequire } = await import('node:module');
const drivers = ['pg', 'mysql2', 'better-sqlite3', '@clickhouse/client', 'piscina', 'prom-client', 'pino'];
const loaded = Object.keys(createRequire(import.meta.url).cache).filter((p) => drivers.some((d) => p.includes('/node_modules/' + d + '/')));
console.log(JSON.stringify({ before, after: count(), resources: process.getActiveResourcesInfo().filter((r) => r !== 'CloseReq'), loaded }));
`,
    });
    const { stdout } = await run(process.execPath, ['main.mjs'], { cwd: dir, timeout: 10_000 });
    const result = JSON.parse(stdout) as { before: unknown; after: unknown; resources: string[]; loaded: string[] };
    expect(result.after).toEqual(result.before);
    expect(result.resources).toEqual([]);
    expect(result.loaded).toEqual([]);
  });

  it('throws its own error classes with stable codes and exit codes, and never ends the process', async () => {
    const dir = await consumer({
      'main.mjs': `
import { env, splitStatements, MtoolError, MtoolConfigError, SqlSyntaxError, LockError, ChecksumMismatchError, ERROR_CODES, isMtoolError } from 'mtool';
const caught = (fn) => { try { fn(); } catch (e) { return e; } throw new Error('expected a throw'); };
delete process.env.MTOOL_LIB_QA_UNSET;
const config = caught(() => env('MTOOL_LIB_QA_UNSET'));
const syntax = caught(() => splitStatements("SELECT 'open", { dialect: 'postgresql' }));
const dialect = caught(() => splitStatements('SELECT 1', { dialect: 'oracle' }));
const describe = (e) => ({ name: e.name, code: e.code, exitCode: e.exitCode, mtool: e instanceof MtoolError && isMtoolError(e), message: e.message });
console.log(JSON.stringify({
  config: { ...describe(config), config: config instanceof MtoolConfigError },
  syntax: { ...describe(syntax), syntax: syntax instanceof SqlSyntaxError },
  dialect: describe(dialect),
  lock: describe(new LockError("database 'app': held")),
  checksum: describe(new ChecksumMismatchError('changed')),
  codes: Object.keys(ERROR_CODES).length,
}));
`,
    });
    const { stdout } = await run(process.execPath, ['main.mjs'], { cwd: dir, timeout: 10_000 });
    const r = JSON.parse(stdout) as Record<string, { name: string; code: string; exitCode: number; mtool: boolean; message: string; config?: boolean; syntax?: boolean }>;
    expect(r.config).toMatchObject({ name: 'MtoolConfigError', code: 'MTOOL_CONFIG', exitCode: 2, mtool: true, config: true, message: expect.stringContaining('MTOOL_LIB_QA_UNSET') });
    expect(r.syntax).toMatchObject({ name: 'SqlSyntaxError', code: 'MTOOL_SQL_SYNTAX', exitCode: 2, mtool: true, syntax: true, message: expect.stringMatching(/^1:8: unterminated string/) });
    expect(r.dialect).toMatchObject({ code: 'MTOOL_INTERNAL', exitCode: 1, mtool: true, message: expect.stringContaining('oracle') });
    expect(r.lock).toMatchObject({ name: 'LockError', code: 'MTOOL_LOCKED', exitCode: 1, mtool: true });
    expect(r.checksum).toMatchObject({ name: 'ChecksumMismatchError', code: 'MTOOL_CHECKSUM_MISMATCH', exitCode: 1, mtool: true });
  });

  it('type-checks a strict TypeScript program against the published .d.ts files (skipLibCheck off)', async () => {
    const dir = await consumer({
      'tsconfig.json': JSON.stringify({ compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', strict: true, noEmit: true, skipLibCheck: false, types: [] }, files: ['main.mts'] }),
      'main.mts': `
import { databaseConfig, env, MtoolDatabase, splitStatements, isMtoolError, EXIT, type DatabaseHandle, type SqlStatement, type ErrorCode, type ExitCode } from 'mtool';
import { table, col, index } from 'mtool/schema';
import { definePlugin } from 'mtool/plugin';
import * as seeds from 'mtool/seed';
export const app: DatabaseHandle = databaseConfig({ databaseName: 'app', default: true, databaseType: 'postgresql', databaseUrl: env('DATABASE_URL', 'postgresql://localhost/app') });
export class Other extends MtoolDatabase { static databaseName = 'other'; static databaseType = 'sqlite' as const; static databaseUrl = 'sqlite:///other.db'; }
export const statements: SqlStatement[] = splitStatements('SELECT 1;', { dialect: 'postgresql' });
export const users = table('users', { id: col.bigint().primaryKey(), email: col.varchar(255).notNull() }, { indexes: [index('email').unique()] });
export const plugin = definePlugin({ name: 'p', version: '1.0.0', mtool: '>=0.1.0', hooks: {} });
export function codeOf(e: unknown): [ErrorCode, ExitCode] | undefined { return isMtoolError(e) ? [e.code, e.exitCode] : undefined; }
export const usage: ExitCode = EXIT.usage;
export const seedExports = Object.keys(seeds);
`,
    });
    const tsc = join(PACKAGE_ROOT, 'node_modules/typescript/bin/tsc');
    const result = await run(process.execPath, [tsc, '-p', join(dir, 'tsconfig.json')], { cwd: dir, timeout: 60_000 }).then(
      () => '',
      (e: { stdout?: string }) => e.stdout ?? String(e),
    );
    expect(result).toBe('');
  }, 60_000);
});
