import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findProjectRoot, loadConfig, selectDatabases } from '../../src/main/config/load-config.js';
import { IMPORT, project, rejection, sqliteDb } from './project.js';

const noEnv = {} as NodeJS.ProcessEnv;

describe('root finding', () => {
  it('uses the nearest ancestor holding mtool.config.*, else the cwd', async () => {
    const dir = await project({ 'mtool.config.mts': IMPORT + sqliteDb('app', 'default: true'), 'src/deep/x.txt': '' });
    expect(findProjectRoot(join(dir, 'src', 'deep'))).toBe(dir);
    const bare = await project({ 'a/b.txt': '' });
    expect(findProjectRoot(join(bare, 'a'))).toBe(join(bare, 'a'));
  });

  it('loads the root file from a subfolder and names migrations/<name> under the root', async () => {
    const dir = await project({ 'mtool.config.ts': IMPORT + sqliteDb('app', 'default: true'), 'src/x.txt': '' });
    const config = await loadConfig({ cwd: join(dir, 'src'), env: noEnv });
    expect(config.root).toBe(dir);
    expect(config.source).toEqual({ kind: 'root-file', files: [join(dir, 'mtool.config.ts')] });
    expect(config.databases.map((d) => [d.name, d.migrationsDir])).toEqual([['app', join(dir, 'migrations', 'app')]]);
  });

  it('accepts each root file name: .ts, .mts, .js, .mjs', async () => {
    for (const name of ['mtool.config.ts', 'mtool.config.mts', 'mtool.config.js', 'mtool.config.mjs']) {
      const dir = await project({ [name]: IMPORT + sqliteDb('app', 'default: true') });
      expect((await loadConfig({ cwd: dir, env: noEnv })).databases[0]!.name).toBe('app');
    }
  });
});

describe('source precedence and ambiguity', () => {
  it('refuses two root files', async () => {
    const dir = await project({ 'mtool.config.ts': IMPORT + sqliteDb('a', 'default: true'), 'mtool.config.js': IMPORT + sqliteDb('b', 'default: true') });
    const e = await rejection(() => loadConfig({ cwd: dir, env: noEnv }));
    expect(e.exitCode).toBe(2);
    expect(e.message).toBe('Several configuration files at the project root: mtool.config.ts, mtool.config.js; keep exactly one');
  });

  it('loads MTOOL_CONFIG_MODULE in-package: its relative imports are bundled', async () => {
    const dir = await project({
      'config/db.ts': "import { databaseConfig } from 'mtool';\nimport { url } from './url.js';\ndatabaseConfig({ databaseName: 'app', default: true, databaseType: 'sqlite', databaseUrl: url });\n",
      'config/url.ts': "export const url = 'sqlite:///from-helper.db';\n",
    });
    for (const value of ['config/db.ts', './config/db', 'config/db.js']) {
      const config = await loadConfig({ cwd: dir, env: { MTOOL_CONFIG_MODULE: value } });
      expect(config.source).toEqual({ kind: 'env-module', files: [join(dir, 'config', 'db.ts')] });
      expect(config.databases[0]!.url).toBe('sqlite:///from-helper.db');
    }
  });

  it('loads MTOOL_CONFIG_MODULE given as a package specifier, whose own imports resolve from the project', async () => {
    const dir = await project({
      'package.json': '{"name":"proj","type":"module"}',
      'node_modules/@acme/db-config/package.json': '{"name":"@acme/db-config","type":"module","exports":{".":"./index.js"}}',
      'node_modules/@acme/db-config/index.js': "import { databaseConfig } from 'mtool';\nimport { name } from '@acme/names';\ndatabaseConfig({ databaseName: name, default: true, databaseType: 'sqlite', databaseUrl: 'sqlite:///pkg.db' });\n",
      'node_modules/@acme/names/package.json': '{"name":"@acme/names","type":"module","exports":{".":"./index.js"}}',
      'node_modules/@acme/names/index.js': "export const name = 'frompkg';\n",
    });
    const config = await loadConfig({ cwd: dir, env: { MTOOL_CONFIG_MODULE: '@acme/db-config' } });
    expect(config.source.kind).toBe('env-module');
    expect(config.databases[0]!.name).toBe('frompkg');
  });

  it('fails when MTOOL_CONFIG_MODULE names nothing', async () => {
    const dir = await project({ 'x.txt': '' });
    const e = await rejection(() => loadConfig({ cwd: dir, env: { MTOOL_CONFIG_MODULE: 'config/missing' } }));
    expect(e.exitCode).toBe(2);
    expect(e.message).toContain("MTOOL_CONFIG_MODULE='config/missing' names neither a module file under");
  });

  it('fails fast on a root file plus MTOOL_CONFIG_MODULE naming another module', async () => {
    const dir = await project({ 'mtool.config.ts': IMPORT + sqliteDb('a', 'default: true'), 'other.ts': IMPORT + sqliteDb('b', 'default: true') });
    const e = await rejection(() => loadConfig({ cwd: dir, env: { MTOOL_CONFIG_MODULE: 'other.ts' } }));
    expect(e.exitCode).toBe(2);
    expect(e.message).toBe(
      'Ambiguous configuration: mtool.config.ts exists at the project root and MTOOL_CONFIG_MODULE names other.ts. Remove one: delete or rename the root file to use the module, or unset MTOOL_CONFIG_MODULE',
    );
  });

  it('accepts MTOOL_CONFIG_MODULE naming the root file itself', async () => {
    const dir = await project({ 'mtool.config.ts': IMPORT + sqliteDb('a', 'default: true') });
    expect((await loadConfig({ cwd: dir, env: { MTOOL_CONFIG_MODULE: 'mtool.config.ts' } })).source.kind).toBe('root-file');
  });

  it('prefers the root file over scan discovery', async () => {
    const dir = await project({ 'mtool.config.ts': IMPORT + sqliteDb('root', 'default: true'), 'lib/other.ts': IMPORT + sqliteDb('scanned', 'default: true') });
    expect((await loadConfig({ cwd: dir, env: noEnv })).databases.map((d) => d.name)).toEqual(['root']);
  });
});

