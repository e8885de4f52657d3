/**
 * QA of command-line input (helper C): bad flag values and combinations of migrate, rollback,
 * downgrade, status, history, lock-status and unlock are refused with exit code 2 and a message
 * naming the flag, before anything is written; commands with nothing to do write nothing; and
 * `--all` tells an unreachable optional database from a misconfigured one.
 */
import { existsSync } from 'node:fs';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runMtool, tempProject } from '../support/cli.js';
import { connectTo, createTestDatabase, serverStatus, type TestDatabase } from '../support/databases.js';
import { type DbFields, writeProject } from './helpers/project.js';

const MIGRATION = '-- upgrade\nCREATE TABLE t1 (id int);\n-- rollback\nDROP TABLE t1;\n';

let project: Awaited<ReturnType<typeof tempProject>>;
beforeEach(async () => {
  project = await tempProject('mtool-input-qa-');
});
afterEach(async () => project.dispose());

async function withMigrations(databases: DbFields[], names: string[]): Promise<void> {
  await writeProject(project.dir, databases);
  for (const name of names) {
    await mkdir(join(project.dir, 'migrations', name), { recursive: true });
    await writeFile(join(project.dir, 'migrations', name, `${name}__0001_one.sql`), MIGRATION);
  }
}

/** The files of the project folder other than the configuration, the migrations and mtool's cache. */
async function written(): Promise<string[]> {
  return (await readdir(project.dir)).filter((f) => !['mtool.config.ts', 'migrations', '.mtool'].includes(f));
}

const BAD_INPUT: [string[], RegExp][] = [
  [['migrate', '--count', '0'], /^error: --count expects a positive whole number, got '0'$/m],
  [['migrate', '--count', '-1'], /^error: --count expects a positive whole number, got '-1'$/m],
  [['migrate', '--count', 'abc'], /^error: --count expects a positive whole number, got 'abc'$/m],
  [['migrate', '--count', '1.5'], /^error: --count expects a positive whole number, got '1\.5'$/m],
  [['migrate', '--count='], /^error: option '--count' needs a value: --count <n>/m],
  [['rollback', '-c', '1e3'], /^error: --count expects a positive whole number, got '1e3'$/m],
  [['migrate', '--to-version', 'abc'], /^error: --to-version expects a migration version such as 0003, got 'abc'$/m],
  [['migrate', '--to-version', '0001_x'], /^error: --to-version expects a migration version such as 0003, got '0001_x'$/m],
  [['downgrade'], /^error: downgrade needs --to <NNNN>/m],
  [['downgrade', '--to', 'abc'], /^error: --to expects a migration version such as 0003, got 'abc'$/m],
  [['migrate', '--baseline'], /^error: --baseline needs --to-version <NNNN>/m],
  [['migrate', '--all', '--database', 'app'], /^error: --all and --database cannot be combined/m],
  [['status', '--all', '-d', 'app'], /^error: --all and --database cannot be combined/m],
  [['migrate', '--database', 'nope'], /^error: Unknown database 'nope'; configured: app/m],
  [['unlock', '--database='], /^error: option '--database' needs a value/m],
  [['migrate', '--dryrun'], /^error: Unknown option '--dryrun'$/m],
  [['rollback', '--count', '1', '--to-version', '0001'], /^error: --count and --to-version cannot be combined/m],
  [['rollback', '--all'], /^error: Unknown option '--all'$/m],
  [['downgrade', '--to', '0001', '--count', '1'], /^error: Unknown option '--count'$/m],
  [['lock-status', '--to-version', '0001'], /^error: Unknown option '--to-version'$/m],
  [['history', 'app'], /^error: unexpected argument 'app'$/m],
  [['migrate', '--debug-level', 'loud'], /^error: --debug-level 'loud' is not a level; use trace, debug/m],
  [['migrate', '--dry-run=yes'], /^error: option '--dry-run' takes no value$/m],
];

describe('bad command-line input: exit 2, a message naming the flag, nothing written', () => {
  it.each(BAD_INPUT)('mtool %j', async (args, message) => {
    await withMigrations([{ databaseName: 'app', default: true, databaseType: 'sqlite', databaseUrl: 'sqlite:///app.db' }], ['app']);
    const result = await runMtool(args, { cwd: project.dir });
    expect(result.stderr).toMatch(message);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(await written()).toEqual([]);
  });
});

describe('commands with nothing to do create no SQLite database file', () => {
  const cases = [['rollback'], ['rollback', '--count', '2'], ['unlock'], ['lock-status'], ['status'], ['history'], ['migrate', '--dry-run']].map((args) => ({ args }));
  it.each(cases)('mtool $args', async ({ args }) => {
    await withMigrations([{ databaseName: 'app', default: true, databaseType: 'sqlite', databaseUrl: 'sqlite:///app.db' }], ['app']);
    const result = await runMtool(args, { cwd: project.dir });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('does not exist (yet)');
    expect(await written()).toEqual([]);
  });
});

const pg = await serverStatus('postgresql');

