import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { disposeDialects } from '../../src/dialects/index.js';
import { LockError } from '../../src/errors.js';
import * as engine from '../../src/main/engine/engine.js';
import type { EngineHooks } from '../../src/main/engine/hooks.js';
import { MigrationFailedError } from '../../src/main/engine/migration-error.js';
import { configureLogging, logger } from '../../src/main/log.js';
import { migration } from './support/project.js';
import { recordingHooks } from './support/recording-hooks.js';
import { testEntry } from '../support/database-entry.js';
import { connectTo } from '../support/databases.js';
import { TARGETS, provision, targetReachable, type ProvisionedDatabase } from './support/targets.js';

/** Engine-level tests: the engine API without the CLI (hooks, log output, transports the config does not take yet). */

const lines: string[] = [];
const sink = { write: (line: string) => void lines.push(line) };

async function tempRoot(): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'mtool-engine-api-'));
  await mkdir(join(root, 'migrations', 'app'), { recursive: true });
  return root;
}
const put = (root: string, filename: string, content: string) => writeFile(join(root, 'migrations', 'app', filename), content);

afterEach(() => {
  configureLogging({ level: 'info', json: false, sink: undefined });
  lines.length = 0;
});
afterAll(() => disposeDialects());

describe('engine on SQLite', () => {
  let root: string;
  beforeAll(async () => {
    root = await tempRoot();
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  it('calls afterVersionedMigration per versioned migration and afterBatch once; a failing hook only warns', async () => {
    const entry = testEntry(root, 'app', 'sqlite', 'sqlite:///hooks.db');
    await put(root, 'app__0001_a.sql', migration(['CREATE TABLE a (id integer)'], ['DROP TABLE a']));
    await put(root, 'app__0002_b.sql', migration(['CREATE TABLE b (id integer)'], ['DROP TABLE b']));
    await put(root, 'RA__r.sql', migration(['SELECT 1']));
    const calls: string[] = [];
    const hooks: EngineHooks = {
      async afterVersionedMigration(e) {
        calls.push(`after ${e.file.filename}`);
        if (e.file.version === '0002') throw new Error('snapshot disk full');
      },
      async afterBatch(e) {
        calls.push(`batch ${e.applied.map((a) => a.file.version).join(',')} deferred=${e.deferred}`);
      },
    };
    configureLogging({ level: 'info', json: true, sink });
    const result = await engine.migrate(entry, { root, log: logger }, { hooks });
    expect(calls).toEqual(['after app__0001_a.sql', 'after app__0002_b.sql', 'batch 0001,0002 deferred=false']);
    expect(result.outcomes.map((o) => o.action)).toEqual(['applied', 'applied', 'applied']);
    const warning = lines.map((l) => JSON.parse(l)).find((r) => r.level === 'WARNING');
    expect(warning.message).toMatch(/after-migration hook for app__0002_b.sql failed/);
    expect(warning.db_name).toBe('app');

    await put(root, 'app__0003_c.sql', migration(['CREATE TABLE c (id integer)'], ['DROP TABLE c']));
    calls.length = 0;
    await engine.migrate(entry, { root, log: logger }, { hooks, deferSnapshots: true });
    expect(calls).toEqual(['batch 0003 deferred=true']);
  });

  it('--perf logs each statement with its duration; trace logs `SQL (<duration>): <statement>` with db_name and db_type', async () => {
    const entry = testEntry(root, 'app', 'sqlite', 'sqlite:///perf.db');
    configureLogging({ level: 'trace', json: true, sink });
    await engine.migrate(entry, { root, log: logger }, { perf: true });
    const records = lines.map((l) => JSON.parse(l));
    const perf = records.find((r) => /^perf [\d.]+ ms app__0001_a\.sql:2 CREATE TABLE a/.test(r.message));
    expect(perf, lines.join('')).toBeDefined();
    expect(perf.level).toBe('INFO');
    const sql = records.find((r) => /^SQL \([\d.]+ ms\): CREATE TABLE a \(id integer\)$/.test(r.message));
    expect(sql).toMatchObject({ level: 'TRACE', db_name: 'app', db_type: 'sqlite' });
    expect(records.some((r) => /^SQL \(.*\): INSERT INTO "_mtool_migrations"/.test(r.message))).toBe(true);
    expect(records.some((r) => /^lock acquired in /.test(r.message) && r.level === 'INFO')).toBe(true);
  });

  it('refuses a malformed pending file before running any migration', async () => {
    const own = await tempRoot();
    try {
      const entry = testEntry(own, 'app', 'sqlite', 'sqlite:///malformed.db');
      await put(own, 'app__0001_ok.sql', migration(['CREATE TABLE ok_t (id integer)']));
      await put(own, 'app__0002_bad.sql', "-- upgrade\nSELECT 'unterminated;\n");
      const error = await engine.migrate(entry, { root: own, log: logger }).catch((e: unknown) => e);
      expect((error as { code?: string }).code).toBe('MTOOL_SQL_SYNTAX');
      expect((error as Error).message).toContain('app__0002_bad.sql');
      expect((await engine.history(entry, { root: own, log: logger })).records).toEqual([]);
      expect((await engine.lockStatus(entry, { root: own, log: logger })).active).toBe(false);
    } finally {
      await rm(own, { recursive: true, force: true });
    }
  });

  it('takes no lock and writes nothing under dry-run, and refuses a second holder with LockError', async () => {
    const entry = testEntry(root, 'app', 'sqlite', 'sqlite:///dry.db');
    const dry = await engine.migrate(entry, { root, log: logger }, { dryRun: true });
    expect(dry.dryRunSql?.map((f) => f.filename)).toEqual(['app__0001_a.sql', 'app__0002_b.sql', 'app__0003_c.sql', 'RA__r.sql']);
    expect((await engine.lockStatus(entry, { root, log: logger })).active).toBe(false);
    expect((await engine.history(entry, { root, log: logger })).records).toEqual([]);
  });

  it('warns, naming the folder and the database, when migrations/<db>/ does not exist', async () => {
    const entry = testEntry(root, 'other', 'sqlite', 'sqlite:///other.db');
    configureLogging({ level: 'info', json: true, sink });
    const result = await engine.migrate(entry, { root, log: logger });
    expect(result.outcomes).toEqual([]);
    const warnings = lines.map((l) => JSON.parse(l)).filter((r) => r.level === 'WARNING');
    expect(warnings.map((w) => w.message)).toEqual([
      `${join('migrations', 'other')} does not exist: no migration files for database 'other'; \`mtool init\` creates the folder`,
    ]);
    lines.length = 0;
    await mkdir(join(root, 'migrations', 'other'));
    await engine.status(entry, { root, log: logger });
    expect(lines.map((l) => JSON.parse(l)).filter((r) => r.level === 'WARNING')).toEqual([]);
  });
});

const pg = TARGETS.find((t) => t.id === 'postgresql')!;
/** A fresh PostgreSQL database and migration root for the enclosing describe, from its beforeAll on. */
function onPostgres(): { db: ProvisionedDatabase; root: string } {
  const env = {} as { db: ProvisionedDatabase; root: string };
  beforeAll(async () => {
    env.db = await provision(pg);
    env.root = await tempRoot();
  });
  afterAll(async () => {
    await disposeDialects();
    await env.db?.drop();
    if (env.root) await rm(env.root, { recursive: true, force: true });
  });
  return env;
}

describe.skipIf(!(await targetReachable(pg)))('engine on PostgreSQL', () => {
  const env = onPostgres();

  it('runs a file with CREATE INDEX CONCURRENTLY outside a transaction, with a warning', async () => {
    const { db, root } = env;
    const entry = testEntry(root, 'app', 'postgresql', db.url);
    await put(root, 'app__0001_t.sql', migration(['CREATE TABLE t (id integer, v text)'], ['DROP TABLE t']));
    await put(root, 'app__0002_idx.sql', migration(['CREATE INDEX CONCURRENTLY t_v ON t (v)'], ['DROP INDEX CONCURRENTLY t_v']));
    await put(root, 'app__0003_declared.sql', migration(['CREATE TABLE u (id integer)'], ['DROP TABLE u'], ['no-transaction']));
    configureLogging({ level: 'info', json: true, sink });
    const result = await engine.migrate(entry, { root, log: logger });
    expect(result.outcomes.map((o) => [o.version, o.outsideTransaction ?? false])).toEqual([
      ['0001', false],
      ['0002', true],
      ['0003', true],
    ]);
    const warnings = lines.map((l) => JSON.parse(l)).filter((r) => r.level === 'WARNING').map((r) => r.message);
    expect(warnings).toEqual([
      expect.stringMatching(/app__0002_idx.sql: runs outside a transaction: CREATE INDEX CONCURRENTLY cannot run inside a transaction \(line 2\)/),
      expect.stringMatching(/app__0003_declared.sql: runs outside a transaction: the file declares `-- mtool: no-transaction`/),
    ]);
    const back = await engine.rollback(entry, { root, log: logger }, { toVersion: '0001' });
    expect(back.outcomes.map((o) => [o.version, o.outsideTransaction ?? false])).toEqual([
      ['0003', true],
      ['0002', true],
    ]);
  });

  it('raises LockError naming the holder while another session holds the lock', async () => {
    const { db, root } = env;
    const entry = testEntry(root, 'app', 'postgresql', db.url);
    await put(root, 'app__0004_slow.sql', migration(['SELECT pg_sleep(2)'], ['SELECT 1']));
    const first = engine.migrate(entry, { root, log: logger });
    await new Promise((r) => setTimeout(r, 700));
    const second = await engine.migrate(entry, { root, log: logger }).catch((e: unknown) => e);
    expect(second).toBeInstanceOf(LockError);
    expect((second as Error).message).toMatch(new RegExp(`pid ${process.pid}, command 'migrate', since .*Another migration may be running.*mtool unlock --database app`));
    await first;
  });
});

describe.skipIf(!(await targetReachable(pg)))('per-migration hooks that let migrations run together (PostgreSQL)', () => {
  const env = onPostgres();

  it('runs as many as the hook allows, then calls the after-hooks of the run in order; a hook that throws runs one', async () => {
    const { db, root } = env;
    const entry = testEntry(root, 'app', 'postgresql', db.url);
    for (const v of ['0001', '0002', '0003', '0004', '0005']) await put(root, `app__${v}_t${v}.sql`, migration([`CREATE TABLE t${v} (id integer)`], [`DROP TABLE t${v}`]));
    const calls: string[] = [];
    const hooks = recordingHooks(calls, [3, new Error('window read failed'), 9]);
    configureLogging({ level: 'info', json: true, sink });
    const result = await engine.migrate(entry, { root, log: logger }, { hooks });
    expect(result.outcomes.map((o) => [o.version, o.action])).toEqual(['0001', '0002', '0003', '0004', '0005'].map((v) => [v, 'applied']));
    expect(calls).toEqual([
      'run 0001,0002,0003,0004,0005 remaining=5',
      'after 0001',
      'after 0002',
      'after 0003',
      'commit 0001,0002,0003',
      'run 0004,0005 remaining=2',
      'after 0004',
      'commit 0004',
      // More than pending: the rest.
      'run 0005 remaining=1',
      'after 0005',
      'commit 0005',
      'batch 0001,0002,0003,0004,0005 failed=false',
    ]);
    const warnings = lines.map((l) => JSON.parse(l)).filter((r) => r.level === 'WARNING').map((r) => r.message);
    expect(warnings).toEqual([expect.stringMatching(/before-migration hook for app__0004_t0004.sql failed/)]);
  });

  it('a failure inside a run: the after-hooks of the migrations before it, none for it, and the batch ends failed', async () => {
    const { db, root } = env;
    const entry = testEntry(root, 'app', 'postgresql', db.url);
    await put(root, 'app__0006_u.sql', migration(['CREATE TABLE u (id integer)'], ['DROP TABLE u']));
    await put(root, 'app__0007_bad.sql', migration(['INSERT INTO nowhere VALUES (1)'], ['SELECT 1']));
    await put(root, 'app__0008_v.sql', migration(['CREATE TABLE v (id integer)'], ['DROP TABLE v']));
    const calls: string[] = [];
    const hooks = recordingHooks(calls, [3]);
    const error = await engine.migrate(entry, { root, log: logger }, { hooks }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MigrationFailedError);
    expect(calls).toEqual(['run 0006,0007,0008 remaining=3', 'after 0006', 'commit 0006', 'batch 0006 failed=true']);
    const status = await engine.status(entry, { root, log: logger });
    expect(status.entries.filter((e) => e.state === 'applied').map((e) => e.version)).toEqual(['0001', '0002', '0003', '0004', '0005', '0006']);
  });
});

describe.skipIf(!existsSync(new URL('../../node_modules/chdb/package.json', import.meta.url)))('engine on current ClickHouse (chdb, in process)', () => {
  let root: string;
  beforeAll(async () => {
    root = await tempRoot();
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  it('applies, reruns repeatables, rolls back, and records nothing for a failed file', async () => {
    const entry = testEntry(root, 'app', 'clickhouse', `chdb:///${join(root, 'chdata')}`);
    const ctx = { root, log: logger };
    await put(root, 'app__0001_t.sql', migration(['CREATE TABLE t (id UInt32) ENGINE = MergeTree ORDER BY id', 'INSERT INTO t VALUES (1)'], ['DROP TABLE t']));
    await put(root, 'app__0002_u.sql', migration(['CREATE TABLE u (id UInt32) ENGINE = MergeTree ORDER BY id'], ['DROP TABLE u']));
    await put(root, 'RA__log.sql', migration(['INSERT INTO t VALUES (2)']));
    expect((await engine.migrate(entry, ctx)).outcomes).toHaveLength(3);
    expect((await engine.migrate(entry, ctx)).outcomes.map((o) => o.filename)).toEqual(['RA__log.sql']);
    let status = await engine.status(entry, ctx);
    expect(status).toMatchObject({ currentVersion: '0002', appliedMigrations: 3, pendingMigrations: 0, lockActive: false });

    const back = await engine.rollback(entry, ctx, {});
    expect(back.outcomes.map((o) => o.filename)).toEqual(['app__0002_u.sql']);
    status = await engine.status(entry, ctx);
    expect(status).toMatchObject({ currentVersion: '0001', pendingMigrations: 1 });

    await put(root, 'app__0003_bad.sql', migration(['CREATE TABLE f1 (id UInt32) ENGINE = MergeTree ORDER BY id', 'SELECT * FROM nope_table'], ['DROP TABLE f1']));
    const failure = await engine.migrate(entry, ctx).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(MigrationFailedError);
    expect((failure as Error).message).toMatch(/app__0003_bad.sql:3: .*already ran: line 2: CREATE TABLE f1/);
    const history = await engine.history(entry, ctx);
    expect(history.records.map((r) => r.filename).sort()).toEqual(['RA__log.sql', 'app__0001_t.sql', 'app__0002_u.sql']);
    expect((await engine.lockStatus(entry, ctx)).active).toBe(false);
    expect((await engine.unlock(entry, ctx)).released).toBeNull();
  });

  it("goes on in a new session after a file with SET or a temporary table: the next file has neither", async () => {
    const own = await mkdtemp(join(tmpdir(), 'mtool-engine-chdb-session-'));
    try {
      await mkdir(join(own, 'migrations', 'app'), { recursive: true });
      const entry = testEntry(own, 'app', 'clickhouse', `chdb:///${join(own, 'chdata')}`);
      const file = (name: string, statements: string[]) => writeFile(join(own, 'migrations', 'app', name), migration(statements));
      await file('app__0001_set.sql', ['SET max_threads = 1', 'CREATE TEMPORARY TABLE scratch (id UInt32)']);
      await file('app__0002_again.sql', ['CREATE TEMPORARY TABLE scratch (id UInt32)', "CREATE TABLE seen ENGINE = Memory AS SELECT value AS v FROM system.settings WHERE name = 'max_threads'"]);
      await file('app__0003_keep.sql', ['CREATE TABLE kept ENGINE = Memory AS SELECT v FROM seen']);
      expect((await engine.migrate(entry, { root: own, log: logger })).outcomes).toHaveLength(3);
      // The in-memory `seen` lives as long as the engine: read through the last file's copy of it, in the same process.
      const conn = await connectTo('clickhouse', entry.url, { root: own });
      try {
        expect((await conn.query('SELECT v FROM kept')).rows.map((r) => r.v)).not.toContain('1');
      } finally {
        await conn.close();
      }
    } finally {
      await rm(own, { recursive: true, force: true });
    }
  });
});

/**
 * The migration folder is read while the connection opens and the lock is taken (engine.ts
 * withFilesAndSession): a folder that cannot be loaded still fails the command with its own error,
 * whether the database is reachable (the lock is then released) or not (the files' error wins).
 */
for (const target of TARGETS.filter((t) => t.type === 'sqlite' || t.type === 'postgresql' || t.type === 'mariadb')) {
  const reachable = await targetReachable(target);
  describe.skipIf(!reachable)(`a migration folder that cannot be loaded, on ${target.id}`, () => {
    let root: string;
    let db: ProvisionedDatabase;
    beforeAll(async () => {
      root = await tempRoot();
      db = await provision(target);
    });
    afterAll(async () => {
      await db.drop();
      await rm(root, { recursive: true, force: true });
    });

    it('fails migrate, rollback and status with the file error and leaves the lock released', async () => {
      const entry = testEntry(root, 'app', target.type, db.url);
      const ctx = { root, log: logger };
      await put(root, 'app__0001_a.sql', migration(['CREATE TABLE a (id integer)'], ['DROP TABLE a']));
      await engine.migrate(entry, ctx);
      await put(root, 'app__02_short.sql', migration(['CREATE TABLE b (id integer)']));
      for (const run of [() => engine.migrate(entry, ctx), () => engine.rollback(entry, ctx, {}), () => engine.status(entry, ctx)]) {
        await expect(run()).rejects.toMatchObject({ code: 'MTOOL_MIGRATION_FILE', message: expect.stringContaining('app__02_short.sql') });
        expect((await engine.lockStatus(entry, ctx)).active).toBe(false);
      }
      expect((await engine.history(entry, ctx)).records.map((r) => r.filename)).toEqual(['app__0001_a.sql']);
    });

    it.skipIf(target.type === 'sqlite')('reports the file error, not the connection error, when the database is unreachable too', async () => {
      const url = new URL(db.url);
      url.port = '1';
      const entry = testEntry(root, 'app', target.type, url.toString());
      await expect(engine.migrate(entry, { root, log: logger })).rejects.toMatchObject({ code: 'MTOOL_MIGRATION_FILE' });
      await expect(engine.status(entry, { root, log: logger })).rejects.toMatchObject({ code: 'MTOOL_MIGRATION_FILE' });
    });
  });
}