describe('scan discovery', () => {
  it('finds the one file calling databaseConfig( and loads a root-level one isolated', async () => {
    const dir = await project({ 'databases.ts': IMPORT + sqliteDb('app', 'default: true'), 'readme.md': 'databaseConfig(' });
    const config = await loadConfig({ cwd: dir, env: noEnv });
    expect(config.source).toEqual({ kind: 'scan', files: [join(dir, 'databases.ts')] });
    const withImport = await project({ 'databases.ts': "import { x } from './x.js';\n" + IMPORT + sqliteDb('app', 'default: true') + 'console.log(x);\n', 'x.ts': 'export const x = 1;' });
    const e = await rejection(() => loadConfig({ cwd: withImport, env: noEnv }));
    expect(e.message).toContain("databases.ts imports './x.js': refused by the configuration sandbox");
  });

  it('finds classes extending MtoolDatabase and loads a subfolder file of a package in-package', async () => {
    const dir = await project({
      'package.json': '{"name":"proj","type":"module"}',
      'src/db/databases.ts':
        "import { MtoolDatabase } from 'mtool';\nimport { url } from './url.js';\nexport class App extends MtoolDatabase { static databaseName = 'app'; static default = true; static databaseType = 'sqlite' as const; static databaseUrl = url; }\n",
      'src/db/url.ts': "export const url = 'sqlite:///scan.db';\n",
    });
    const config = await loadConfig({ cwd: dir, env: noEnv });
    expect(config.source).toEqual({ kind: 'scan', files: [join(dir, 'src', 'db', 'databases.ts')] });
    expect(config.databases[0]).toMatchObject({ name: 'app', url: 'sqlite:///scan.db' });
  });

  it('loads a subfolder file isolated when no package.json makes it part of a package', async () => {
    const dir = await project({ 'cfg/databases.ts': "import { u } from './u.js';\n" + IMPORT + sqliteDb('app', 'default: true') + 'void u;\n', 'cfg/u.ts': 'export const u = 1;' });
    const e = await rejection(() => loadConfig({ cwd: dir, env: noEnv }));
    expect(e.message).toContain("cfg/databases.ts imports './u.js': refused by the configuration sandbox (isolated file cfg/databases.ts)");
  });

  it('ignores node_modules, dist, dot-folders and declaration files', async () => {
    const dir = await project({
      'config.ts': IMPORT + sqliteDb('app', 'default: true'),
      'node_modules/x/index.js': 'databaseConfig({})',
      'dist/config.js': 'databaseConfig({})',
      '.hidden/config.ts': 'databaseConfig({})',
      'types/config.d.ts': 'declare function databaseConfig(x: unknown): void; databaseConfig(',
    });
    expect((await loadConfig({ cwd: dir, env: noEnv })).source.files).toEqual([join(dir, 'config.ts')]);
  });

  it('fails fast when several files declare databases, naming them and the way out', async () => {
    const dir = await project({ 'a.ts': IMPORT + sqliteDb('a', 'default: true'), 'lib/b.ts': IMPORT + sqliteDb('b') });
    const e = await rejection(() => loadConfig({ cwd: dir, env: noEnv }));
    expect(e.exitCode).toBe(2);
    expect(e.message).toBe(
      'Ambiguous configuration: several files declare databases: a.ts, lib/b.ts. Set MTOOL_CONFIG_MODULE to the one module that declares (or imports) them all, or move them into mtool.config.ts',
    );
  });

  it('says to run mtool init when there is no configuration at all', async () => {
    const dir = await project({ 'src/index.ts': 'export const x = 1;' });
    const e = await rejection(() => loadConfig({ cwd: dir, env: noEnv }));
    expect(e.code).toBe('MTOOL_CONFIG');
    expect(e.exitCode).toBe(2);
    expect(e.message).toContain('No mtool configuration found in');
    expect(e.message).toContain('run `mtool init`');
  });

  it('skips a symlink leading outside the root', async () => {
    const elsewhere = await project({ 'db.ts': IMPORT + sqliteDb('outside', 'default: true') });
    const dir = await project({ 'linked.ts': { symlink: join(elsewhere, 'db.ts') } });
    const e = await rejection(() => loadConfig({ cwd: dir, env: noEnv }));
    expect(e.message).toContain('No mtool configuration found');
  });
});

