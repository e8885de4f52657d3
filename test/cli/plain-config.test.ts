import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runMtool, tempProject, tracedRun } from '../support/cli.js';

let project: Awaited<ReturnType<typeof tempProject>>;
beforeEach(async () => {
  project = await tempProject();
});
afterEach(async () => project.dispose());

/** Run `mtool config` in the project; whether it loaded esbuild. */
async function configLoadsEsbuild(): Promise<boolean> {
  const result = await tracedRun(['config'], { cwd: project.dir });
  expect(result.code, result.stderr).toBe(0);
  return result.modules.some((m) => m.includes('/node_modules/esbuild/'));
}

describe('a plain JavaScript configuration on its first run', () => {
  it("loads without esbuild (mtool init's configuration), and a TypeScript one with it", async () => {
    const init = await runMtool(['init'], { cwd: project.dir });
    expect(init.code, init.stderr).toBe(0);
    expect(await configLoadsEsbuild()).toBe(false);
    const cache = join(project.dir, '.mtool', 'cache');
    expect((await readdir(cache)).filter((n) => n.endsWith('.json'))).toHaveLength(1);

    const config = join(project.dir, 'mtool.config.ts');
    await writeFile(config, (await readFile(config, 'utf8')).replace('export const defaultDb =', 'export const defaultDb: unknown ='));
    expect(await configLoadsEsbuild()).toBe(true);
    // Cached from then on, either way.
    expect(await configLoadsEsbuild()).toBe(false);
  });

  it('reports an import mtool does not export the same way on every run', async () => {
    await writeFile(join(project.dir, 'mtool.config.ts'), "import { nope } from 'mtool';\nexport const a = nope;\n");
    for (let run = 0; run < 2; run++) {
      const result = await runMtool(['config'], { cwd: project.dir });
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/^error: Loading mtool\.config\.ts failed: The requested module '.*' does not provide an export named 'nope'$/m);
    }
  });

  it('runs a file that throws once per run, and reports its error (in a folder whose name URLs escape)', async () => {
    const dir = join(project.dir, "it's #1 100% [x]");
    await mkdir(dir);
    await writeFile(join(dir, 'mtool.config.ts'), "import { env } from 'mtool';\nglobalThis.process.stdout.write('ran\\n');\nthrow new RangeError('at line 3');\n");
    for (let run = 0; run < 2; run++) {
      const result = await runMtool(['config'], { cwd: dir });
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('ran\n');
      expect(result.stderr).toMatch(/^error: Loading mtool\.config\.ts failed: at line 3$/m);
    }
  });
});
