/** Temporary project folders for tests that load configs and models from files, removed after the test file's tests. */
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll } from 'vitest';

const made: string[] = [];
afterAll(async () => {
  await Promise.all(made.map((d) => rm(d, { recursive: true, force: true })));
});

/**
 * Create a folder (real path, symlinks resolved) named `<prefix><random>` in the temp folder,
 * holding `files` (path → text; a value `{ symlink }` makes a symlink to that target).
 */
export async function tempProject(files: Record<string, string | { symlink: string }>, prefix = 'mtool-test-'): Promise<string> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), prefix)));
  made.push(dir);
  for (const [path, content] of Object.entries(files)) {
    const full = join(dir, path);
    await mkdir(dirname(full), { recursive: true });
    if (typeof content === 'string') await writeFile(full, content);
    else await symlink(content.symlink, full);
  }
  return dir;
}

/** Run `fn`, expecting it to reject (with an MtoolError, as the callers check); returns the error. */
export async function rejection(fn: () => Promise<unknown>): Promise<Error & { code: string; exitCode: number }> {
  try {
    await fn();
  } catch (e) {
    return e as Error & { code: string; exitCode: number };
  }
  throw new Error('expected a rejection');
}
