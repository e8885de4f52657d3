import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { DatabaseEntry } from '../../src/main/config/types.js';
import * as engine from '../../src/main/engine/engine.js';
import { exitCodeOf, failureToRaise, runOnDatabases } from '../../src/main/engine/run-many.js';
import { logger } from '../../src/main/log.js';
import { RunContext } from '../../src/main/run-context.js';
import { testEntry } from '../support/database-entry.js';

const Database = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;

const entry = (name: string) => ({ name, type: 'sqlite' }) as DatabaseEntry;

describe('runOnDatabases', () => {
  it('under --all, starts no database after Ctrl-C / SIGTERM, and says so for each', async () => {
    const controller = new AbortController();
    const started: string[] = [];
    const runs = await runOnDatabases([entry('a'), entry('b'), entry('c')], { all: true, disableSkip: false, log: logger, concurrency: 1, signal: controller.signal }, async (e) => {
      started.push(e.name);
      controller.abort(new Error('SIGINT'));
      return e.name;
    });
    expect(started).toEqual(['a']);
    expect(runs.map((r) => r.status)).toEqual(['ok', 'failed', 'failed']);
    expect(runs[1]).toMatchObject({ status: 'failed', error: { code: 'MTOOL_MIGRATION_FAILED', message: 'interrupted (SIGINT): nothing was done on this database' } });
    expect(exitCodeOf(runs)).toBe(1);
  });

  it('on one database, returns the failure for the command to raise after its output', async () => {
    const boom = new Error('boom');
    const runs = await runOnDatabases([entry('a')], { all: false, disableSkip: false, log: logger }, async () => {
      throw boom;
    });
    expect(runs).toEqual([{ entry: entry('a'), status: 'failed', error: boom }]);
    expect(failureToRaise(runs, false)).toBe(boom);
    expect(failureToRaise(runs, true)).toBeUndefined();
  });
});

describe('a database whose turn comes after Ctrl-C / SIGTERM', () => {
  it('takes no lock and runs nothing', async () => {
    const root = await mkdtemp(join(tmpdir(), 'mtool-aborted-'));
    try {
      await mkdir(join(root, 'migrations', 'app'), { recursive: true });
      await writeFile(join(root, 'migrations', 'app', 'app__0001_a.sql'), '-- upgrade\nCREATE TABLE a (id integer);\n');
      const run = new RunContext();
      run.abort('SIGTERM');
      const error = await engine.migrate(testEntry(root, 'app', 'sqlite', 'sqlite:///app.db'), { root, log: logger, run }).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'MTOOL_MIGRATION_FAILED', message: 'interrupted (SIGTERM): the lock was not taken and nothing ran' });
      // Not even the tracking tables: the file SQLite opened holds nothing.
      const db = new Database(join(root, 'app.db'));
      expect(db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all()).toEqual([]);
      db.close();
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
