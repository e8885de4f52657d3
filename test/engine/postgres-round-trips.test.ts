import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { disposeDialects } from '../../src/dialects/index.js';
import { PostgresError } from '../../src/dialects/postgresql/postgres-error.js';
import * as engine from '../../src/main/engine/engine.js';
import { MigrationFailedError } from '../../src/main/engine/migration-error.js';
import { configureLogging, logger } from '../../src/main/log.js';
import { testEntry } from '../support/database-entry.js';
import { DEFERRED_ORPHAN, migration } from './support/project.js';
import { TARGETS, provision, queryOnce, tableExistsAt, targetReachable, type ProvisionedDatabase } from './support/targets.js';

/**
 * On PostgreSQL BEGIN travels with a migration's first statement and COMMIT with its tracking
 * row (two round trips for a one-statement migration). Failures in either combined message must
 * still name the right statement, roll the migration back and leave the session usable.
 */

const pg = TARGETS.find((t) => t.id === 'postgresql')!;
const reachable = await targetReachable(pg);
const lines: string[] = [];
const sink = { write: (line: string) => void lines.push(line) };

describe.skipIf(!reachable)('PostgreSQL combined BEGIN / COMMIT', () => {
  let root: string;
  let db: ProvisionedDatabase;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'mtool-pg-rtt-'));
    await mkdir(join(root, 'migrations', 'app'), { recursive: true });
    db = await provision(pg);
  });
  afterEach(async () => {
    configureLogging({ level: 'info', json: false, sink: undefined });
    lines.length = 0;
    await db.drop();
    await rm(root, { recursive: true, force: true });
  });
  afterAll(() => disposeDialects());
  const put = (filename: string, content: string) => writeFile(join(root, 'migrations', 'app', filename), content);
  const recorded = async () => (await queryOnce(pg, db.url, 'SELECT filename FROM _mtool_migrations ORDER BY filename')).map((r) => r.filename);

  it('a failing first statement is named with its line and position, rolled back, and the next migrate works', async () => {
    const entry = testEntry(root, 'app', 'postgresql', db.url);
    await put('app__0001_a.sql', migration(['CREATE TABLE a (id integer)']));
    await put('app__0002_b.sql', migration(['SELECT * FROM missing_b', 'CREATE TABLE b (id integer)']));
    const error = await engine.migrate(entry, { root, log: logger }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MigrationFailedError);
    expect((error as Error).message).toMatch(/^app__0002_b\.sql:2: .*missing_b.* rolled back as a whole/);
    const cause = (error as Error).cause;
    expect(cause).toBeInstanceOf(PostgresError);
    expect((cause as PostgresError).position).toBe('SELECT * FROM missing_b'.indexOf('missing_b') + 1);
    expect(await recorded()).toEqual(['app__0001_a.sql']);
    expect(await tableExistsAt(pg, db.url, 'b')).toBe(false);

    await put('app__0002_b.sql', migration(['CREATE TABLE missing_b (id integer)', 'CREATE TABLE b (id integer)']));
    const result = await engine.migrate(entry, { root, log: logger });
    expect(result.outcomes.map((o) => o.action)).toEqual(['applied']);
    expect(await recorded()).toEqual(['app__0001_a.sql', 'app__0002_b.sql']);
  });

  it('a COMMIT that fails (deferred foreign key) rolls the migration back and records nothing for it', async () => {
    const entry = testEntry(root, 'app', 'postgresql', db.url);
    for (const [name, content] of Object.entries(DEFERRED_ORPHAN)) await put(name, content);
    configureLogging({ level: 'info', json: true, sink });
    const error = await engine.migrate(entry, { root, log: logger }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MigrationFailedError);
    expect((error as Error).message).toMatch(/^app__0002_orphan\.sql: .*foreign key.* rolled back as a whole/);
    expect(await recorded()).toEqual(['app__0001_schema.sql']);
    expect(Number((await queryOnce(pg, db.url, 'SELECT count(*) AS n FROM child'))[0]!.n)).toBe(0);
    expect(lines.map((l) => JSON.parse(l)).filter((r) => r.level === 'ERROR')).toEqual([]);
  });

  it("a migration's own transaction commits asynchronously (SET LOCAL synchronous_commit off)", async () => {
    const entry = testEntry(root, 'app', 'postgresql', db.url);
    await put('app__0001_a.sql', migration(["CREATE TABLE seen AS SELECT current_setting('synchronous_commit') AS v"]));
    await put('app__0002_b.sql', migration(["INSERT INTO seen SELECT current_setting('synchronous_commit')"]));
    await engine.migrate(entry, { root, log: logger });
    expect((await queryOnce(pg, db.url, 'SELECT v FROM seen')).map((r) => r.v)).toEqual(['off', 'off']);
  });

  it('trace logs BEGIN, each statement and COMMIT on their own lines', async () => {
    const entry = testEntry(root, 'app', 'postgresql', db.url);
    await put('app__0001_a.sql', migration(['CREATE TABLE a (id integer)']));
    configureLogging({ level: 'trace', json: true, sink });
    await engine.migrate(entry, { root, log: logger });
    const sql = lines.map((l) => JSON.parse(l).message as string).filter((m) => m.startsWith('SQL ('));
    const at = sql.findIndex((m) => /\): BEGIN$/.test(m));
    expect(sql.slice(at, at + 4).map((m) => m.replace(/^SQL \([^)]*\): /, '').split(' ')[0])).toEqual(['BEGIN', 'CREATE', 'INSERT', 'COMMIT']);
  });
});
