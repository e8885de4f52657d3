import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tracedRun } from '../support/cli.js';
import { explain, projectPerTest, type TestProject } from '../engine/support/project.js';
import { rowCount, TARGETS, tableExistsAt, targetReachable } from '../engine/support/targets.js';

/**
 * QA round D: the migration folder as the built `mtool` reads it, against real databases: what
 * it refuses (with the file, the line and what to do, exit 2, before anything runs) and what it
 * runs, on the main thread and on the worker pool.
 */

const target = (id: string) => TARGETS.find((t) => t.id === id)!;

const contentTargets = await Promise.all(['sqlite', 'postgresql', 'mariadb'].map(async (id) => ({ ...target(id), skip: !(await targetReachable(target(id))) })));

describe.each(contentTargets)('file content on $id', (t) => {
  const run = projectPerTest(t);
  const skip = t.skip;

  it.skipIf(skip)('refuses a file holding a NUL byte before running any of it, naming file, line and column', async () => {
    // SQLite stopped reading the statement at the NUL: the INSERT after it never ran, and the
    // migration was recorded as applied. PostgreSQL and MariaDB failed with 'invalid message
    // format' and a syntax error 'near ''' after running the statements before it.
    const project = await run.create();
    await project.write('app__0001_nul.sql', '-- upgrade\nCREATE TABLE t (id integer);\nINSERT INTO t VALUES (1);\0\nINSERT INTO t VALUES (2);\n');
    const result = await project.run(['migrate']);
    expect(result.code, explain(result)).toBe(2);
    expect(result.stderr).toContain(`${project.path('app__0001_nul.sql')}:3: a NUL byte (0x00) at column 26`);
    expect(await tableExistsAt(t, run.db.url, 't')).toBe(false);
  });

  it.skipIf(skip)('keeps the rollback section after a lone CR out of the upgrade', async () => {
    // The `-- rollback` line after a lone CR was read as part of the line above: DROP TABLE t ran
    // in the upgrade, right after CREATE TABLE t.
    const project = await run.create();
    await project.write('app__0001_cr.sql', '-- upgrade\nCREATE TABLE t (id integer);\rINSERT INTO t VALUES (1);\r-- rollback\rDROP TABLE t;\r');
    const migrated = await project.run(['migrate']);
    expect(migrated.code, explain(migrated)).toBe(0);
    expect(await rowCount(t, run.db.url, 't')).toBe(1);
    const rolledBack = await project.run(['rollback']);
    expect(rolledBack.code, explain(rolledBack)).toBe(0);
    expect(await tableExistsAt(t, run.db.url, 't')).toBe(false);
  });
});

describe.skipIf(!(await targetReachable(target('mariadb'))))('MySQL comments on mariadb', () => {
  const run = projectPerTest(target('mariadb'));

  it('runs a file whose header is # comments (a comment in MySQL, not SQL before the upgrade section)', async () => {
    const project = await run.create();
    await project.write('app__0001_hash.sql', '# Orders schema; owner: shop team\n#\n-- upgrade\nCREATE TABLE t (id integer); # trailing; comment\nINSERT INTO t VALUES (1);\n-- rollback\nDROP TABLE t;\n');
    const result = await project.run(['migrate']);
    expect(result.code, explain(result)).toBe(0);
    expect(await rowCount(target('mariadb'), run.db.url, 't')).toBe(1);
  });
});

describe('entries of the migration folder that are not plain files', () => {
  const run = projectPerTest(target('sqlite'));
  let outside: string;
  beforeAll(async () => {
    outside = await mkdtemp(join(tmpdir(), 'mtool-qa-outside-'));
  });
  afterAll(() => rm(outside, { recursive: true, force: true }));

  async function projectWithOne(): Promise<TestProject> {
    const project = await run.create();
    await project.write('app__0001_a.sql', '-- upgrade\nCREATE TABLE a (id integer);\n');
    return project;
  }

  it('refuses a folder named like a migration file, as it refuses a link to a folder so named', async () => {
    // It was skipped without a word: `status` showed one migration and exit 0.
    const project = await projectWithOne();
    await mkdir(project.path('app__0002_b.sql'));
    const result = await project.run(['status']);
    expect(result.code, explain(result)).toBe(2);
    expect(result.stderr).toContain(`${project.path('app__0002_b.sql')}: cannot read the migration file: it is a folder, not a file: rename it so that it does not end in .sql`);
  });

  it('refuses a link to a folder holding .sql files, as it refuses such a subfolder (they would never run)', async () => {
    const shared = join(outside, 'shared');
    await mkdir(shared, { recursive: true });
    await writeFile(join(shared, 'app__0002_shared.sql'), '-- upgrade\nCREATE TABLE b (id integer);\n');
    const project = await projectWithOne();
    await symlink(shared, project.path('shared'));
    const result = await project.run(['migrate']);
    expect(result.code, explain(result)).toBe(2);
    expect(result.stderr).toContain('its subfolder shared/ holds .sql files (shared/app__0002_shared.sql)');
    expect(existsSync(join(project.dir, 'db.sqlite3'))).toBe(false);
  });

  it('reads a link to a file, and lets a link to a folder without .sql files be', async () => {
    await writeFile(join(outside, 'b.sql'), '-- upgrade\nCREATE TABLE b (id integer);\n');
    await mkdir(join(outside, 'notes'), { recursive: true });
    const project = await projectWithOne();
    await symlink(join(outside, 'b.sql'), project.path('app__0002_b.sql'));
    await symlink(join(outside, 'notes'), project.path('notes'));
    const result = await project.run(['migrate']);
    expect(result.code, explain(result)).toBe(0);
    expect(result.stdout).toContain('applied 2 migrations');
  });

  it('refuses a pipe named like a migration, and a link to one, instead of skipping it or waiting on it forever', async () => {
    // The pipe was skipped without a word; a link to it was read, and the read waited forever.
    const project = await projectWithOne();
    execFileSync('mkfifo', [project.path('app__0002_pipe.sql')]);
    const direct = await project.run(['status']);
    expect(direct.code, explain(direct)).toBe(2);
    expect(direct.stderr).toContain(`${project.path('app__0002_pipe.sql')}: cannot read the migration file: it is not a regular file (a pipe, socket or device)`);
    await rm(project.path('app__0002_pipe.sql'));
    execFileSync('mkfifo', [join(outside, 'pipe')]);
    await symlink(join(outside, 'pipe'), project.path('app__0002_linked.sql'));
    const linked = await project.run(['status']);
    expect(linked.code, explain(linked)).toBe(2);
    expect(linked.stderr).toContain('app__0002_linked.sql: cannot read the migration file: it is not a regular file');
  });

  it('says a link that leads back to itself is a loop, not a link to a missing target', async () => {
    const project = await projectWithOne();
    await symlink('app__0002_loop.sql', project.path('app__0002_loop.sql'));
    const result = await project.run(['status']);
    expect(result.code, explain(result)).toBe(2);
    expect(result.stderr).toContain('app__0002_loop.sql: cannot read the migration file: it is a symbolic link that leads back to itself (a loop of links)');
  });
});

