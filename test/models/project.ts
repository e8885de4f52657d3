/** Temporary projects for model discovery tests: files by path, removed after the file's tests. */
import { loadConfig, selectDatabases } from '../../src/main/config/load-config.js';
import type { DatabaseEntry, LoadedConfig } from '../../src/main/config/types.js';
import { tempProject } from '../support/temp-project.js';

export { rejection } from '../support/temp-project.js';

export function project(files: Record<string, string>): Promise<string> {
  return tempProject(files, 'mtool-models-test-');
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
