import { spawn } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MTOOL_BIN, runMtool, tempProject } from '../support/cli.js';
import { createTestDatabase, serverStatus, type TestDatabase } from '../support/databases.js';
import { writeProject } from './helpers/project.js';

/**
 * Logs, timings and output formats of the commands that touch a database (spec: Log records;
 * DESIGN.md section 5, Output): stderr is one JSON object per line in JSON mode, whatever the
 * reader of stderr does, and the commands' output stays on stdout.
 */

let project: Awaited<ReturnType<typeof tempProject>>;
beforeEach(async () => {
  project = await tempProject('mtool-obs-');
});
afterEach(async () => project.dispose());

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

/** Every stderr line parsed as a record with the spec's fields; a line that is not one fails the test. */
function records(stderr: string): Record<string, unknown>[] {
  return stderr
    .split('\n')
    .filter((l) => l !== '')
    .map((line) => {
      let record: Record<string, unknown>;
      try {
        record = JSON.parse(line) as Record<string, unknown>;
      } catch {
        throw new Error(`stderr line is not JSON: ${line}`);
      }
      expect(record.timestamp).toMatch(TIMESTAMP);
      expect(record.logger).toBe('mtool');
      expect(['TRACE', 'DEBUG', 'INFO', 'WARNING', 'ERROR', 'CRITICAL']).toContain(record.level);
      expect(typeof record.message).toBe('string');
      return record;
    });
}

/** A SQLite project with `count` versioned migrations, each with a two-line statement and a rollback. */
async function sqliteProject(count: number): Promise<void> {
  await writeProject(project.dir, [{ databaseName: 'app', default: true, databaseType: 'sqlite', databaseUrl: 'sqlite:///app.db' }]);
  await mkdir(join(project.dir, 'migrations/app'), { recursive: true });
  for (let i = 1; i <= count; i++) {
    const v = String(i).padStart(4, '0');
    await writeFile(join(project.dir, `migrations/app/app__${v}_t${i}.sql`), `-- upgrade\nCREATE TABLE t${i} (\n  id integer\n);\n-- rollback\nDROP TABLE t${i};\n`);
  }
}

/**
 * Run mtool as `mtool ... 2>&1 >out | (sleep; cat)` does: stderr into a pipe whose reader starts
 * late, so that the pipe fills while the command runs.
 */
async function withSlowStderrReader(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = join(project.dir, 'out.txt');
  const err = join(project.dir, 'err.txt');
  const rc = join(project.dir, 'rc.txt');
  const quoted = [process.execPath, MTOOL_BIN, ...args].map((a) => `'${a}'`).join(' ');
  const script = `{ ${quoted} >'${out}'; echo $? >'${rc}'; } 2>&1 | { sleep 2; cat >'${err}'; }`;
  const child = spawn('/bin/sh', ['-c', script], { cwd: project.dir, env: { ...process.env, ...env }, stdio: 'ignore' });
  await new Promise((resolve) => child.on('close', resolve));
  return { code: Number((await readFile(rc, 'utf8')).trim()), stdout: await readFile(out, 'utf8'), stderr: await readFile(err, 'utf8') };
}

describe('log records on a stderr pipe that fills', () => {
  it('wait for a slow reader instead of failing the run (trace, JSON, 150 migrations)', async () => {
    await sqliteProject(150);
    const result = await withSlowStderrReader(['migrate', '--debug-level', '5'], { MTOOL_LOG_JSON: 'true' });
    expect(result.stdout).toMatch(/^app \(sqlite\): applied 150 migrations in .*, now at version 0150\n/);
    expect(result.code).toBe(0);
    const logged = records(result.stderr);
    // Every migration statement, multi-line ones as one record.
    for (let i = 1; i <= 150; i++) expect(logged).toContainEqual(expect.objectContaining({ level: 'TRACE', message: expect.stringMatching(new RegExp(`^SQL \\([\\d.]+ (ms|s)\\): CREATE TABLE t${i} \\(\\n  id integer\\n\\)$`)) }));

    const status = await runMtool(['status', '--json'], { cwd: project.dir });
    expect(JSON.parse(status.stdout).databases.app).toMatchObject({ applied_migrations: 150, pending_migrations: 0, lock_active: false });
  }, 60_000);

  it('rollback goes on too, in human format', async () => {
    await sqliteProject(150);
    expect((await runMtool(['migrate'], { cwd: project.dir })).code).toBe(0);
    const result = await withSlowStderrReader(['rollback', '--count', '150', '--debug-level', 'trace'], {});
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^app \(sqlite\): rolled back 150 migrations in .*, now no versioned migration applied\n/);
    expect(result.stderr).toMatch(/^TRACE \[app\/sqlite\] SQL \([\d.]+ ms\): DROP TABLE t1$/m);
  }, 60_000);
});

