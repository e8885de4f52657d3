import { execFileSync } from 'node:child_process';
import { readdir, readFile, stat, writeFile, chmod } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runMtool, tempProject } from '../support/cli.js';

let project: Awaited<ReturnType<typeof tempProject>>;
beforeEach(async () => {
  project = await tempProject();
});
afterEach(async () => project.dispose());

const mtool = (...args: string[]) => runMtool(args, { cwd: project.dir });
const gitignore = () => readFile(join(project.dir, '.gitignore'), 'utf8');
const cacheLines = (text: string) => text.split(/\r?\n/).filter((line) => line === '.mtool/cache/');

describe('mtool init and .gitignore', () => {
  it('creates .gitignore with the compiled-config cache, then keeps it unchanged', async () => {
    const first = await mtool('init');
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('created .gitignore');
    const created = await gitignore();
    expect(cacheLines(created)).toHaveLength(1);

    const second = await mtool('init', '--json');
    expect(second.code, second.stderr).toBe(0);
    expect(JSON.parse(second.stdout).files).toContainEqual({ path: '.gitignore', action: 'kept' });
    expect(await gitignore()).toBe(created);
  });

  it("appends to the user's .gitignore, keeping its lines, line endings and mode, and leaves no temp file", async () => {
    const path = join(project.dir, '.gitignore');
    await writeFile(path, 'node_modules/\r\n*.log');
    await chmod(path, 0o600);
    const result = await mtool('init');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('updated .gitignore (added .mtool/cache/, /db.sqlite3*)');
    const text = await gitignore();
    expect(text.startsWith('node_modules/\r\n*.log\r\n')).toBe(true);
    expect(text.endsWith('.mtool/cache/\r\n# mtool: the SQLite database of mtool.config.ts (local data)\r\n/db.sqlite3*\r\n')).toBe(true);
    expect(text.replace(/\r\n/g, '')).not.toContain('\n');
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect((await readdir(project.dir)).filter((name) => name.endsWith('.tmp'))).toEqual([]);

    expect((await mtool('init')).stdout).toContain('kept    .gitignore (already ignores .mtool/cache/)');
    expect(await gitignore()).toBe(text);
  });

  it('accepts existing rules for the cache folder and the database file written another way', async () => {
    await writeFile(join(project.dir, '.gitignore'), 'dist/\n  /.mtool/cache  \n*.sqlite3*\n');
    const result = await mtool('init');
    expect(result.code, result.stderr).toBe(0);
    expect(await gitignore()).toBe('dist/\n  /.mtool/cache  \n*.sqlite3*\n');
  });

  it("keeps the SQLite database of the configuration it writes, and its journal, out of git; not a configuration's it finds", async () => {
    expect((await mtool('init')).code).toBe(0);
    const migrated = await mtool('migrate');
    expect(migrated.code, migrated.stderr).toBe(0);
    execFileSync('git', ['init', '-q'], { cwd: project.dir });
    const ignored = execFileSync('git', ['check-ignore', 'db.sqlite3', 'db.sqlite3-journal', '.mtool/cache/x'], { cwd: project.dir, encoding: 'utf8' });
    expect(ignored.trim().split('\n')).toEqual(['db.sqlite3', 'db.sqlite3-journal', '.mtool/cache/x']);

    // A configuration of the user's own: only the cache is ensured.
    await writeFile(join(project.dir, '.gitignore'), 'dist/\n');
    const kept = await mtool('init');
    expect(kept.stdout).toContain('updated .gitignore (added .mtool/cache/)');
    expect(await gitignore()).toBe('dist/\n# mtool: compiled configuration cache (machine-specific)\n.mtool/cache/\n');
  });
});
