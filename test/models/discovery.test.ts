import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileDatabaseModels, discoverModels } from '../../src/main/models/discover-models.js';
import { config, debugLog, loaded, project, rejection, tables } from './project.js';

const keys = (r: { models: { key: string }[] }) => r.models.map((m) => m.key).sort();

describe('model discovery', () => {
  it('scans the whole project with one database, skipping node_modules, dist, dot-folders, test folders and files without mtool/schema', async () => {
    const dir = await project({
      'mtool.config.ts': config({ name: 'app' }),
      'src/models/users.ts': tables('users'),
      'src/deep/orders.mts': tables('orders'),
      'lib/plain.ts': `export const x = { id: 1 };\n`,
      'node_modules/pkg/index.js': tables('from_node_modules'),
      'dist/users.js': tables('from_dist'),
      '.hidden/secret.ts': tables('from_dot_folder'),
      'test/fixtures.ts': tables('from_tests'),
      'src/users.test.ts': tables('from_test_file'),
    });
    const { config: c, entry } = await loaded(dir);
    const log = debugLog();
    const found = await discoverModels(c, entry, { log });
    expect(keys(found)).toEqual(['orders', 'users']);
    expect(found.scanned).toBe(true);
    expect(found.files).toEqual(['src/deep/orders.mts', 'src/models/users.ts']);
    // --debug: every scanned file is logged, also the ones without models.
    expect(log.lines).toContain('model scan: lib/plain.ts (no mtool/schema import, skipped)');
    expect(log.lines).toContain('model scan: src/models/users.ts');
  });

  it('loads modelPaths given as files, folders and globs, and names each model file', async () => {
    const dir = await project({
      'mtool.config.ts': config({ name: 'app', extra: `modelPaths: ['models/a.ts', 'more', 'globbed/**/*.model.ts']` }),
      'models/a.ts': tables('a'),
      'models/ignored.ts': tables('ignored'),
      'more/b.ts': tables('b'),
      'more/sub/c.js': `import { table, col } from 'mtool/schema';\nexport const c = table('c', { id: col.integer() });\n`,
      'globbed/x/d.model.ts': tables('d'),
      'globbed/x/e.ts': tables('e'),
    });
    const { config: c, entry } = await loaded(dir);
    const found = await discoverModels(c, entry, { log: debugLog() });
    expect(keys(found)).toEqual(['a', 'b', 'c', 'd']);
    expect(found.models.find((m) => m.key === 'c')).toMatchObject({ file: 'more/sub/c.js', exportName: 'c', kind: 'table' });
  });

  it('bundles many model files through one generated entry (one cache entry for the set)', async () => {
    const files: Record<string, string> = { 'mtool.config.ts': config({ name: 'app', extra: `modelPaths: ['models']` }) };
    for (let i = 0; i < 12; i++) files[`models/t${i}.ts`] = tables(`t${i}`);
    const dir = await project(files);
    const { config: c, entry } = await loaded(dir);
    const bundles = async () => (await readdir(join(dir, '.mtool', 'cache'))).filter((f) => f.endsWith('.mjs')).length;
    const before = await bundles(); // the configuration's own bundle
    const first = await discoverModels(c, entry, { log: debugLog() });
    expect(first.models).toHaveLength(12);
    expect((await readdir(join(dir, '.mtool', 'cache'))).filter((f) => f.startsWith('models-'))).toHaveLength(1);
    expect(await bundles()).toBe(before + 1);
    const second = await discoverModels(c, entry, { log: debugLog() });
    expect(keys(second)).toEqual(keys(first));
    expect(await bundles()).toBe(before + 1);
  });

  it('counts a model re-exported from an index file once', async () => {
    const dir = await project({
      'mtool.config.ts': config({ name: 'app', extra: `modelPaths: ['models']` }),
      'models/users.ts': tables('users'),
      'models/index.ts': `export * from './users.js';\n`,
    });
    const { config: c, entry } = await loaded(dir);
    const found = await discoverModels(c, entry, { log: debugLog() });
    expect(found.models).toHaveLength(1);
  });

  it('requires modelPaths for every database when several are configured', async () => {
    const dir = await project({ 'mtool.config.ts': config({ name: 'a', extra: `modelPaths: ['ma']` }, { name: 'b' }), 'ma/x.ts': tables('x') });
    const e = await rejection(() => loaded(dir));
    expect(e.code).toBe('MTOOL_CONFIG');
    expect(e.message).toContain("Missing modelPaths for 'b'");
  });

  it('rejects overlapping modelPaths between databases unless overlapModels is set', async () => {
    const files = (flag: string) => ({
      'mtool.config.ts': config({ name: 'a', extra: `modelPaths: ['models']` }, { name: 'b', extra: `modelPaths: ['models/shared']${flag}` }),
      'models/shared/s.ts': tables('s'),
    });
    const e = await rejection(async () => loaded(await project(files(''))));
    expect(e.message).toContain("Databases 'a' and 'b' have overlapping modelPaths ('models' and 'models/shared')");
    const ok = await loaded(await project(files(', overlapModels: true')), 'b');
    expect(keys(await discoverModels(ok.config, ok.entry, { log: debugLog() }))).toEqual(['s']);
  });

  it('rejects the same modelTables name in two databases unless overlapModels is set', async () => {
    const dir = await project({
      'mtool.config.ts': config({ name: 'a', extra: `modelPaths: ['ma'], modelTables: ['x']` }, { name: 'b', extra: `modelPaths: ['mb'], modelTables: ['x']` }),
      'ma/x.ts': tables('x'),
      'mb/x.ts': tables('x'),
    });
    const e = await rejection(() => loaded(dir));
    expect(e.message).toContain("Databases 'a' and 'b' both list modelTables 'x'");
  });

  it('keeps only modelTables, and names every modelTables entry that does not exist', async () => {
    const good = await project({ 'mtool.config.ts': config({ name: 'app', extra: `modelPaths: ['models'], modelTables: ['b']` }), 'models/m.ts': tables('a', 'b', 'c') });
    const g = await loaded(good);
    expect(keys(await discoverModels(g.config, g.entry, { log: debugLog() }))).toEqual(['b']);

    const bad = await project({ 'mtool.config.ts': config({ name: 'app', extra: `modelPaths: ['models'], modelTables: ['b', 'nope', 'gone']` }), 'models/m.ts': tables('a', 'b') });
    const l = await loaded(bad);
    const e = await rejection(() => discoverModels(l.config, l.entry, { log: debugLog() }));
    expect(e.code).toBe('MTOOL_CONFIG');
    expect(e.message).toBe("modelTables of database 'app' name 'nope', 'gone', which are not among the discovered tables (a, b in models); fix the name or add the file to modelPaths");
  });

  it('names a modelPaths entry that does not exist or matches no file', async () => {
    const missing = await loaded(await project({ 'mtool.config.ts': config({ name: 'app', extra: `modelPaths: ['nowhere']` }) }));
    const e1 = await rejection(() => discoverModels(missing.config, missing.entry, { log: debugLog() }));
    expect(e1.code).toBe('MTOOL_CONFIG');
    expect(e1.message).toContain("modelPaths entry 'nowhere' of database 'app' does not exist");
    const empty = await loaded(await project({ 'mtool.config.ts': config({ name: 'app', extra: `modelPaths: ['src/**/*.model.ts']` }), 'src/a.ts': tables('a') }));
    const e2 = await rejection(() => discoverModels(empty.config, empty.entry, { log: debugLog() }));
    expect(e2.message).toContain("modelPaths entry 'src/**/*.model.ts' of database 'app' matches no .ts, .mts, .js or .mjs file");
  });

  it('names both files when two models define the same table', async () => {
    const dir = await project({ 'mtool.config.ts': config({ name: 'app', extra: `modelPaths: ['models']` }), 'models/a.ts': tables('users'), 'models/b.ts': tables('users') });
    const l = await loaded(dir);
    const e = await rejection(() => discoverModels(l.config, l.entry, { log: debugLog() }));
    expect(e.code).toBe('MTOOL_MODEL');
    expect(e.message).toBe("table 'users' of database 'app' is defined twice: export 'users' of models/a.ts and export 'users' of models/b.ts; keep one");
  });

  it('names the model file whose definition throws', async () => {
    const dir = await project({
      'mtool.config.ts': config({ name: 'app', extra: `modelPaths: ['models']` }),
      'models/a.ts': tables('a'),
      'models/bad.ts': `import { table, col } from 'mtool/schema';\nexport const bad = table('bad', { id: col.integer() }, { pg_schema: 'x' } as never);\n`,
    });
    const l = await loaded(dir);
    const e = await rejection(() => discoverModels(l.config, l.entry, { log: debugLog() }));
    expect(e.code).toBe('MTOOL_CONFIG');
    expect(e.message).toContain('models/bad.ts');
    expect(e.message).toContain("unknown option 'pg_schema' (did you mean 'pgSchema'?)");
  });

  it('says where it looked when no model is found', async () => {
    const l = await loaded(await project({ 'mtool.config.ts': config({ name: 'app', extra: `modelPaths: ['models']` }), 'models/none.ts': `export const x = 1;\n` }));
    const e = await rejection(() => compileDatabaseModels(l.config, l.entry, { log: debugLog() }));
    expect(e.code).toBe('MTOOL_MODEL');
    expect(e.message).toContain("No models found for database 'app' in modelPaths 'models' (models/none.ts)");
  });
});