describe.skipIf(!pg.reachable)('PostgreSQL', () => {
  const dbs: TestDatabase[] = [];
  afterAll(async () => {
    for (const db of dbs) await db.drop();
  });
  async function freshDatabase(): Promise<TestDatabase> {
    const db = await createTestDatabase('postgresql');
    dbs.push(db);
    return db;
  }
  async function tables(url: string): Promise<string[]> {
    const conn = await connectTo('postgresql', url);
    try {
      const { rows } = await conn.query("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name");
      return rows.map((r) => String(r.table_name));
    } finally {
      await conn.close();
    }
  }

  it('rollback and unlock on a database mtool never migrated create neither tracking nor lock table', async () => {
    const db = await freshDatabase();
    await withMigrations([{ databaseName: 'app', default: true, databaseType: 'postgresql', databaseUrl: db.url, pgSchema: 'public' }], ['app']);
    for (const args of [['rollback'], ['rollback', '--count', '3'], ['unlock']]) {
      const result = await runMtool(args, { cwd: project.dir });
      expect(result.code, args.join(' ')).toBe(0);
      expect(result.stdout, args.join(' ')).toMatch(/nothing to roll back, no versioned migration applied|was not held; nothing to release/);
    }
    expect(await tables(db.url)).toEqual([]);
    // Once migrated, rollback works as before.
    expect((await runMtool(['migrate'], { cwd: project.dir })).code).toBe(0);
    const rolled = await runMtool(['rollback'], { cwd: project.dir });
    expect(rolled.stdout).toMatch(/rolled back 1 migration/);
    expect(rolled.code).toBe(0);
    expect(await tables(db.url)).toEqual(['_mtool_migrations', 'mtool_lock']);
  });

  it('--all: a skipIfMissing database whose certificate file is missing is a configuration failure, not skipped as unreachable', async () => {
    const db = await freshDatabase();
    const optional: DbFields = {
      databaseName: 'reports',
      databaseType: 'postgresql',
      databaseUrl: `${db.url}?sslmode=verify-full&sslrootcert=certs/root.crt`,
      pgSchema: 'public',
      skipIfMissing: true,
      modelPaths: ['models/reports'],
    };
    await withMigrations([{ databaseName: 'app', default: true, databaseType: 'sqlite', databaseUrl: 'sqlite:///app.db', modelPaths: ['models/app'] }, optional], ['app', 'reports']);
    const all = await runMtool(['status', '--all', '--json'], { cwd: project.dir });
    const doc = JSON.parse(all.stdout);
    expect(doc.databases.reports).toMatchObject({ status: 'failed', code: 'MTOOL_URL' });
    expect(doc.databases.reports.error).toMatch(/cannot read the sslrootcert file '.*certs\/root\.crt' \(ENOENT\); fix the path in the URL option sslrootcert/);
    expect(doc.summary).toEqual({ ok: 1, skipped: 0, failed: 1 });
    expect(all.code).toBe(1);
    const one = await runMtool(['migrate', '--database', 'reports'], { cwd: project.dir });
    expect(one.stderr).toMatch(/^error: postgresql \(reports\): cannot read the sslrootcert file/m);
    expect(one.code).toBe(2);
    expect(await tables(db.url)).toEqual([]);
  });
});

const mysql = await serverStatus('mysql');

describe.skipIf(!mysql.reachable)('MariaDB', () => {
  it('--all: a skipIfMissing database whose ssl_ca file is missing fails instead of being skipped (exit 1, not 3)', async () => {
    await withMigrations(
      [
        { databaseName: 'app', default: true, databaseType: 'sqlite', databaseUrl: 'sqlite:///app.db', modelPaths: ['models/app'] },
        { databaseName: 'shop', databaseType: 'mariadb', databaseUrl: 'mysql://root@127.0.0.1:3306/shop?ssl_ca=certs/ca.pem', skipIfMissing: true, modelPaths: ['models/shop'] },
      ],
      ['app', 'shop'],
    );
    const result = await runMtool(['migrate', '--all'], { cwd: project.dir });
    expect(result.stdout).toMatch(/^shop \(mariadb\): FAILED: mariadb \(shop\): cannot read the ssl_ca file/m);
    expect(result.stdout).not.toMatch(/skipped: optional database unreachable/);
    expect(result.stdout).toMatch(/^2 databases: 1 ok, 0 skipped, 1 failed \(shop\)$/m);
    expect(result.code).toBe(1);
    expect(existsSync(join(project.dir, 'app.db'))).toBe(true);
  });

  it('a charset the driver does not know is a URL error naming the option (exit 2), never skipped as unreachable', async () => {
    await withMigrations(
      [
        { databaseName: 'app', default: true, databaseType: 'sqlite', databaseUrl: 'sqlite:///app.db', modelPaths: ['models/app'] },
        { databaseName: 'shop', databaseType: 'mariadb', databaseUrl: 'mysql://root@127.0.0.1:3306/shop?charset=utf8mb5', skipIfMissing: true, modelPaths: ['models/shop'] },
      ],
      ['app', 'shop'],
    );
    const one = await runMtool(['status', '--database', 'shop'], { cwd: project.dir });
    expect(one.stderr).toMatch(/^error: mariadb \(shop\): URL option 'charset' names a character set the driver does not know \('utf8mb5'\); use one such as utf8mb4 \(the default\), utf8 or latin1$/m);
    expect(one.stderr).not.toContain('check that mariadb is running');
    expect(one.code).toBe(2);
    const all = await runMtool(['status', '--all', '--json'], { cwd: project.dir });
    expect(JSON.parse(all.stdout).databases.shop).toMatchObject({ status: 'failed', code: 'MTOOL_URL' });
    expect(all.code).toBe(1);
  });
});
