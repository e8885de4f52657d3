import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { disposeDialects } from '../../src/dialects/index.js';
import { loadConfig, selectDatabases } from '../../src/main/config/load-config.js';
import * as engine from '../../src/main/engine/engine.js';
import { LARGE_BATCH, snapshotHooks } from '../../src/main/engine/snapshot-hook.js';
import { configureLogging, logger } from '../../src/main/log.js';
import { findLatestSnapshot, readSnapshot } from '../../src/main/snapshot/index.js';
import { createTestDatabase, serverStatus, type TestDatabase } from '../support/databases.js';
import { project } from '../models/project.js';

const lines: string[] = [];
beforeEach(() => {
  lines.length = 0;
  configureLogging({ level: 'info', json: true, sink: { write: (line) => void lines.push(line) } });
});
afterEach(() => configureLogging({ level: 'info', json: false, sink: undefined }));
afterAll(() => disposeDialects());

const messages = () => lines.map((l) => JSON.parse(l) as { level: string; message: string });

async function setup(type: 'sqlite' | 'postgresql', url: string) {
  const dir = await project({
    'mtool.config.ts': `import { databaseConfig } from 'mtool';\ndatabaseConfig({ databaseName: 'app', default: true, databaseType: '${type}', databaseUrl: '${url}' });\n`,
    'migrations/app/app__0001_users.sql': '-- upgrade\nCREATE TABLE users (id integer PRIMARY KEY, email varchar(255) NOT NULL);\n-- rollback\nDROP TABLE users;\n',
    'migrations/app/app__0002_posts.sql': '-- upgrade\nCREATE TABLE posts (id integer PRIMARY KEY, title text);\n-- rollback\nDROP TABLE posts;\n',
    'migrations/app/RA__touch.sql': '-- upgrade\nCREATE TABLE IF NOT EXISTS ra_marker (id integer);\n',
  });
  const config = await loadConfig({ cwd: dir, env: {} });
  const entry = selectDatabases(config, {})[0]!;
  const migrate = (options: engine.MigrateOptions = {}) =>
    engine.migrate(entry, { root: dir, log: logger }, { ...options, hooks: snapshotHooks({ root: dir, databases: config.databases, log: logger }) });
  const snapshots = async () => (await readdir(join(dir, '.mtool', 'schemas')).catch(() => [] as string[])).filter((f) => !f.startsWith('.')).sort();
  return { dir, migrate, snapshots };
}

const pg = await serverStatus('postgresql');
const targets: { type: 'sqlite' | 'postgresql'; reachable: boolean }[] = [
  { type: 'sqlite', reachable: true },
  { type: 'postgresql', reachable: pg.reachable },
];

