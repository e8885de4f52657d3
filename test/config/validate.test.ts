import { describe, expect, it } from 'vitest';
import { announceWarnings, loadConfig, selectDatabases } from '../../src/main/config/load-config.js';
import { configureLogging } from '../../src/main/log.js';
import { testEntry } from '../support/database-entry.js';
import { IMPORT, project, rejection } from './project.js';

/** Load a root config made of these `databaseConfig({...})` bodies. */
async function load(bodies: string[], opts: { dev?: boolean; files?: Record<string, string> } = {}) {
  const dir = await project({ 'mtool.config.ts': IMPORT + bodies.map((b) => `databaseConfig({ ${b} });\n`).join(''), ...opts.files });
  return { dir, config: await loadConfig({ cwd: dir, dev: opts.dev ?? false, env: {} }) };
}

async function failure(bodies: string[], opts: { dev?: boolean; files?: Record<string, string> } = {}) {
  const dir = await project({ 'mtool.config.ts': IMPORT + bodies.map((b) => `databaseConfig({ ${b} });\n`).join(''), ...opts.files });
  const e = await rejection(() => loadConfig({ cwd: dir, dev: opts.dev ?? false, env: {} }));
  expect(e.exitCode).toBe(2);
  return e;
}

const lite = (name: string, extra = '') => `databaseName: '${name}', databaseType: 'sqlite', databaseUrl: 'sqlite:///${name}.db'${extra ? `, ${extra}` : ''}`;

