import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLI_DIR, MODULE_TRACE, loadedSources, mtoolFiles, runMtool, tempProject, tracedRun } from '../support/cli.js';
import { writeProject } from './helpers/project.js';

/** Modules that must stay unloaded on the fast paths (DESIGN.md section 5, Lazy loading). */
const HEAVY = ['pg', 'pg-query-stream', 'mysql2', 'better-sqlite3', '@clickhouse/client', 'chdb', 'piscina', 'undici', 'prom-client'];

let project: Awaited<ReturnType<typeof tempProject>>;
let traceDir: string;
beforeEach(async () => {
  project = await tempProject();
  traceDir = await mkdtemp(join(tmpdir(), 'mtool-trace-'));
});
afterEach(async () => {
  await project.dispose();
  await rm(traceDir, { recursive: true, force: true });
});

async function loadedModules(args: string[]): Promise<string[]> {
  const result = await tracedRun(args, { cwd: project.dir });
  expect(result.code, result.stderr).toBe(0);
  return result.modules;
}

/** Whether a traced run read the CLI bundle's vendor file of `name` (dist/cli/vendor-<name>-<hash>.cjs). */
const vendorFileRead = (modules: string[], name: string): boolean => modules.some((m) => new RegExp(`/vendor-${name}-[A-Z0-9]+\\.cjs$`).test(m));

/**
 * Heavy packages a traced run loaded: from node_modules, or vendored with the CLI bundle (pg,
 * mysql2): their vendor file was read, or the generated module a dialect imports them through
 * (its source map names `mtool-vendor:<specifier>`, scripts/bundle-cli.mjs) was loaded.
 */
async function heavyIn(modules: string[]): Promise<string[]> {
  const vendored = (await loadedSources(modules)).flatMap((source) => source.match(/mtool-vendor:(.+)$/)?.[1] ?? []);
  return HEAVY.filter(
    (name) =>
      modules.some((m) => m.includes(`/node_modules/${name}/`)) ||
      vendorFileRead(modules, name) ||
      vendored.some((specifier) => specifier === name || specifier.startsWith(`${name}/`)),
  );
}

describe('start-up imports', () => {
  it('the trace sees a driver when one is loaded (the check can fail)', async () => {
    const trace = join(traceDir, 'probe.txt');
    spawnSync(process.execPath, ['--import', MODULE_TRACE, '-e', "require('pg')"], { cwd: process.cwd(), env: { ...process.env, MTOOL_MODULE_TRACE: trace } });
    expect(await heavyIn((await readFile(trace, 'utf8')).split('\n'))).toContain('pg');
    // And when the CLI's vendored copy is loaded, through the module the dialect imports.
    const chunk = readdirSync(CLI_DIR).find((name) => name.endsWith('.js') && readFileSync(join(CLI_DIR, `${name}.map`), 'utf8').includes('"mtool-vendor:pg"'));
    expect(chunk, 'a chunk stands for pg').toBeDefined();
    const vendoredTrace = join(traceDir, 'vendored.txt');
    // A script chunk (src/main/startup/script-chunks.ts), run through tsc's build of the loader.
    const loader = pathToFileURL(join(CLI_DIR, '..', 'main', 'startup', 'script-chunks.js')).href;
    const script = `const { importChunk } = await import(${JSON.stringify(loader)}); await importChunk(${JSON.stringify(join(CLI_DIR, chunk!))})`;
    const run = spawnSync(process.execPath, ['--import', MODULE_TRACE, '--input-type=module', '-e', script], { env: { ...process.env, MTOOL_MODULE_TRACE: vendoredTrace } });
    expect(run.status, String(run.stderr)).toBe(0);
    const vendoredModules = (await readFile(vendoredTrace, 'utf8')).split('\n');
    expect(vendorFileRead(vendoredModules, 'pg')).toBe(true);
    expect(await heavyIn(vendoredModules)).toEqual(['pg']);
  });

  it.each([[['--help']], [['--version']], [['new', '--help']]])('mtool %j loads no driver, pool, HTTP client, metrics or pino', async (args) => {
    const modules = await loadedModules(args);
    expect(modules.some((m) => m.endsWith('/dist/cli/bin.js'))).toBe(true);
    expect(await heavyIn(modules)).toEqual([]);
    expect(modules.some((m) => m.includes('/node_modules/pino/')) || vendorFileRead(modules, 'pino')).toBe(false);
  });

  it('mtool --version loads only the binary (with the chunk loader) and the version module: no command line, no sade', async () => {
    const modules = await loadedModules(['--version']);
    expect(await loadedSources(modules)).toEqual(['src/main/bin.ts', 'src/main/startup/code-cache.ts', 'src/main/startup/fd-output.ts', 'src/main/startup/script-chunks.ts', 'src/version.ts']);
    expect(modules.some((m) => m.includes('/node_modules/'))).toBe(false);
    // The bundle's entry plus the version chunk (and at most one re-export stub esbuild adds).
    expect(mtoolFiles(modules).length).toBeLessThanOrEqual(3);
  });

  it('mtool --help reads the command line from a few bundle files, not one file per module', async () => {
    const modules = await loadedModules(['--help']);
    const sources = await loadedSources(modules);
    expect(sources).toContain('src/main/cli.ts');
    expect(mtoolFiles(modules).length).toBeLessThan(sources.length);
  });

  it('a command that writes a JSON log record reads pino from its vendor file (the pino check can fail); a human one does not need pino', async () => {
    await writeProject(project.dir, [{ databaseName: 'app', default: true, databaseType: 'sqlite', databaseUrl: 'sqlite:///app.db' }]);
    const modules = await loadedModules(['migrate', '--json']);
    expect(vendorFileRead(modules, 'pino')).toBe(true);
    expect(await heavyIn(modules)).toEqual(['better-sqlite3']);
    // The `lock acquired` line of a human-format migrate is written without pino (src/main/log.ts).
    const human = await loadedModules(['migrate']);
    expect(vendorFileRead(human, 'pino')).toBe(false);
    expect(await heavyIn(human)).toEqual(['better-sqlite3']);
  });

  it('settings show on a SQLite project loads no driver', async () => {
    await writeProject(project.dir, [{ databaseName: 'app', default: true, databaseType: 'sqlite', databaseUrl: 'sqlite:///app.db' }]);
    expect(await heavyIn(await loadedModules(['settings', 'show']))).toEqual([]);
  });
});
