import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MODULE_TRACE, runMtool, tempProject } from '../support/cli.js';

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

/** Run `mtool config` in the project, tracing the modules it loads; whether esbuild was among them. */
async function configLoadsEsbuild(): Promise<boolean> {
  const trace = join(traceDir, `${Math.random()}.txt`);
  const result = await runMtool(['config'], { cwd: project.dir, nodeArgs: ['--import', MODULE_TRACE], env: { MTOOL_MODULE_TRACE: trace } });
  expect(result.code, result.stderr).toBe(0);
  return (await readFile(trace, 'utf8')).split('\n').some((m) => m.includes('/node_modules/esbuild/'));
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