describe('rule 6: every validation failure aborts with its own message (exit 2)', () => {
  it('no default', async () => {
    const e = await failure([lite('a', "modelPaths: ['a']"), lite('b', "modelPaths: ['b']")]);
    expect(e.code).toBe('MTOOL_CONFIG');
    expect(e.message).toBe('No default database: set default: true on exactly one of a, b');
  });

  it('no default with a single database too (the spec wants exactly one)', async () => {
    expect((await failure([lite('a')])).message).toBe('No default database: set default: true on exactly one of a');
  });

  it('two defaults', async () => {
    const e = await failure([lite('a', "default: true, modelPaths: ['a']"), lite('b', "default: true, modelPaths: ['b']")]);
    expect(e.message).toBe('Several default databases: a, b all have default: true; keep it on exactly one');
  });

  it('duplicate databaseName', async () => {
    const e = await failure([lite('x', 'default: true'), "databaseName: 'x', databaseType: 'sqlite', databaseUrl: 'sqlite:///other.db'"]);
    expect(e.message).toBe("Duplicate databaseName 'x'");
  });

  it('duplicate URL, masked in the message', async () => {
    const url = 'postgresql://app:hunter2@db.example:5432/shop';
    const e = await failure([
      `databaseName: 'a', default: true, databaseType: 'postgresql', databaseUrl: '${url}', pgSchema: 'a', modelPaths: ['a']`,
      `databaseName: 'b', databaseType: 'postgresql', databaseUrl: '${url}', pgSchema: 'b', modelPaths: ['b']`,
    ]);
    expect(e.message).toBe("Databases 'a' and 'b' have the same databaseUrl postgresql://app:***@db.example:5432/shop; each database needs its own");
    expect(e.message).not.toContain('hunter2');
  });

  it('duplicate physical target reached with other credentials', async () => {
    const e = await failure([
      "databaseName: 'a', default: true, databaseType: 'postgresql', databaseUrl: 'postgresql://app:x@127.0.0.1:5432/shop', pgSchema: 'a', modelPaths: ['a']",
      "databaseName: 'b', databaseType: 'postgresql', databaseUrl: 'postgres://admin:y@localhost/shop?sslmode=disable', pgSchema: 'b', modelPaths: ['b']",
    ]);
    expect(e.message).toBe("Databases 'a' and 'b' reach the same physical database (postgresql://localhost:5432/shop) with different URLs; each database needs its own target");
  });

  it('duplicate physical target: one SQLite file named two ways', async () => {
    const e = await failure([
      "databaseName: 'a', default: true, databaseType: 'sqlite', databaseUrl: 'sqlite:///data/app.db', modelPaths: ['a']",
      "databaseName: 'b', databaseType: 'sqlite', databaseUrl: 'sqlite:///./data/../data/app.db?timeout=3', modelPaths: ['b']",
    ]);
    expect(e.message).toContain("Databases 'a' and 'b' reach the same physical database (sqlite:");
  });

  it('separate in-memory SQLite databases are not one target', async () => {
    const { config } = await load([
      "databaseName: 'a', default: true, databaseType: 'sqlite', databaseUrl: 'sqlite:///:memory:', modelPaths: ['a']",
      "databaseName: 'b', databaseType: 'sqlite', databaseUrl: 'sqlite://', modelPaths: ['b']",
    ]);
    expect(config.databases).toHaveLength(2);
  });

  it('missing modelPaths with several databases', async () => {
    const e = await failure([lite('a', "default: true, modelPaths: ['a']"), lite('b'), lite('c')]);
    expect(e.message).toBe("Missing modelPaths for 'b', 'c': with several databases every database needs modelPaths (files, folders or globs relative to the project root)");
  });

  it('modelPaths are optional with one database', async () => {
    expect((await load([lite('a', 'default: true')])).config.databases[0]!.modelPaths).toEqual([]);
  });

  it.each([
    [['models'], ['models']],
    [['./models/'], ['models']],
    [['models'], ['models/user.ts']],
    [['.'], ['lib']],
    [['models/**/*.ts'], ['models']],
    [['src'], ['src/models/*.ts']],
  ])('overlapping modelPaths %j and %j', async (a, b) => {
    const e = await failure([lite('a', `default: true, modelPaths: ${JSON.stringify(a)}`), lite('b', `modelPaths: ${JSON.stringify(b)}`)]);
    expect(e.message).toMatch(/^Databases 'a' and 'b' have overlapping modelPaths \('.+' and '.+'\)\. Separate them, or set overlapModels: true on one of them$/);
  });

  it('overlapping globs are found through the files they match', async () => {
    const files = { 'models/user.ts': '', 'models/order.ts': '', 'models/extra/log.ts': '' };
    const e = await failure([lite('a', "default: true, modelPaths: ['**/user.ts']"), lite('b', "modelPaths: ['models/*.ts']")], { files });
    expect(e.message).toBe("Databases 'a' and 'b' have overlapping modelPaths: both match 'models/user.ts'. Separate them, or set overlapModels: true on one of them");
    const ok = await load([lite('a', "default: true, modelPaths: ['**/log.ts']"), lite('b', "modelPaths: ['models/*.ts']")], { files });
    expect(ok.config.databases).toHaveLength(2);
  });

  it('sibling folders and files do not overlap', async () => {
    const { config } = await load([lite('a', "default: true, modelPaths: ['models/a', 'shared/a.ts']"), lite('b', "modelPaths: ['models/ab', 'shared/ab.ts']")]);
    expect(config.databases.map((d) => d.modelPaths)).toEqual([['models/a', 'shared/a.ts'], ['models/ab', 'shared/ab.ts']]);
  });

  it('overlapModels permits overlapping paths and tables', async () => {
    const { config } = await load([
      lite('a', "default: true, modelPaths: ['models'], modelTables: ['users'], overlapModels: true"),
      lite('b', "modelPaths: ['models'], modelTables: ['users']"),
    ]);
    expect(config.databases.map((d) => d.overlapModels)).toEqual([true, false]);
  });

  it('overlapping modelTables', async () => {
    const e = await failure([lite('a', "default: true, modelPaths: ['a'], modelTables: ['users', 'orders']"), lite('b', "modelPaths: ['b'], modelTables: ['orders', 'users']")]);
    expect(e.message).toBe("Databases 'a' and 'b' both list modelTables 'users', 'orders'. Separate them, or set overlapModels: true on one of them");
  });

  it('modelPaths leaving the project root', async () => {
    const e = await failure([lite('a', "default: true, modelPaths: ['../elsewhere']")]);
    expect(e.message).toBe("Database 'a': modelPaths entry '../elsewhere' must be relative to the project root and stay inside it");
  });
});

