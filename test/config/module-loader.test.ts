import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importModule } from '../../src/main/config/module-loader.js';
import { loadConfig } from '../../src/main/config/load-config.js';
import { IMPORT, project, rejection, sqliteDb } from './project.js';

const HATCH = 'MTOOL_DISABLE_SANDBOX=1';

async function isolatedError(files: Record<string, string>, env: NodeJS.ProcessEnv = {}) {
  const dir = await project(files);
  return { dir, error: await rejection(() => importModule(join(dir, 'mtool.config.ts'), { root: dir, sandbox: 'isolated', env })) };
}

describe('isolated sandbox', () => {
  it('allows mtool and mtool/<sub> imports, rewritten to this installation', async () => {
    const dir = await project({ 'mtool.config.ts': "import { env } from 'mtool';\nimport * as errors from 'mtool';\nexport const ok = typeof env === 'function' && typeof errors === 'object';\n" });
    const ns = await importModule(join(dir, 'mtool.config.ts'), { root: dir, sandbox: 'isolated', env: {} });
    expect(ns.ok).toBe(true);
    expect(existsSync(join(dir, 'node_modules'))).toBe(false);
  });

  it('ignores type-only imports, which vanish at compile time', async () => {
    const dir = await project({ 'mtool.config.ts': "import type { Thing } from './types.js';\nexport const v: Thing = 1;\n", 'types.ts': 'export type Thing = number;' });
    expect((await importModule(join(dir, 'mtool.config.ts'), { root: dir, sandbox: 'isolated', env: {} })).v).toBe(1);
  });

  it.each([
    ['a relative file', "import { x } from './helper.js';\nexport const y = x;\n", "imports './helper.js'"],
    ['a node builtin', "import { readFileSync } from 'node:fs';\nexport const r = readFileSync;\n", "imports 'node:fs'"],
    ['a bare builtin', "import os from 'os';\nexport const h = os.hostname();\n", "imports 'os'"],
    ['a package', "import pg from 'pg';\nexport const p = pg;\n", "imports 'pg'"],
    ['a side-effect import', "import './setup.js';\n", "imports './setup.js'"],
    ['require()', "export const fs = require('fs');\n", "requires 'fs'"],
    ['a literal dynamic import()', "export const load = () => import('./helper.js');\n", "imports './helper.js'"],
  ])('refuses %s at compile time, naming the import, the file and the escape hatch', async (_what, code, naming) => {
    const { error } = await isolatedError({ 'mtool.config.ts': code, 'helper.ts': 'export const x = 1;', 'setup.ts': '' });
    expect(error.code).toBe('MTOOL_CONFIG');
    expect(error.exitCode).toBe(2);
    expect(error.message).toContain(`mtool.config.ts ${naming}: refused by the configuration sandbox (isolated file mtool.config.ts)`);
    expect(error.message).toContain(HATCH);
  });

  it('refuses computed import() and require() when they run', async () => {
    for (const call of ["await import(['node', 'fs'].join(':'))", "require(['f', 's'].join(''))"]) {
      const { error } = await isolatedError({ 'mtool.config.ts': `export const m = ${call};\n` });
      expect(error.code).toBe('MTOOL_CONFIG');
      expect(error.message).toContain('mtool.config.ts loads "');
      expect(error.message).toContain('with a computed import() or require(): refused by the configuration sandbox');
      expect(error.message).toContain(HATCH);
    }
  });

  it('refuses an mtool subpath that does not exist, listing the ones that do', async () => {
    const { error } = await isolatedError({ 'mtool.config.ts': "import { x } from 'mtool/nope';\nexport const y = x;\n" });
    expect(error.message).toContain("mtool.config.ts imports 'mtool/nope', which mtool does not provide; available: mtool, mtool/schema");
  });

  it('MTOOL_DISABLE_SANDBOX=1 lifts the sandbox: relative files, builtins and packages load', async () => {
    const dir = await project({
      'mtool.config.ts': "import { x } from './helper.js';\nimport { sep } from 'node:path';\nexport const y = x + sep;\nexport const fsMod = typeof require('node:fs').readFileSync;\n",
      'helper.ts': "export const x = 'helped';",
    });
    const ns = await importModule(join(dir, 'mtool.config.ts'), { root: dir, sandbox: 'isolated', env: { MTOOL_DISABLE_SANDBOX: '1' } });
    expect(ns.y).toBe('helped/');
    expect(ns.fsMod).toBe('function');
  });

  it('only the exact value 1 disables it', async () => {
    const { error } = await isolatedError({ 'mtool.config.ts': "import { x } from './helper.js';\nexport const y = x;\n", 'helper.ts': 'export const x = 1;' }, { MTOOL_DISABLE_SANDBOX: 'true' });
    expect(error.message).toContain('refused by the configuration sandbox');
  });

  it('leaves no bundle behind in the temp folder', async () => {
    const before = (await readdir(tmpdir())).filter((n) => n.startsWith('mtool-config-') && !n.startsWith('mtool-config-test-')).length;
    const dir = await project({ 'mtool.config.ts': 'export const a = 1;\n' });
    await importModule(join(dir, 'mtool.config.ts'), { root: dir, sandbox: 'isolated', env: {} });
    await rejection(() => importModule(join(dir, 'mtool.config.ts'), { root: join(dir, 'missing'), sandbox: 'isolated', env: {} }));
    const after = (await readdir(tmpdir())).filter((n) => n.startsWith('mtool-config-') && !n.startsWith('mtool-config-test-')).length;
    expect(after).toBeLessThanOrEqual(before);
  });
});

