import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MODULE_TRACE, loadedSources, mtoolFiles, runMtool, tempProject } from '../support/cli.js';
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
  const trace = join(traceDir, 'trace.txt');
  const result = await runMtool(args, { cwd: project.dir, nodeArgs: ['--import', MODULE_TRACE], env: { MTOOL_MODULE_TRACE: trace } });
  expect(result.code, result.stderr).toBe(0);
  return (await readFile(trace, 'utf8')).split('\n').filter(Boolean);
}

function heavyIn(modules: string[]): string[] {
  return HEAVY.filter((name) => modules.some((m) => m.includes(`/node_modules/${name}/`)));
}

describe('start-up imports', () => {
  it('the trace sees a driver when one is loaded (the check can fail)', async () => {
    const trace = join(traceDir, 'probe.txt');
    const { spawnSync } = await import('node:child_process');
    spawnSync(process.execPath, ['--import', MODULE_TRACE, '-e', "require('pg')"], { cwd: process.cwd(), env: { ...process.env, MTOOL_MODULE_TRACE: trace } });
    expect(heavyIn((await readFile(trace, 'utf8')).split('\n'))).toContain('pg');
  });

  it.each([[['--help']], [['--version']], [['new', '--help']]])('mtool %j loads no driver, pool, HTTP client, metrics or pino', async (args) => {
    const modules = await loadedModules(args);
    expect(modules.some((m) => m.endsWith('/dist/cli/bin.js'))).toBe(true);
    expect(heavyIn(modules)).toEqual([]);
    expect(modules.some((m) => m.includes('/node_modules/pino/'))).toBe(false);
  });

  it('mtool --version loads only the binary and the version module: no command line, no sade', async () => {
    const modules = await loadedModules(['--version']);
    expect(await loadedSources(modules)).toEqual(['src/main/bin.ts', 'src/version.ts']);
    expect(modules.some((m) => m.includes('/node_modules/'))).toBe(false);
    // The bundle's entry plus the version chunk, at most one re-export stub esbuild adds, and
    // esbuild's runtime helpers (the bundled CommonJS packages need them; no source of their own).
    expect(mtoolFiles(modules).length).toBeLessThanOrEqual(4);
  });

  it('mtool --help reads the command line from a few bundle files, not one file per module', async () => {
    const modules = await loadedModules(['--help']);
    const sources = await loadedSources(modules);
    expect(sources).toContain('src/main/cli.ts');
    expect(mtoolFiles(modules).length).toBeLessThan(sources.length);
  });

  it('settings show on a SQLite project loads no driver', async () => {
    await writeProject(project.dir, [{ databaseName: 'app', default: true, databaseType: 'sqlite', databaseUrl: 'sqlite:///app.db' }]);
    expect(heavyIn(await loadedModules(['settings', 'show']))).toEqual([]);
  });
});