describe('loading never connects', () => {
  it('loads PostgreSQL, MySQL and ClickHouse entries pointing at closed ports', async () => {
    const dir = await project({
      'mtool.config.ts':
        IMPORT +
        "databaseConfig({ databaseName: 'pg', default: true, databaseType: 'postgresql', databaseUrl: 'postgresql://u:p@127.0.0.1:1/x', pgSchema: 'app', modelPaths: ['pg'] });\n" +
        "databaseConfig({ databaseName: 'my', databaseType: 'mysql', databaseUrl: 'mysql://u:p@127.0.0.1:1/x', modelPaths: ['my'] });\n" +
        "databaseConfig({ databaseName: 'ch', databaseType: 'clickhouse', databaseUrl: 'http://127.0.0.1:1/x', modelPaths: ['ch'] });\n",
    });
    const started = Date.now();
    const config = await loadConfig({ cwd: dir, env: noEnv });
    expect(config.databases.map((d) => d.type)).toEqual(['postgresql', 'mysql', 'clickhouse']);
    expect(Date.now() - started).toBeLessThan(5000);
  });
});

describe('selectDatabases', () => {
  it('selects by name, all, or the default; an unknown name lists the known ones', async () => {
    const dir = await project({
      'mtool.config.ts': IMPORT + sqliteDb('a', "modelPaths: ['a']") + sqliteDb('b', "default: true, modelPaths: ['b']"),
    });
    const config = await loadConfig({ cwd: dir, env: noEnv });
    expect(selectDatabases(config, {}).map((d) => d.name)).toEqual(['b']);
    expect(selectDatabases(config, { database: 'a' }).map((d) => d.name)).toEqual(['a']);
    expect(selectDatabases(config, { all: true }).map((d) => d.name)).toEqual(['a', 'b']);
    let e: Error & { exitCode?: number } = new Error();
    try {
      selectDatabases(config, { database: 'c' });
    } catch (err) {
      e = err as Error;
    }
    expect(e.message).toBe("Unknown database 'c'; configured: a, b (`mtool database list` shows them)");
    expect(e).toMatchObject({ code: 'MTOOL_USAGE', exitCode: 2 });
    expect(() => selectDatabases(config, { database: 'a', all: true, named: 'a database name' })).toThrow('a database name and --all cannot be combined: name one database, or use --all for every one');
  });

  it('runs loads one after another without mixing their registries', async () => {
    const dirs = await Promise.all(['one', 'two', 'three'].map((n) => project({ 'mtool.config.ts': IMPORT + sqliteDb(n, 'default: true') })));
    const loaded = await Promise.all(dirs.map((cwd) => loadConfig({ cwd, env: noEnv })));
    expect(loaded.map((c) => c.databases.map((d) => d.name))).toEqual([['one'], ['two'], ['three']]);
  });
});

describe('compiled-module cache', () => {
  it('reuses the compiled config while its inputs are unchanged, and recompiles when an imported file changes', async () => {
    const dir = await project({
      'config/db.ts': "import { databaseConfig } from 'mtool';\nimport { url } from './url.js';\ndatabaseConfig({ databaseName: 'app', default: true, databaseType: 'sqlite', databaseUrl: url });\n",
      'config/url.ts': "export const url = 'sqlite:///one.db';\n",
    });
    const env = { MTOOL_CONFIG_MODULE: 'config/db.ts' };
    expect((await loadConfig({ cwd: dir, env })).databases[0]!.url).toBe('sqlite:///one.db');
    const cached = (await readdir(join(dir, '.mtool', 'cache'))).filter((f) => f.endsWith('.mjs'));
    expect(cached).toHaveLength(1);
    // Same inputs: the same bundle is used again, and the module runs again (it registers its databases).
    expect((await loadConfig({ cwd: dir, env })).databases[0]!.url).toBe('sqlite:///one.db');
    expect((await readdir(join(dir, '.mtool', 'cache'))).filter((f) => f.endsWith('.mjs'))).toEqual(cached);
    // A change in a bundled relative import invalidates the entry's cached bundle.
    await writeFile(join(dir, 'config', 'url.ts'), "export const url = 'sqlite:///two.db';\n");
    expect((await loadConfig({ cwd: dir, env })).databases[0]!.url).toBe('sqlite:///two.db');
  });

  it('never serves a cached bundle once the file gains an import the sandbox refuses', async () => {
    const dir = await project({ 'mtool.config.ts': IMPORT + sqliteDb('app', 'default: true') });
    await loadConfig({ cwd: dir, env: noEnv });
    await writeFile(join(dir, 'mtool.config.ts'), "import 'node:fs';\n" + IMPORT + sqliteDb('app', 'default: true'));
    await expect(loadConfig({ cwd: dir, env: noEnv })).rejects.toThrow(/imports 'node:fs': refused by the configuration sandbox/);
  });
});
