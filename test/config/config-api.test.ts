import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  MtoolDatabase,
  classFields,
  configRegistry,
  databaseConfig,
  env,
  envSources,
  isAbstractDatabaseClass,
  isDatabaseClass,
} from '../../src/config-api.js';
import { loadConfig } from '../../src/main/config/load-config.js';
import { IMPORT, project, rejection } from './project.js';

describe('databaseConfig and the class form', () => {
  let saved: ReturnType<typeof configRegistry>['entries'];
  beforeEach(() => {
    saved = configRegistry().entries;
    configRegistry().entries = [];
  });
  afterEach(() => {
    configRegistry().entries = saved;
  });

  it('records the entry in the registry shared through globalThis and returns a frozen handle', () => {
    const handle = databaseConfig({ databaseName: 'app', default: true, databaseType: 'sqlite', databaseUrl: 'sqlite:///a.db', modelPaths: ['m'] });
    expect(handle).toEqual({ databaseName: 'app', databaseType: 'sqlite', config: { databaseName: 'app', default: true, databaseType: 'sqlite', databaseUrl: 'sqlite:///a.db', modelPaths: ['m'] } });
    expect(Object.isFrozen(handle.config.modelPaths)).toBe(true);
    const registry = (globalThis as Record<symbol, unknown>)[Symbol.for('mtool.config.registry')] as { entries: { input: unknown; origin: unknown }[] };
    expect(registry.entries.map((e) => [e.input, e.origin])).toEqual([[{ databaseName: 'app', default: true, databaseType: 'sqlite', databaseUrl: 'sqlite:///a.db', modelPaths: ['m'] }, { kind: 'function' }]]);
  });

  it('freezes the copy in the handle but never the objects the user passed in', () => {
    const settings = new Map([['k', 1]]);
    const paths = ['m'];
    const handle = databaseConfig({ databaseName: 'a', databaseType: 'sqlite', databaseUrl: 'sqlite:///a.db', modelPaths: paths, plugins: { x: { settings } } });
    expect(Object.isFrozen(handle.config.plugins)).toBe(true);
    expect(Object.isFrozen(paths)).toBe(false);
    expect(Object.isFrozen(settings)).toBe(false);
    expect((handle.config.plugins!.x as { settings: unknown }).settings).toBe(settings);
  });

  it('X.handle equals what databaseConfig returns for the same fields, inherited ones included', () => {
    abstract class Base extends MtoolDatabase {
      static override abstract = true;
      static override databaseType = 'postgresql' as const;
      static override plugins = { 'mtool-seeds': { dir: 'seeds' } };
      static override pgSchema = 'app';
    }
    class App extends Base {
      static override databaseName = 'app';
      static override default = true;
      static override databaseUrl = 'postgresql://h/app';
    }
    class Reporting extends Base {
      static override databaseName = 'reporting';
      static override databaseUrl = 'postgresql://h/reporting';
      static override pgSchema = 'reports';
    }
    expect(App.handle).toEqual(
      databaseConfig({ databaseName: 'app', default: true, databaseType: 'postgresql', databaseUrl: 'postgresql://h/app', pgSchema: 'app', plugins: { 'mtool-seeds': { dir: 'seeds' } } }),
    );
    expect(Reporting.handle.config.pgSchema).toBe('reports');
    // Reading .handle registers nothing: only the databaseConfig call above did.
    expect(configRegistry().entries).toHaveLength(1);
  });

  it('reads abstract as an own property only', () => {
    abstract class Base extends MtoolDatabase {
      static override abstract = true;
    }
    class Concrete extends Base {}
    expect(isAbstractDatabaseClass(Base)).toBe(true);
    expect(isAbstractDatabaseClass(Concrete)).toBe(false);
  });

  it('recognises subclasses by the brand, also from another copy of mtool, but not the base or plain classes', () => {
    class Mine extends MtoolDatabase {}
    // What another copy's MtoolDatabase looks like: a class carrying the same global brand.
    class OtherCopyBase {}
    Object.defineProperty(OtherCopyBase, Symbol.for('mtool.database'), { value: true });
    class Foreign extends OtherCopyBase {}
    class Deeper extends Foreign {}
    expect([Mine, Foreign, Deeper].map(isDatabaseClass)).toEqual([true, true, true]);
    expect([MtoolDatabase, OtherCopyBase, class Plain {}, () => 1, {}, null].map(isDatabaseClass)).toEqual([false, false, false, false, false, false]);
  });

  it('classFields collects own statics of every user class in the chain, typos included', () => {
    class Base extends MtoolDatabase {
      static override databaseType = 'sqlite' as const;
      static helper() {
        return 1;
      }
    }
    class Typo extends Base {
      static databseName = 'x';
    }
    expect(classFields(Typo)).toEqual({ databaseType: 'sqlite', databseName: 'x' });
  });
});