describe('field checks', () => {
  it('an unknown field (typo) is named with a suggestion', async () => {
    const e = await failure([lite('a', "default: true, modelPath: ['x']")]);
    expect(e.message).toContain("Unknown field 'modelPath' in databaseConfig(...) in mtool.config.ts (did you mean 'modelPaths'?); allowed: databaseName, default,");
  });

  it('a bad databaseType lists the allowed ones', async () => {
    const e = await failure(["databaseName: 'a', default: true, databaseType: 'postgres', databaseUrl: 'postgres://h/db'"]);
    expect(e.message).toBe(`Database 'a': databaseType "postgres" is not a database type (did you mean 'postgresql'?); use one of postgresql, mysql, mariadb, sqlite, clickhouse`);
  });

  it('missing databaseName, databaseType or databaseUrl', async () => {
    expect((await failure(["databaseType: 'sqlite', databaseUrl: 'sqlite:///a.db'"])).message).toBe('databaseConfig(...) in mtool.config.ts has no databaseName; every database needs one (a string)');
    expect((await failure(["databaseName: 'a', databaseUrl: 'sqlite:///a.db'"])).message).toContain("Database 'a': databaseType is required");
    expect((await failure(["databaseName: 'a', databaseType: 'sqlite'"])).message).toContain("Database 'a': databaseUrl is required");
  });

  it('a databaseName that cannot be a folder name', async () => {
    expect((await failure([lite('../x', 'default: true')])).message).toContain("databaseName '../x' in databaseConfig(...) in mtool.config.ts is not allowed");
  });

  it('RA and ROC as databaseName: their versioned files would read as repeatable ones', async () => {
    for (const name of ['RA', 'ROC']) {
      expect((await failure([lite(name, 'default: true')])).message).toContain(`databaseName '${name}' in databaseConfig(...) in mtool.config.ts is not allowed: ${name}__ starts repeatable migration files`);
    }
  });

  it('wrongly typed values', async () => {
    expect((await failure([lite('a', "default: 'yes'")])).message).toBe('Database \'a\': default must be true or false (got "yes")');
    expect((await failure([lite('a', "default: true, modelPaths: 'models'")])).message).toBe("Database 'a': modelPaths must be a list of non-empty strings");
    expect((await failure([lite('a', "default: true, seedTable: 'seed table'")])).message).toContain("Database 'a': seedTable 'seed table' must be a plain table name");
    expect((await failure([lite('a', "default: true, pgSchema: 'app'")])).message).toBe("Database 'a': pgSchema is set but neither databaseType 'sqlite' nor the dev type is postgresql; remove it");
  });

  it('URL errors name the database and the field, and never the password', async () => {
    const e = await failure(["databaseName: 'main', default: true, databaseType: 'postgresql', databaseUrl: 'postgresql://u:topsecret@h/db?sslmode=maybe'"]);
    expect(e.code).toBe('MTOOL_URL');
    expect(e.message).toBe("Database 'main': databaseUrl: URL option 'sslmode' must be one of disable, allow, prefer, require, verify-ca, verify-full (got 'maybe')");
    const scheme = await failure(["databaseName: 'main', default: true, databaseType: 'mysql', databaseUrl: 'postgresql://u:topsecret@h/db'"]);
    expect(scheme.message).toContain("Database 'main': databaseUrl: URL scheme 'postgresql://' does not fit databaseType 'mysql'");
    expect(scheme.message).not.toContain('topsecret');
  });

  it('fills defaults', async () => {
    const { dir, config } = await load([lite('a', 'default: true')]);
    expect(config.databases[0]).toEqual(testEntry(dir, 'a', 'sqlite', 'sqlite:///a.db'));
    expect(config.warnings).toEqual([]);
  });
});