const pg = await serverStatus('postgresql');

describe.skipIf(!pg.reachable)('log records of commands on one postgresql database', () => {
  let db: TestDatabase;
  beforeEach(async () => {
    db = await createTestDatabase('postgresql');
  });
  afterEach(async () => db.drop());

  it('the final ERROR record names the database and its type, as the records before it do', async () => {
    await writeProject(project.dir, [{ databaseName: 'app', default: true, databaseType: 'postgresql', databaseUrl: db.url, pgSchema: 'public' }], {
      'migrations/app/app__0001_ok.sql': '-- upgrade\nCREATE TABLE ok (id int);\n-- rollback\nDROP TABLE ok;\n',
      'migrations/app/app__0002_bad.sql': '-- upgrade\nSELECT * FROM no_such_table;\n-- rollback\nSELECT 1;\n',
    });
    const migrate = await runMtool(['migrate', '--json'], { cwd: project.dir });
    expect(migrate.code).toBe(1);
    expect(JSON.parse(migrate.stdout).databases.app).toMatchObject({ status: 'failed', code: 'MTOOL_MIGRATION_FAILED' });
    const logged = records(migrate.stderr);
    expect(logged[0]).toMatchObject({ level: 'INFO', db_name: 'app', db_type: 'postgresql', message: expect.stringMatching(/^lock acquired in /) });
    expect(logged.at(-1)).toMatchObject({ level: 'ERROR', db_name: 'app', db_type: 'postgresql', code: 'MTOOL_MIGRATION_FAILED', exit_code: 1 });

    const downgrade = await runMtool(['downgrade', '--to', '0009'], { cwd: project.dir, env: { MTOOL_LOG_JSON: 'true' } });
    expect(downgrade.code).toBe(1);
    expect(records(downgrade.stderr).at(-1)).toMatchObject({ level: 'ERROR', db_name: 'app', db_type: 'postgresql', code: 'MTOOL_ROLLBACK' });
  });

  it('trace logs the statements of the second connection too: the schema read ahead under --defer-snapshots', async () => {
    const files: Record<string, string> = {};
    // More than the 128 migrations of the tail the schema is read ahead of.
    for (let i = 1; i <= 135; i++) files[`migrations/app/app__${String(i).padStart(4, '0')}_t${i}.sql`] = `-- upgrade\nCREATE TABLE t${i} (id int);\n-- rollback\nDROP TABLE t${i};\n`;
    await writeProject(project.dir, [{ databaseName: 'app', default: true, databaseType: 'postgresql', databaseUrl: db.url, pgSchema: 'public' }], files);
    const result = await runMtool(['migrate', '--defer-snapshots', '--debug-level', 'trace'], { cwd: project.dir, env: { MTOOL_LOG_JSON: 'true' } });
    expect(result.code).toBe(0);
    const sql = records(result.stderr)
      .filter((r) => r.level === 'TRACE')
      .map((r) => String(r.message).replace(/^SQL \([\d.]+ (ms|s)\): /, ''));
    const ahead = sql.indexOf('BEGIN (read-only snapshot)');
    expect(ahead).toBeGreaterThan(-1);
    // The read ahead's catalog queries, and the read at the end of the tables the tail touched.
    expect(sql.filter((s) => s.startsWith('SELECT c.oid::text AS oid')).length).toBe(2);
    expect(sql.findIndex((s) => s.startsWith('SELECT c.oid::text AS oid'))).toBeGreaterThan(ahead);
  });

  it('the final ERROR record names the database when it cannot be reached (status, lock-status, unlock), and --json prints only the documents the README names', async () => {
    await writeProject(project.dir, [{ databaseName: 'down', default: true, databaseType: 'postgresql', databaseUrl: 'postgresql://postgres@127.0.0.1:1/x', pgSchema: 'public' }]);
    for (const command of ['status', 'lock-status', 'unlock']) {
      const result = await runMtool([command, '--json'], { cwd: project.dir });
      expect(result.code, command).toBe(1);
      expect(records(result.stderr).at(-1), command).toMatchObject({ level: 'ERROR', db_name: 'down', db_type: 'postgresql', code: 'MTOOL_CONNECTION', exit_code: 1 });
      if (command === 'status') expect(JSON.parse(result.stdout).databases.down).toMatchObject({ status: 'failed', connected: false, code: 'MTOOL_CONNECTION' });
      else expect(result.stdout, command).toBe('');
    }
  });
});
