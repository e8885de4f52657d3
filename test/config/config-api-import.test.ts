import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as configApi from '../../src/config-api.js';
import * as root from '../../src/index.js';
import { importModule, ownModules } from '../../src/main/config/module-loader.js';
import { IMPORT, project, sqliteDb } from './project.js';

/**
 * A configuration that imports only configuration-API names from `mtool` is compiled to import
 * them from src/config-api.ts (module-loader.ts `configApiDirectly`), so loading it does not load
 * the statement splitter the root module also exports.
 */

/** The text of the one compiled bundle in the project's cache. */
async function compiled(dir: string): Promise<string> {
  const cache = join(dir, '.mtool', 'cache');
  const bundles = (await readdir(cache)).filter((name) => name.endsWith('.mjs'));
  expect(bundles).toHaveLength(1);
  return readFile(join(cache, bundles[0]!), 'utf8');
}

describe('configuration imports of the root module', () => {
  it('the root module re-exports the configuration API as the very same bindings', () => {
    const shared = Object.keys(configApi).filter((name) => name in root);
    expect(shared).toEqual(expect.arrayContaining(['databaseConfig', 'MtoolDatabase', 'env']));
    for (const name of shared) expect((root as Record<string, unknown>)[name], name).toBe((configApi as Record<string, unknown>)[name]);
  });

  it('imports configuration-API names from config-api instead of the root module', async () => {
    const dir = await project({ 'mtool.config.ts': `${IMPORT}${sqliteDb('app')}export const kinds = [typeof databaseConfig, typeof MtoolDatabase, typeof env];\n` });
    const ns = await importModule(join(dir, 'mtool.config.ts'), { root: dir, sandbox: 'isolated', env: {} });
    expect(ns.kinds).toEqual(['function', 'function', 'function']);
    const code = await compiled(dir);
    expect(code).toContain(JSON.stringify(ownModules().get('#config-api')));
    expect(code).not.toContain(JSON.stringify(ownModules().get('mtool')));
  });

  it.each([
    ['a splitter name', "import { databaseConfig, splitStatements } from 'mtool';\nexport const ok = typeof splitStatements === 'function' && typeof databaseConfig === 'function';\n"],
    ['a namespace import', "import * as mtool from 'mtool';\nexport const ok = typeof mtool.splitStatements === 'function';\n"],
  ])('keeps the root module for %s', async (_what, source) => {
    const dir = await project({ 'mtool.config.ts': source });
    expect((await importModule(join(dir, 'mtool.config.ts'), { root: dir, sandbox: 'isolated', env: {} })).ok).toBe(true);
    const code = await compiled(dir);
    expect(code).toContain(JSON.stringify(ownModules().get('mtool')));
    expect(code).not.toContain(JSON.stringify(ownModules().get('#config-api')));
  });
});