describe('rule 7: defaults standing in for missing values are warned about', () => {
  it('pgSchema unset on postgresql, a URL without database, ClickHouse default database', async () => {
    const lines: string[] = [];
    configureLogging({ level: 'warning', json: true, sink: { write: (l) => void lines.push(l) } });
    try {
      const { config } = await load([
        "databaseName: 'pg', default: true, databaseType: 'postgresql', databaseUrl: 'postgresql://app@h', modelPaths: ['pg']",
        "databaseName: 'ch', databaseType: 'clickhouse', databaseUrl: 'http://h:8123', modelPaths: ['ch']",
        "databaseName: 'lite', databaseType: 'sqlite', databaseUrl: 'sqlite:///l.db', devDatabaseUrl: 'sqlite:///l-dev.db', modelPaths: ['lite']",
      ]);
      expect(config.warnings).toEqual([
        "Database 'pg': pgSchema is not set; using PostgreSQL schema 'public'",
        "Database 'pg': the URL names no database; PostgreSQL falls back to the database named after the user ('app')",
        "Database 'ch': the URL names no database; using ClickHouse database 'default'",
        "Database 'lite': devDatabaseType is not set; --dev uses databaseType 'sqlite' with devDatabaseUrl",
      ]);
      // Logged for the databases a command works on, each once.
      expect(lines).toEqual([]);
      selectDatabases(config, { database: 'ch' });
      selectDatabases(config, { database: 'ch' });
      const records = () => lines.map((l) => JSON.parse(l) as Record<string, unknown>).map((r) => [r.level, r.db_name, r.message]);
      expect(records()).toEqual([['WARNING', 'ch', "Database 'ch': the URL names no database; using ClickHouse database 'default'"]]);
      lines.length = 0;
      announceWarnings(config);
      expect(records()).toEqual(config.warnings!.filter((m) => !m.startsWith("Database 'ch'")).map((m) => ['WARNING', /'(\w+)'/.exec(m)![1], m]));
    } finally {
      configureLogging({ level: 'info', json: false, sink: undefined });
    }
  });

  it('no warning when the values are given', async () => {
    const { config } = await load(["databaseName: 'pg', default: true, databaseType: 'postgresql', databaseUrl: 'postgresql://app@h/db', pgSchema: 'app'"]);
    expect(config.warnings).toEqual([]);
  });
});

describe('rule 8: --dev', () => {
  const bodies = [
    "databaseName: 'app', default: true, databaseType: 'postgresql', databaseUrl: 'postgresql://u:p@db.example/app', databaseUrlAsync: 'postgresql+asyncpg://u:p@db.example/app', pgSchema: 'app', devDatabaseType: 'sqlite', devDatabaseUrl: 'sqlite:///dev.db', modelPaths: ['app']",
    "databaseName: 'audit', databaseType: 'sqlite', databaseUrl: 'sqlite:///audit.db', modelPaths: ['audit']",
  ];

  it('swaps type and URL for the dev pair and drops the async URL', async () => {
    const { config } = await load(bodies, { dev: true });
    expect(config.dev).toBe(true);
    expect(config.databases[0]).toMatchObject({ type: 'sqlite', url: 'sqlite:///dev.db', urlAsync: undefined, configuredType: 'postgresql', configuredUrl: 'postgresql://u:p@db.example/app' });
    expect(selectDatabases(config, {}).map((d) => d.url)).toEqual(['sqlite:///dev.db']);
  });

  it('keeps the configured pair without --dev', async () => {
    const { config } = await load(bodies);
    expect(config.databases[0]).toMatchObject({ type: 'postgresql', url: 'postgresql://u:p@db.example/app', devType: 'sqlite', devUrl: 'sqlite:///dev.db' });
  });

  it('fails when a selected database has no dev URL', async () => {
    const { config } = await load(bodies, { dev: true });
    let message = '';
    try {
      selectDatabases(config, { all: true });
    } catch (e) {
      message = (e as Error).message;
      expect((e as { exitCode: number }).exitCode).toBe(2);
    }
    expect(message).toBe("--dev was given but 'audit' has no devDatabaseUrl; set devDatabaseUrl (and devDatabaseType if it differs) or drop --dev");
  });

  it('validates the dev URL against the dev type', async () => {
    const e = await failure([lite('a', "default: true, devDatabaseType: 'postgresql', devDatabaseUrl: 'sqlite:///x.db'")]);
    expect(e.message).toContain("Database 'a': devDatabaseUrl: URL scheme 'sqlite://' does not fit databaseType 'postgresql'");
    const noUrl = await failure([lite('a', "default: true, devDatabaseType: 'postgresql'")]);
    expect(noUrl.message).toBe("Database 'a': devDatabaseType 'postgresql' is set but devDatabaseUrl is not; --dev needs both (or remove devDatabaseType)");
  });

  it('two databases sharing one dev target are refused under --dev', async () => {
    const e = await failure([lite('a', "default: true, modelPaths: ['a'], devDatabaseUrl: 'sqlite:///dev.db'"), lite('b', "modelPaths: ['b'], devDatabaseUrl: 'sqlite:///dev.db'")], { dev: true });
    expect(e.message).toBe("Databases 'a' and 'b' have the same URL used under --dev sqlite:///dev.db; each database needs its own");
  });
});
