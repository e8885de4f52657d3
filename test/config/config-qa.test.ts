/**
 * QA of configuration errors (helper C): each bad configuration is refused before the command
 * runs, with exit code 2, a message that names the field and says what to do, and nothing
 * written: no database file, no table.
 */
import { existsSync } from 'node:fs';
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/main/config/load-config.js';
import { runMtool } from '../support/cli.js';
import { connectTo, createTestDatabase, serverStatus, type TestDatabase } from '../support/databases.js';
import { IMPORT, project, rejection } from './project.js';

const lite = (extra: string) => `databaseConfig({ databaseName: 'app', default: true, databaseType: 'sqlite', databaseUrl: 'sqlite:///app.db', ${extra} });\n`;
const MIGRATION = '-- upgrade\nCREATE TABLE t1 (id int);\n-- rollback\nDROP TABLE t1;\n';

async function configFailure(extra: string) {
  const dir = await project({ 'mtool.config.ts': IMPORT + lite(extra) });
  const e = await rejection(() => loadConfig({ cwd: dir, dev: false, env: {} }));
  expect(e.code).toBe('MTOOL_CONFIG');
  expect(e.exitCode).toBe(2);
  return e.message;
}

describe('migrationTable and seedTable may not take the name of another mtool table', () => {
  it('refuses the lock table and the model state table, in any letter case', async () => {
    expect(await configFailure("migrationTable: 'mtool_lock'")).toBe(
      "Database 'app': migrationTable 'mtool_lock' is the name of mtool's lock table; choose another name for the migration tracking table",
    );
    expect(await configFailure("migrationTable: 'MTOOL_LOCK'")).toMatch(/^Database 'app': migrationTable 'MTOOL_LOCK' is the name of mtool's lock table \(mtool_lock/);
    expect(await configFailure("seedTable: 'mtool_lock'")).toMatch(/^Database 'app': seedTable 'mtool_lock' is the name of mtool's lock table; choose another name/);
    expect(await configFailure("migrationTable: '_mtool_model_state'")).toMatch(/^Database 'app': migrationTable '_mtool_model_state' is the name of mtool's model state table; choose another name/);
  });

  it('refuses one table for both migrations and seeds, also through the default seedTable', async () => {
    expect(await configFailure("migrationTable: 'tracking', seedTable: 'Tracking'")).toBe(
      "Database 'app': migrationTable 'tracking' and seedTable 'Tracking' name the same table; migrations and seeds each need their own: choose another name for one",
    );
    expect(await configFailure("migrationTable: '_mtool_seeds'")).toBe(
      "Database 'app': migrationTable '_mtool_seeds' and seedTable '_mtool_seeds' (its default) name the same table; migrations and seeds each need their own: choose another name for one",
    );
  });

  it('still accepts reserved SQL words and mixed case (they are quoted everywhere)', async () => {
    const dir = await project({ 'mtool.config.ts': IMPORT + lite("migrationTable: 'Order', seedTable: 'select'") });
    const config = await loadConfig({ cwd: dir, dev: false, env: {} });
    expect(config.databases[0]).toMatchObject({ migrationTable: 'Order', seedTable: 'select' });
  });

  it('migrate on SQLite stops before creating the database file', async () => {
    const dir = await project({ 'mtool.config.ts': IMPORT + lite("migrationTable: 'mtool_lock'"), 'migrations/app/app__0001_one.sql': MIGRATION });
    const result = await runMtool(['migrate'], { cwd: dir });
    expect(result.stderr).toMatch(/^error: Database 'app': migrationTable 'mtool_lock' is the name of mtool's lock table/m);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect((await readdir(dir)).filter((f) => f.startsWith('app.db'))).toEqual([]);
  });
});

const pg = await serverStatus('postgresql');

describe.skipIf(!pg.reachable)('migrationTable: mtool_lock on PostgreSQL', () => {
  const dbs: TestDatabase[] = [];
  afterAll(async () => {
    for (const db of dbs) await db.drop();
  });

  it('migrate, rollback, status and lock-status are refused and create no table', async () => {
    const db = await createTestDatabase('postgresql');
    dbs.push(db);
    const body = `databaseConfig({ databaseName: 'app', default: true, databaseType: 'postgresql', databaseUrl: '${db.url}', pgSchema: 'public', migrationTable: 'mtool_lock' });\n`;
    const dir = await project({ 'mtool.config.ts': IMPORT + body, 'migrations/app/app__0001_one.sql': MIGRATION });
    for (const args of [['migrate'], ['rollback'], ['status'], ['lock-status']]) {
      const result = await runMtool(args, { cwd: dir });
      expect(result.stderr, args.join(' ')).toMatch(/^error: Database 'app': migrationTable 'mtool_lock' is the name of mtool's lock table/m);
      expect(result.code, args.join(' ')).toBe(2);
    }
    const conn = await connectTo('postgresql', db.url);
    try {
      const { rows } = await conn.query("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'");
      expect(rows).toEqual([]);
    } finally {
      await conn.close();
    }
  });
});

describe.skipIf(!pg.reachable)('pgSchema naming a schema the database does not have', () => {
  const dbs: TestDatabase[] = [];
  afterAll(async () => {
    for (const db of dbs) await db.drop();
  });

  it('is refused before anything is written, instead of keeping the tracking table in public (where a later run loses it)', async () => {
    const db = await createTestDatabase('postgresql');
    dbs.push(db);
    const body = `databaseConfig({ databaseName: 'app', default: true, databaseType: 'postgresql', databaseUrl: '${db.url}', pgSchema: 'Sales App' });\n`;
    const dir = await project({
      'mtool.config.ts': IMPORT + body,
      'migrations/app/app__0001_one.sql': MIGRATION,
      'migrations/app/app__0002_schema.sql': '-- upgrade\nCREATE SCHEMA "Sales App";\n-- rollback\nDROP SCHEMA "Sales App";\n',
    });
    for (const args of [['migrate'], ['status'], ['rollback'], ['lock-status']]) {
      const result = await runMtool(args, { cwd: dir });
      expect(result.stderr, args.join(' ')).toMatch(
        /^error: postgresql \(app\): pgSchema 'Sales App' does not exist in this database, or the user may not use it; mtool would keep its tables and run the migrations in schema 'public' instead\. Create it first \(CREATE SCHEMA "Sales App"\) or correct pgSchema$/m,
      );
      expect(result.code, args.join(' ')).toBe(2);
    }
    const conn = await connectTo('postgresql', db.url);
    try {
      const { rows } = await conn.query("SELECT table_schema, table_name FROM information_schema.tables WHERE table_schema NOT IN ('pg_catalog', 'information_schema')");
      expect(rows).toEqual([]);
      // Once the schema exists, everything goes there.
      await conn.query('CREATE SCHEMA "Sales App"');
    } finally {
      await conn.close();
    }
    await writeFile(join(dir, 'migrations/app/app__0002_schema.sql'), '-- upgrade\nCREATE TABLE t2 (id int);\n-- rollback\nDROP TABLE t2;\n');
    const migrated = await runMtool(['migrate'], { cwd: dir });
    expect(migrated.code, migrated.stderr).toBe(0);
    const after = await connectTo('postgresql', db.url);
    try {
      const { rows } = await after.query("SELECT table_schema, table_name FROM information_schema.tables WHERE table_schema NOT IN ('pg_catalog', 'information_schema') ORDER BY table_name");
      expect(rows).toEqual([
        { table_schema: 'Sales App', table_name: '_mtool_migrations' },
        { table_schema: 'Sales App', table_name: 'mtool_lock' },
        { table_schema: 'Sales App', table_name: 't1' },
        { table_schema: 'Sales App', table_name: 't2' },
      ]);
    } finally {
      await after.close();
    }
  });
});

describe('time options of a connection URL beyond what a timer holds', () => {
  const load = async (type: string, url: string) => {
    const dir = await project({ 'mtool.config.ts': `${IMPORT}databaseConfig({ databaseName: 'app', default: true, databaseType: '${type}', databaseUrl: '${url}'${type === 'postgresql' ? ", pgSchema: 'public'" : ''} });\n` });
    return loadConfig({ cwd: dir, dev: false, env: {} });
  };

  it.each([
    ['postgresql', 'postgresql://u@127.0.0.1/app?connect_timeout=99999999999', 'connect_timeout'],
    ['postgresql', 'postgresql://u@127.0.0.1/app?pool_timeout=2147484', 'pool_timeout'],
    ['sqlite', 'sqlite:///app.db?timeout=3000000', 'timeout'],
    ['clickhouse', 'http://127.0.0.1:8123/app?receive_timeout=9999999999', 'receive_timeout'],
  ])('%s: %s is refused naming the option and its limit', async (type, url, option) => {
    const e = await rejection(() => load(type, url));
    expect(e.code).toBe('MTOOL_URL');
    expect(e.exitCode).toBe(2);
    expect(e.message).toMatch(new RegExp(`^Database 'app': databaseUrl: URL option '${option}' must be at most 2147483 seconds \\(about 24 days; got '\\d+'\\)$`));
  });

  it('accepts the limit itself', async () => {
    const config = await load('postgresql', 'postgresql://u@127.0.0.1/app?connect_timeout=2147483&pool_timeout=2147483.6');
    expect(config.databases[0]!.name).toBe('app');
  });
});

describe.skipIf(!pg.reachable)('a huge connect_timeout against a running PostgreSQL', () => {
  it('is a configuration error (exit 2), not an immediate "timeout expired" from a reachable server (exit 1)', async () => {
    const server = new URL(pg.url);
    server.searchParams.set('connect_timeout', '3000000');
    const url = server.toString();
    const dir = await project({ 'mtool.config.ts': `${IMPORT}databaseConfig({ databaseName: 'app', default: true, databaseType: 'postgresql', databaseUrl: '${url}', pgSchema: 'public' });\n` });
    const result = await runMtool(['status'], { cwd: dir });
    expect(result.stderr).toMatch(/^error: Database 'app': databaseUrl: URL option 'connect_timeout' must be at most 2147483 seconds/m);
    expect(result.stderr).not.toContain('TimeoutOverflowWarning');
    expect(result.stderr).not.toContain('timeout expired');
    expect(result.code).toBe(2);
  });
});

describe('a configuration whose promise rejects unhandled', () => {
  it('is a configuration error naming the file and the reason, not a crash with a stack trace', async () => {
    const dir = await project({ 'mtool.config.ts': `${IMPORT}${lite('')}export const secret = Promise.reject(new Error('vault is sealed'));\n` });
    const result = await runMtool(['status'], { cwd: dir });
    expect(result.stderr).toMatch(/^error: Loading mtool\.config\.ts failed: a promise it created was rejected and never handled: vault is sealed$/m);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(result.stderr).not.toContain('Node.js v');
    expect(result.code).toBe(2);
    expect(existsSync(join(dir, 'app.db'))).toBe(false);
  });

  it('in plain JavaScript (no compile step) and with a non-Error reason too', async () => {
    const dir = await project({ 'mtool.config.mjs': `${IMPORT}${lite('')}Promise.reject('no token');\n` });
    const result = await runMtool(['migrate'], { cwd: dir });
    expect(result.stderr).toMatch(/^error: Loading mtool\.config\.mjs failed: a promise it created was rejected and never handled: no token$/m);
    expect(result.code).toBe(2);
    expect(existsSync(join(dir, 'app.db'))).toBe(false);
  });

  it('a rejection the configuration handles itself is no error', async () => {
    const dir = await project({ 'mtool.config.ts': `${IMPORT}${lite('')}export const guarded = Promise.reject(new Error('x')).catch(() => 'fallback');\n` });
    const result = await runMtool(['status'], { cwd: dir });
    expect(result.stderr).not.toMatch(/^error:/m);
    expect(result.code).toBe(0);
  });
});
