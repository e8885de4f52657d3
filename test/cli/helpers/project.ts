import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/** One `databaseConfig({...})` call's fields, written as a literal into mtool.config.ts. */
export type DbFields = Record<string, unknown>;

/**
 * Write `mtool.config.ts` declaring the given databases (and any extra files), as a user would.
 * Values that are `{ env: 'NAME' }` become `env('NAME')` calls.
 */
export async function writeProject(dir: string, databases: DbFields[], files: Record<string, string> = {}): Promise<void> {
  const literal = (value: unknown): string => {
    if (value && typeof value === 'object' && 'env' in value) return `env(${JSON.stringify((value as { env: string }).env)})`;
    return JSON.stringify(value);
  };
  const body = databases
    .map((db, i) => `export const db${i} = databaseConfig({ ${Object.entries(db).map(([k, v]) => `${k}: ${literal(v)}`).join(', ')} });`)
    .join('\n');
  await writeFile(join(dir, 'mtool.config.ts'), `import { databaseConfig, env } from 'mtool';\n${body}\n`);
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), content);
  }
}
