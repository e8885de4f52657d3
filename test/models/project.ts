/** Temporary projects for model discovery tests: files by path, removed after the file's tests. */
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll } from 'vitest';
import { loadConfig, selectDatabases } from '../../src/main/config/load-config.js';
import type { DatabaseEntry, LoadedConfig } from '../../src/main/config/types.js';

const made: string[] = [];
afterAll(async () => {
  await Promise.all(made.map((d) => rm(d, { recursive: true, force: true })));
});

export async function project(files: Record<string, string>): Promise<string> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), 'mtool-models-test-')));
  made.push(dir);
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), content);
  }
  return dir;
}

/** `mtool.config.ts` declaring sqlite databases with extra fields each. */
export function config(...dbs: { name: string; extra?: string }[]): string {
  return `import { databaseConfig } from 'mtool';\n${dbs
    .map((d, i) => `databaseConfig({ databaseName: '${d.name}', default: ${i === 0}, databaseType: 'sqlite', databaseUrl: 'sqlite:///${d.name}.db'${d.extra ? `, ${d.extra}` : ''} });`)
    .join('\n')}\n`;
}

/** A model file with one table per name. */
export function tables(...names: string[]): string {
  return `import { table, col } from 'mtool/schema';\n${names.map((n) => `export const ${n} = table('${n}', { id: col.integer().primaryKey() });`).join('\n')}\n`;
}

export async function loaded(dir: string, database?: string): Promise<{ config: LoadedConfig; entry: DatabaseEntry }> {
  const config = await loadConfig({ cwd: dir, env: {} });
  return { config, entry: selectDatabases(config, { database })[0]! };
}

/** Logger stand-in collecting DEBUG lines. */
export function debugLog(): { debug(message: string): void; lines: string[] } {
  const lines: string[] = [];
  return { lines, debug: (m: string) => void lines.push(m) };
}

export async function rejection(fn: () => Promise<unknown>): Promise<Error & { code: string; exitCode: number }> {
  try {
    await fn();
  } catch (e) {
    return e as Error & { code: string; exitCode: number };
  }
  throw new Error('expected a rejection');
}