for (const target of targets) {
  describe.skipIf(!target.reachable)(`migrate writes schema snapshots (${target.type})`, () => {
    let db: TestDatabase | undefined;
    const url = async () => {
      if (target.type === 'sqlite') return 'sqlite:///app.db';
      db = await createTestDatabase('postgresql');
      return db.url;
    };
    afterEach(async () => {
      await disposeDialects();
      await db?.drop();
      db = undefined;
    });

    it('writes one snapshot per applied versioned migration, chained, with the live schema and a phase timing', async () => {
      const p = await setup(target.type, await url());
      await p.migrate();
      expect(await p.snapshots()).toEqual(['app__0001_users.schema.json', 'app__0002_posts.schema.json']);
      const first = await readSnapshot(join(p.dir, '.mtool', 'schemas', 'app__0001_users.schema.json'));
      const second = await findLatestSnapshot(p.dir, 'app');
      expect(Object.keys(first!.tables)).toEqual(['users']);
      // The repeatable ran after the versioned files: not in any snapshot, and mtool's own tables never are.
      expect(Object.keys(second!.tables).sort()).toEqual(['posts', 'users']);
      expect(second!.previous_checksum).toBe(first!.checksum);
      expect(second!.database_type).toBe(target.type);
      // One INFO phase timing for the batch's snapshots (per-file lines are DEBUG).
      expect(messages().filter((m) => m.level === 'INFO' && /^2 snapshots written \(/.test(m.message))).toHaveLength(1);
    });

    it('with --defer-snapshots writes only the snapshot of the last migration of the batch', async () => {
      const p = await setup(target.type, await url());
      await p.migrate({ deferSnapshots: true });
      expect(await p.snapshots()).toEqual(['app__0002_posts.schema.json']);
      const snap = await findLatestSnapshot(p.dir, 'app');
      // Taken before the repeatables run: a snapshot is what the versioned migrations made.
      expect(Object.keys(snap!.tables).sort()).toEqual(['posts', 'users']);
      expect(messages().filter((m) => /^snapshot written in \d/.test(m.message))).toHaveLength(1);
    });

    it('writes nothing on --dry-run, nor when only repeatables run', async () => {
      const p = await setup(target.type, await url());
      await p.migrate({ dryRun: true });
      expect(await p.snapshots()).toEqual([]);
      await p.migrate({ toVersion: '0001' });
      expect(await p.snapshots()).toEqual(['app__0001_users.schema.json']);
      await writeFile(join(p.dir, 'migrations', 'app', 'app__0002_posts.sql'), '-- upgrade\nCREATE TABLE posts (id integer PRIMARY KEY);\n');
      await p.migrate();
      const after = await p.snapshots();
      await p.migrate(); // nothing versioned is pending: only the RA__ file runs
      expect(await p.snapshots()).toEqual(after);
    });

    it('only warns when the snapshot cannot be written; the migration stays applied', async () => {
      const p = await setup(target.type, await url());
      await mkdir(join(p.dir, '.mtool'), { recursive: true });
      await writeFile(join(p.dir, '.mtool', 'schemas'), 'not a folder');
      const result = await p.migrate();
      expect(result.outcomes.filter((o) => o.action === 'applied').map((o) => o.filename)).toContain('app__0002_posts.sql');
      const warnings = messages().filter((m) => m.level === 'WARNING');
      expect(
        warnings.some(
          (w) => w.message.startsWith("schema snapshots of database 'app' not written to ") && w.message.includes('app__0001_users.sql') && w.message.includes('The migrations are applied and recorded'),
        ),
      ).toBe(true);
      expect(await readFile(join(p.dir, '.mtool', 'schemas'), 'utf8')).toBe('not a folder');
    });
  });
}

describe(`a batch of ${LARGE_BATCH} migrations or more with a snapshot after each`, () => {
  /** The two migrations of {@link setup} and as many more as it takes to have `count`. */
  async function withMigrations(count: number) {
    const p = await setup('sqlite', 'sqlite:///app.db');
    for (let i = 3; i <= count; i++) {
      await writeFile(join(p.dir, 'migrations', 'app', `app__${String(i).padStart(4, '0')}_t${i}.sql`), `-- upgrade\nCREATE TABLE t${i} (id integer);\n`);
    }
    return p;
  }
  const said = () => messages().filter((m) => /snapshot of the whole schema .*; `--defer-snapshots` writes only the last one/.test(m.message));

  it('says, once and before it, that --defer-snapshots would write only the last snapshot', async () => {
    const p = await withMigrations(LARGE_BATCH + 1);
    await p.migrate();
    expect(said()).toEqual([
      { level: 'INFO', message: `${LARGE_BATCH + 1} migrations to apply, each followed by a snapshot of the whole schema (the files add up to that many times its size); \`--defer-snapshots\` writes only the last one` },
    ].map((m) => expect.objectContaining(m)));
    // Before the batch's snapshots are written.
    const all = messages();
    const hint = all.findIndex((m) => m.message.includes('--defer-snapshots'));
    expect(hint).toBeGreaterThanOrEqual(0);
    expect(all.findIndex((m) => /snapshots? written/.test(m.message))).toBeGreaterThan(hint);
  });

  it('says nothing for a smaller batch, nor with --defer-snapshots', async () => {
    const smaller = await withMigrations(LARGE_BATCH + 1);
    await smaller.migrate({ toVersion: String(LARGE_BATCH - 1).padStart(4, '0') });
    await smaller.migrate();
    expect(said()).toEqual([]);
    const deferred = await withMigrations(LARGE_BATCH + 1);
    await deferred.migrate({ deferSnapshots: true });
    expect(said()).toEqual([]);
  });
});

describe('mtool migrate writes snapshots (through the binary)', () => {
  it('writes one per versioned migration, only the last with --defer-snapshots, none on --dry-run, and never the repeatables\' changes', async () => {
    const { runMtool } = await import('../support/cli.js');
    const files = {
      'mtool.config.ts': "import { databaseConfig } from 'mtool';\ndatabaseConfig({ databaseName: 'app', default: true, databaseType: 'sqlite', databaseUrl: 'sqlite:///app.db' });\n",
      'migrations/app/app__0001_users.sql': '-- upgrade\nCREATE TABLE users (id integer PRIMARY KEY);\n-- rollback\nDROP TABLE users;\n',
      'migrations/app/app__0002_posts.sql': '-- upgrade\nCREATE TABLE posts (id integer PRIMARY KEY);\n-- rollback\nDROP TABLE posts;\n',
      'migrations/app/RA__touch.sql': '-- upgrade\nCREATE TABLE IF NOT EXISTS ra_marker (id integer);\n',
    };
    const list = async (dir: string) => (await readdir(join(dir, '.mtool', 'schemas')).catch(() => [] as string[])).filter((f) => f.endsWith('.schema.json')).sort();

    const dry = await project(files);
    expect((await runMtool(['migrate', '--dry-run'], { cwd: dry })).code).toBe(0);
    expect(await list(dry)).toEqual([]);

    const each = await project(files);
    expect((await runMtool(['migrate'], { cwd: each })).code).toBe(0);
    expect(await list(each)).toEqual(['app__0001_users.schema.json', 'app__0002_posts.schema.json']);

    const deferred = await project(files);
    const run = await runMtool(['migrate', '--defer-snapshots'], { cwd: deferred });
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/snapshot written in/);
    expect(await list(deferred)).toEqual(['app__0002_posts.schema.json']);
    const snapshot = JSON.parse(await readFile(join(deferred, '.mtool', 'schemas', 'app__0002_posts.schema.json'), 'utf8'));
    expect(Object.keys(snapshot.tables).sort()).toEqual(['posts', 'users']);
  });
});