/**
 * The worker pool, as the CLI starts it: it needs at least 4 CPUs and 20,000 files
 * (POOL_THRESHOLD in src/main/engine/load-migrations.ts). A preload script makes Node report 8
 * CPUs; the module trace shows whether the pool's worker ran.
 */
describe('the worker-pool path of the command line on a folder past the threshold', () => {
  const FILES = 20_000;
  let dir: string;
  let preload: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'mtool-qa-pool-'));
    preload = join(dir, 'many-cpus.mjs');
    await writeFile(preload, "import os from 'node:os';\nimport { syncBuiltinESMExports } from 'node:module';\nos.availableParallelism = () => 8;\nsyncBuiltinESMExports();\n");
    await writeFile(join(dir, 'mtool.config.ts'), `import { databaseConfig } from 'mtool';\ndatabaseConfig({ databaseName: 'app', default: true, databaseType: 'sqlite', databaseUrl: 'sqlite:///app.db' });\n`);
    const folder = join(dir, 'migrations', 'app');
    await mkdir(folder, { recursive: true });
    for (let i = 1; i <= 9999; i++) {
      writeFileSync(join(folder, `app__${String(i).padStart(4, '0')}_t.sql`), `-- upgrade\nCREATE TABLE t${i} (a text DEFAULT 'x;y');\n/* c; */ INSERT INTO t${i} VALUES ('é');\n-- rollback\nDROP TABLE t${i};\n`);
    }
    for (let i = 0; i < FILES - 9999; i++) {
      writeFileSync(join(folder, `ROC__r${String(i).padStart(5, '0')}.sql`), `\uFEFF-- mtool: no-transaction\r\n-- upgrade\r\nSELECT ${i};\r\n`);
    }
  }, 120_000);
  afterAll(() => rm(dir, { recursive: true, force: true }));

  const mtool = async (args: string[], pool: boolean) => {
    const result = await tracedRun(args, { cwd: dir, nodeArgs: pool ? ['--import', preload] : [], timeoutMs: 120_000 });
    const pooled = result.modules.some((m) => /parse-worker/.test(m));
    expect(pooled, explain(result)).toBe(pool);
    return result;
  };

  it('prints the same dry-run plan and status checksums as the main thread', async () => {
    const [main, pooled] = [await mtool(['migrate', '--dry-run'], false), await mtool(['migrate', '--dry-run'], true)];
    expect(main.code, explain(main)).toBe(0);
    expect(pooled.stdout).toBe(main.stdout);
    expect(main.stdout).toContain(`dry run, ${FILES} migrations would be applied`);
    const [mainStatus, pooledStatus] = [await mtool(['status', '--json'], false), await mtool(['status', '--json'], true)];
    expect(pooledStatus.stdout).toBe(mainStatus.stdout);
  }, 240_000);

  it('fails as the main thread does, with file and line, and exits (the pool is shut down) on a split error, an unreadable file and a NUL byte', async () => {
    const folder = join(dir, 'migrations', 'app');
    const cases: [string, string | { symlink: string }, string][] = [
      ['app__5000_t.sql', "-- upgrade\nSELECT 1;\nSELECT 'x;\n", `${join(folder, 'app__5000_t.sql')}:3:8: unterminated string literal`],
      ['app__5000_t.sql', { symlink: join(dir, 'gone.sql') }, `${join(folder, 'app__5000_t.sql')}: cannot read the migration file: it is a symbolic link whose target does not exist`],
      ['app__5000_t.sql', '-- upgrade\nSELECT 1;\0\n', `${join(folder, 'app__5000_t.sql')}:2: a NUL byte (0x00) at column 10`],
    ];
    for (const [name, content, message] of cases) {
      await rm(join(folder, name));
      if (typeof content === 'string') await writeFile(join(folder, name), content);
      else await symlink(content.symlink, join(folder, name));
      for (const pool of [false, true]) {
        const result = await mtool(['migrate', '--dry-run'], pool);
        expect(result.signal, explain(result)).toBeNull();
        expect(result.code, explain(result)).toBe(2);
        expect(result.stderr).toContain(`error: ${message}`);
      }
    }
  }, 240_000);
});
