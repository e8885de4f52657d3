/** Temporary project folders for configuration tests. */
import { mkdtemp, mkdir, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll } from 'vitest';

const made: string[] = [];
afterAll(async () => {
  await Promise.all(made.map((d) => rm(d, { recursive: true, force: true })));
});

/** Create a project folder holding `files` (path → text; a value `{ symlink }` makes a symlink). */
export async function project(files: Record<string, string | { symlink: string }>): Promise<string> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), 'mtool-config-test-')));
  made.push(dir);
  for (const [path, content] of Object.entries(files)) {
    const full = join(dir, path);
    await mkdir(dirname(full), { recursive: true });
    if (typeof content === 'string') await writeFile(full, content);
    else await symlink(content.symlink, full);
  }
  return dir;
}

/** A scratch folder outside any project (for symlink targets). */
export async function outside(files: Record<string, string>): Promise<string> {
  return project(files);
}

/** One sqlite database declaration. */
export function sqliteDb(name: string, extra = ''): string {
  return `databaseConfig({ databaseName: '${name}', databaseType: 'sqlite', databaseUrl: 'sqlite:///${name}.db'${extra ? `, ${extra}` : ''} });\n`;
}

export const IMPORT = "import { databaseConfig, MtoolDatabase, env } from 'mtool';\n";

/** Run `fn`, expecting it to reject with an MtoolError; returns the error. */
export async function rejection(fn: () => Promise<unknown>): Promise<Error & { code: string; exitCode: number }> {
  try {
    await fn();
  } catch (e) {
    return e as Error & { code: string; exitCode: number };
  }
  throw new Error('expected a rejection');
}
