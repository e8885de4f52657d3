import { spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MTOOL_BIN, runMtool, tempProject } from '../support/cli.js';

const PG_URL = process.env.MTOOL_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const dbName = `mtool_sig_${randomBytes(4).toString('hex')}`;

async function admin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

let reachable = true;
beforeAll(async () => {
  try {
    await admin((c) => c.query(`CREATE DATABASE ${dbName}`));
  } catch (error) {
    if (process.env.CI === 'true') throw error;
    reachable = false;
    console.warn(`\n!!! PostgreSQL at ${PG_URL} unreachable: skipping the signal tests (${(error as Error).message})\n`);
  }
});
afterAll(async () => {
  if (reachable) await admin((c) => c.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`));
});

describe('signals', () => {
  it.for([
    ['SIGTERM', 143],
    ['SIGINT', 130],
  ] as const)('%s during migrate releases the lock and exits %i', async ([signal, exitCode], ctx) => {
    if (!reachable) ctx.skip();
    const project = await tempProject();
    try {
      const url = new URL(PG_URL);
      url.pathname = `/${dbName}`;
      await writeFile(
        join(project.dir, 'mtool.config.ts'),
        `import { databaseConfig } from 'mtool';\nexport const app = databaseConfig({ databaseName: 'app', default: true, databaseType: 'postgresql', databaseUrl: ${JSON.stringify(url.href)}, pgSchema: 'public' });\n`,
      );
      await mkdir(join(project.dir, 'migrations/app'), { recursive: true });
      await writeFile(join(project.dir, 'migrations/app/app__0001_slow.sql'), '-- upgrade\nCREATE TABLE t (id int);\nSELECT pg_sleep(20);\n');

      const child = spawn(process.execPath, [MTOOL_BIN, 'migrate'], { cwd: project.dir, stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
      await new Promise<void>((resolve, reject) => {
        child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
          stderr += chunk;
          // The lock is held once this is logged; the sleep statement follows at once.
          if (stderr.includes('lock acquired')) setTimeout(resolve, 300);
        });
        child.on('close', () => reject(new Error(`migrate ended before the lock was taken:\n${stderr}`)));
      });
      const started = Date.now();
      child.kill(signal);
      expect(await exited).toBe(exitCode);
      expect(Date.now() - started).toBeLessThan(15_000);
      expect(stderr).toContain('cleaning up');

      const lock = await runMtool(['lock-status'], { cwd: project.dir });
      expect(lock.stdout).toContain('Migration lock: INACTIVE');
      const status = await runMtool(['status', '--json'], { cwd: project.dir });
      expect(JSON.parse(status.stdout).databases.app).toMatchObject({ applied_migrations: 0, pending_migrations: 1 });
    } finally {
      await project.dispose();
    }
  });
});