describe('in-package mode', () => {
  it('bundles relative imports and keeps packages external, resolved from the project', async () => {
    const dir = await project({
      'package.json': '{"name":"p","type":"module"}',
      'cfg/main.ts': "import { a } from './parts/a.js';\nimport { value } from 'local-pkg';\nimport { join } from 'node:path';\nexport const out = join(a, value);\n",
      'cfg/parts/a.ts': "export const a = 'A';",
      'node_modules/local-pkg/package.json': '{"name":"local-pkg","type":"module","exports":"./index.js"}',
      'node_modules/local-pkg/index.js': "export const value = 'V';",
    });
    expect((await importModule(join(dir, 'cfg/main.ts'), { root: dir, sandbox: 'in-package', env: {} })).out).toBe('A/V');
  });

  it('loads CommonJS packages through require', async () => {
    const dir = await project({
      'cfg.ts': "import cjs from 'cjs-pkg';\nexport const v = cjs.v;\n",
      'node_modules/cjs-pkg/package.json': '{"name":"cjs-pkg","main":"index.js"}',
      'node_modules/cjs-pkg/index.js': "const os = require('node:os'); module.exports = { v: typeof os.hostname };",
    });
    expect((await importModule(join(dir, 'cfg.ts'), { root: dir, sandbox: 'in-package', env: {} })).v).toBe('function');
  });

  it('refuses a relative import that climbs out of the root', async () => {
    const dir = await project({ 'proj/cfg.ts': "import { s } from '../secret.js';\nexport const x = s;\n", 'secret.ts': "export const s = 'x';" });
    const root = join(dir, 'proj');
    const e = await rejection(() => importModule(join(root, 'cfg.ts'), { root, sandbox: 'in-package', env: {} }));
    expect(e.code).toBe('MTOOL_CONFIG');
    expect(e.message).toContain("cfg.ts imports '../secret.js', which resolves outside the project root");
  });

  it('refuses a bundled import through a symlink leading outside the root', async () => {
    const elsewhere = await project({ 'lib.ts': "export const s = 'outside';" });
    const dir = await project({ 'cfg.ts': "import { s } from './lib.js';\nexport const x = s;\n", 'lib.ts': { symlink: join(elsewhere, 'lib.ts') } });
    const e = await rejection(() => importModule(join(dir, 'cfg.ts'), { root: dir, sandbox: 'in-package', env: {} }));
    expect(e.message).toContain("cfg.ts imports './lib.js', which resolves outside the project root");
  });

  it('refuses a symlinked folder leading outside the root', async () => {
    const elsewhere = await project({ 'shared/lib.ts': "export const s = 'outside';" });
    const dir = await project({ 'cfg.ts': "import { s } from './shared/lib.js';\nexport const x = s;\n", shared: { symlink: join(elsewhere, 'shared') } });
    const e = await rejection(() => importModule(join(dir, 'cfg.ts'), { root: dir, sandbox: 'in-package', env: {} }));
    expect(e.message).toContain('resolves outside the project root');
  });
});