describe('env()', () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
  });

  it('returns the variable and remembers it as env(NAME)', () => {
    process.env.MTOOL_TEST_ENV_URL = 'sqlite:///from-env.db';
    expect(env('MTOOL_TEST_ENV_URL')).toBe('sqlite:///from-env.db');
    expect(envSources().get('sqlite:///from-env.db')).toBe('env(MTOOL_TEST_ENV_URL)');
  });

  it('uses the fallback when the variable is unset or empty', () => {
    delete process.env.MTOOL_TEST_ENV_UNSET;
    expect(env('MTOOL_TEST_ENV_UNSET', 'sqlite:///fallback.db')).toBe('sqlite:///fallback.db');
    process.env.MTOOL_TEST_ENV_UNSET = '';
    expect(env('MTOOL_TEST_ENV_UNSET', 'sqlite:///fallback.db')).toBe('sqlite:///fallback.db');
  });

  it('fails naming the variable when it is unset without fallback', () => {
    delete process.env.MTOOL_TEST_ENV_MISSING;
    expect(() => env('MTOOL_TEST_ENV_MISSING')).toThrow(
      "Environment variable MTOOL_TEST_ENV_MISSING is not set; the configuration reads it with env('MTOOL_TEST_ENV_MISSING'). Set it, or give a fallback: env('MTOOL_TEST_ENV_MISSING', '<value>')",
    );
  });

  it('says empty, not unset, of a variable set to the empty string (DATABASE_URL= in a .env file)', () => {
    process.env.MTOOL_TEST_ENV_EMPTY = '';
    try {
      expect(() => env('MTOOL_TEST_ENV_EMPTY')).toThrow(/^Environment variable MTOOL_TEST_ENV_EMPTY is empty; the configuration reads it with env\('MTOOL_TEST_ENV_EMPTY'\)/);
    } finally {
      delete process.env.MTOOL_TEST_ENV_EMPTY;
    }
  });

  it('gives the loaded entries their URL source, and a missing variable fails the load with exit 2', async () => {
    process.env.MTOOL_TEST_APP_URL = 'sqlite:///app-from-env.db';
    process.env.MTOOL_TEST_DEV_URL = 'sqlite:///dev-from-env.db';
    const dir = await project({
      'mtool.config.ts':
        IMPORT +
        "databaseConfig({ databaseName: 'app', default: true, databaseType: 'sqlite', databaseUrl: env('MTOOL_TEST_APP_URL'), devDatabaseType: 'sqlite', devDatabaseUrl: env('MTOOL_TEST_DEV_URL'), secureValues: true, modelPaths: ['a'] });\n" +
        "databaseConfig({ databaseName: 'plain', databaseType: 'sqlite', databaseUrl: 'sqlite:///plain.db', modelPaths: ['p'] });\n",
    });
    const config = await loadConfig({ cwd: dir, env: {} });
    expect(config.databases.map((d) => [d.name, d.urlSource, d.devUrlSource, d.secureValues])).toEqual([
      ['app', 'env(MTOOL_TEST_APP_URL)', 'env(MTOOL_TEST_DEV_URL)', true],
      ['plain', undefined, undefined, false],
    ]);
    const dev = await loadConfig({ cwd: dir, dev: true, env: {} });
    expect(dev.databases[0]!.urlSource).toBe('env(MTOOL_TEST_DEV_URL)');

    delete process.env.MTOOL_TEST_APP_URL;
    const e = await rejection(() => loadConfig({ cwd: dir, env: {} }));
    expect(e.code).toBe('MTOOL_CONFIG');
    expect(e.exitCode).toBe(2);
    expect(e.message).toContain('Environment variable MTOOL_TEST_APP_URL is not set');
  });
});

describe('class form through the loader', () => {
  it('registers exported concrete subclasses of an abstract base, not the base, with inherited fields', async () => {
    const dir = await project({
      'mtool.config.ts': `${IMPORT}
export abstract class Shared extends MtoolDatabase {
  static abstract = true;
  static databaseType = 'sqlite' as const;
  static plugins = { 'mtool-seeds': { strict: true } };
}
export class App extends Shared {
  static databaseName = 'app';
  static default = true;
  static databaseUrl = 'sqlite:///app.db';
  static modelPaths = ['models/app'];
}
export class Audit extends Shared {
  static databaseName = 'audit';
  static databaseUrl = 'sqlite:///audit.db';
  static modelPaths = ['models/audit'];
}
export { App as AlsoApp };
export const appHandle = App.handle;
databaseConfig({ databaseName: 'app2', databaseType: 'sqlite', databaseUrl: 'sqlite:///app2.db', modelPaths: ['models/app2'] });
`,
    });
    const config = await loadConfig({ cwd: dir, env: {} });
    // databaseConfig ran once (app2) and the two exported classes registered (App once despite two exports).
    expect(config.databases.map((d) => [d.name, d.type, d.plugins])).toEqual([
      ['app2', 'sqlite', {}],
      ['app', 'sqlite', { 'mtool-seeds': { strict: true } }],
      ['audit', 'sqlite', { 'mtool-seeds': { strict: true } }],
    ]);
  });

  it('reports a misspelled static field with the class name and file', async () => {
    const dir = await project({
      'mtool.config.ts': `${IMPORT}export class App extends MtoolDatabase { static databaseName = 'app'; static default = true; static databaseType = 'sqlite' as const; static databaseUrl = 'sqlite:///a.db'; static migrationTabel = 'x'; }\n`,
    });
    const e = await rejection(() => loadConfig({ cwd: dir, env: {} }));
    expect(e.exitCode).toBe(2);
    expect(e.message).toContain("Unknown field 'migrationTabel' in class App in mtool.config.ts (did you mean 'migrationTable'?)");
  });

  it('the handle exported by the config equals the one databaseConfig returns', async () => {
    const dir = await project({
      'mtool.config.ts': `${IMPORT}
export class App extends MtoolDatabase { static databaseName = 'app'; static default = true; static databaseType = 'sqlite' as const; static databaseUrl = 'sqlite:///a.db'; }
export const fromClass = App.handle;
`,
    });
    const { importModule } = await import('../../src/main/config/module-loader.js');
    const saved = configRegistry().entries;
    try {
      const ns = await importModule(`${dir}/mtool.config.ts`, { root: dir, sandbox: 'isolated', env: {} });
      expect(ns.fromClass).toEqual(databaseConfig({ databaseName: 'app', default: true, databaseType: 'sqlite', databaseUrl: 'sqlite:///a.db' }));
    } finally {
      configRegistry().entries = saved;
    }
  });
});
