import { existsSync } from 'node:fs';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseMigrationFile } from '../../src/parser/migration-file.js';
import { runMtool, tempProject } from '../support/cli.js';
import { writeProject } from './helpers/project.js';

let project: Awaited<ReturnType<typeof tempProject>>;
beforeEach(async () => {
  project = await tempProject();
});
afterEach(async () => project.dispose());

const mtool = (...args: string[]) => runMtool(args, { cwd: project.dir });

describe('mtool init', () => {
  it('creates the folders and a SQLite config, then keeps everything on a second run', async () => {
    const first = await mtool('init');
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('created mtool.config.ts');
    expect(first.stdout).toContain('created migrations/default/');
    const config = await readFile(join(project.dir, 'mtool.config.ts'), 'utf8');
    expect(config).toContain("databaseUrl: 'sqlite:///db.sqlite3'");
    expect(config).toContain('databaseName: "default"');

    await writeFile(join(project.dir, 'mtool.config.ts'), `${config}// edited by the user\n`);
    const second = await mtool('init');
    expect(second.code).toBe(0);
    expect(second.stdout).toMatch(/kept +mtool\.config\.ts/);
    expect(second.stdout).toMatch(/kept +migrations\/default\//);
    expect(await readFile(join(project.dir, 'mtool.config.ts'), 'utf8')).toContain('// edited by the user');
    expect(await readdir(project.dir)).toEqual(expect.arrayContaining(['migrations', 'mtool.config.ts']));
  });

  it('uses --database for the scaffold and the folder', async () => {
    const result = await mtool('init', '--database', 'app', '--json');
    expect(result.code).toBe(0);
    const data = JSON.parse(result.stdout);
    expect(data.database).toBe('app');
    expect(data.files).toContainEqual({ path: 'migrations/app/', action: 'created' });
    expect(existsSync(join(project.dir, 'migrations/app'))).toBe(true);
  });

  it('creates the folder of the configured default database when a config exists', async () => {
    await writeProject(project.dir, [{ databaseName: 'main', default: true, databaseType: 'sqlite', databaseUrl: 'sqlite:///main.db' }]);
    const result = await mtool('init');
    expect(result.code).toBe(0);
    expect(existsSync(join(project.dir, 'migrations/main'))).toBe(true);
    const unknown = await mtool('init', '--database', 'other');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("database 'other' is not in the configuration (configured: main)");
  });

  it('is followed by settings show --json printing the database', async () => {
    expect((await mtool('init')).code).toBe(0);
    const result = await mtool('settings', 'show', '--json');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      databases: [
        {
          database_name: 'default',
          default: true,
          database_type: 'sqlite',
          database_url: 'sqlite:///db.sqlite3',
          migrations_dir: 'migrations/default',
          migration_table: '_mtool_migrations',
          seed_table: '_mtool_seeds',
          model_paths: [],
          dev_database_type: null,
          dev_database_url: null,
          overlap_models: false,
        },
      ],
    });
  });
});

describe('mtool new', () => {
  beforeEach(async () => {
    await writeProject(project.dir, [{ databaseName: 'app', default: true, databaseType: 'sqlite', databaseUrl: 'sqlite:///app.db' }]);
  });
  const files = () => readdir(join(project.dir, 'migrations/app')).then((f) => f.sort());

  it('numbers versioned migrations from the highest existing version', async () => {
    expect((await mtool('new', 'Create users')).stdout).toBe('created migrations/app/app__0001_create_users.sql\n');
    expect((await mtool('new', 'jump', '--version', '0007')).code).toBe(0);
    expect((await mtool('new', 'after jump')).stdout).toBe('created migrations/app/app__0008_after_jump.sql\n');
    expect(await files()).toEqual(['app__0001_create_users.sql', 'app__0007_jump.sql', 'app__0008_after_jump.sql']);
  });

  it('writes a scaffold the parser accepts, with empty upgrade and rollback sections', async () => {
    await mtool('new', 'create users');
    const path = join(project.dir, 'migrations/app/app__0001_create_users.sql');
    const content = await readFile(path);
    const parsed = parseMigrationFile({ filename: 'app__0001_create_users.sql', path, content, database: 'app', dialect: 'sqlite' });
    expect(parsed).toMatchObject({ kind: 'versioned', version: '0001', upgrade: [], rollback: [] });
  });

  it('creates RA__ and ROC__ files for --type ra / runs_on_change', async () => {
    expect((await mtool('new', 'refresh views', '--type', 'ra')).code).toBe(0);
    expect((await mtool('new', 'functions', '-t', 'runs_on_change')).code).toBe(0);
    expect(await files()).toEqual(['RA__refresh_views.sql', 'ROC__functions.sql']);
  });

  it('refuses a version already used, and --version with a repeatable type', async () => {
    await mtool('new', 'first');
    const used = await mtool('new', 'again', '--version', '0001');
    expect(used.code).toBe(2);
    expect(used.stderr).toContain("error: version 0001 of database 'app' is already used by app__0001_first.sql");
    const repeatable = await mtool('new', 'x', '--type', 'roc', '--version', '0002');
    expect(repeatable.code).toBe(2);
    expect(repeatable.stderr).toContain('--version applies to versioned migrations only');
    const bad = await mtool('new', 'x', '--version', '12');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--version '12' must be exactly four digits");
    expect(await files()).toEqual(['app__0001_first.sql']);
  });

  it('never replaces an existing file', async () => {
    await mtool('new', 'refresh', '--type', 'ra');
    const path = join(project.dir, 'migrations/app/RA__refresh.sql');
    await writeFile(path, '-- upgrade\nSELECT 42;\n');
    const again = await mtool('new', 'refresh', '--type', 'ra');
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('RA__refresh.sql already exists');
    expect(await readFile(path, 'utf8')).toBe('-- upgrade\nSELECT 42;\n');
  });

  it('gives one distinct version to each of several concurrent runs, or refuses', async () => {
    const results = await Promise.all(['a', 'b', 'c', 'd'].map((d) => mtool('new', d)));
    const names = await files();
    const versions = names.map((n) => n.slice(5, 9));
    expect(new Set(versions).size).toBe(versions.length);
    for (const r of results) expect([0, 2]).toContain(r.code);
    expect(names.length).toBe(results.filter((r) => r.code === 0).length);
  });

  it('prints the created file as JSON under --json and refuses an unknown --database', async () => {
    const result = await mtool('new', 'x', '--json');
    expect(JSON.parse(result.stdout)).toEqual({ database_name: 'app', filename: 'app__0001_x.sql', path: 'migrations/app/app__0001_x.sql', kind: 'versioned', version: '0001' });
    const unknown = await mtool('new', 'x', '--database', 'nope');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("Unknown database 'nope'; configured: app");
  });

  it('refuses a description without letters or digits', async () => {
    const result = await mtool('new', '***');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("the description '***' has no letters or digits");
  });
});