describe('entry file checks', () => {
  it('refuses a config file that is a symlink leading outside the root', async () => {
    const elsewhere = await project({ 'real.ts': IMPORT + sqliteDb('app', 'default: true') });
    const dir = await project({ 'mtool.config.ts': { symlink: join(elsewhere, 'real.ts') } });
    const e = await rejection(() => loadConfig({ cwd: dir, env: {} }));
    expect(e.exitCode).toBe(2);
    expect(e.message).toBe(`Refusing to load mtool.config.ts: it is a symlink leading outside the project root (to ${join(elsewhere, 'real.ts')})`);
  });

  it('refuses a path that traverses out of the root', async () => {
    const dir = await project({ 'in/x.ts': 'export const a = 1;', 'out.ts': 'export const a = 2;' });
    const e = await rejection(() => importModule('../out.ts', { root: join(dir, 'in'), sandbox: 'in-package', env: {} }));
    expect(e.message).toBe(`Refusing to load ../out.ts: it lies outside the project root ${join(dir, 'in')}`);
  });

  it('accepts a symlink that stays inside the root', async () => {
    const dir = await project({ 'real/cfg.ts': 'export const a = 3;', 'cfg.ts': { symlink: './real/cfg.ts' } });
    expect((await importModule(join(dir, 'cfg.ts'), { root: dir, sandbox: 'isolated', env: {} })).a).toBe(3);
  });

  it('reports a compile error with its position', async () => {
    const dir = await project({ 'cfg.ts': 'export const a = ;\n' });
    const e = await rejection(() => importModule(join(dir, 'cfg.ts'), { root: dir, sandbox: 'isolated', env: {} }));
    expect(e.message).toMatch(/^Could not compile cfg\.ts: Unexpected ";" \(cfg\.ts:1:18\)$/);
  });

  it('wraps an exception thrown while the module runs, keeping the cause', async () => {
    const dir = await project({ 'cfg.ts': "throw new TypeError('boom');\n" });
    const e = await rejection(() => importModule(join(dir, 'cfg.ts'), { root: dir, sandbox: 'isolated', env: {} }));
    expect(e.message).toBe('Loading cfg.ts failed: boom');
    expect((e as Error & { cause: unknown }).cause).toBeInstanceOf(TypeError);
  });

  it('runs the module again on each import', async () => {
    const dir = await project({ 'cfg.ts': 'export const t = Math.random();\n' });
    const a = await importModule(join(dir, 'cfg.ts'), { root: dir, sandbox: 'isolated', env: {} });
    const b = await importModule(join(dir, 'cfg.ts'), { root: dir, sandbox: 'isolated', env: {} });
    expect(a.t).not.toBe(b.t);
  });
});

describe('plain JavaScript configurations (imported without esbuild)', () => {
  const load = (dir: string, file = 'cfg.ts') => importModule(join(dir, file), { root: dir, sandbox: 'isolated', env: {} });
  const cachedModule = async (dir: string) => {
    const cache = join(dir, '.mtool', 'cache');
    const names = await readdir(cache);
    expect(names.filter((n) => n.endsWith('.json'))).toHaveLength(1);
    return readFile(join(cache, names.find((n) => n.endsWith('.mjs'))!), 'utf8');
  };

  it('imports the file as written, its lines where they were, and caches it', async () => {
    const dir = await project({ 'cfg.ts': "import { env } from 'mtool';\n// a comment esbuild would drop\nexport const kind = typeof env;\n" });
    expect((await load(dir)).kind).toBe('function');
    const cached = await cachedModule(dir);
    expect(cached).toContain('// a comment esbuild would drop');
    expect(cached.split('\n')[2]).toBe('export const kind = typeof env;');
    expect((await load(dir)).kind).toBe('function');
  });

  it('compiles TypeScript that parses as JavaScript with another meaning, and TypeScript that does not parse', async () => {
    const dir = await project({ 'generic.ts': "export const size = new Set<string>(['a', 'b']).size;\n", 'typed.ts': 'export const n: number = 2;\n' });
    expect((await load(dir, 'generic.ts')).size).toBe(2);
    expect((await load(dir, 'typed.ts')).n).toBe(2);
    for (const text of (await readdir(join(dir, '.mtool', 'cache'))).filter((n) => n.endsWith('.mjs'))) {
      expect(await readFile(join(dir, '.mtool', 'cache', text), 'utf8')).not.toContain('mtool.module-loader.started');
    }
  });

  it('leaves no cache entry behind for a file that does not parse: the next load reports the compile error again', async () => {
    const dir = await project({ 'cfg.ts': 'export const a = ;\n' });
    for (let i = 0; i < 2; i++) expect((await rejection(() => load(dir))).message).toMatch(/^Could not compile cfg\.ts: Unexpected ";"/);
    expect(existsSync(join(dir, '.mtool', 'cache')) ? await readdir(join(dir, '.mtool', 'cache')) : []).toEqual([]);
  });
});
