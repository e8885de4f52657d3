import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { busyHint } from '../../src/dialects/sqlite/file-hints.js';
import { sqliteFile } from '../../src/dialects/sqlite/driver.js';
import { sqliteQuoting } from '../../src/dialects/sqlite/quoting.js';
import { connectTo } from '../support/databases.js';

describe('sqlite', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'mtool-sqlite-root-'));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('resolves a relative path against the project root, not the working directory', async () => {
    await mkdir(join(root, 'data'));
    const conn = await connectTo('sqlite', 'sqlite:///data/app.db', { root });
    await conn.query('CREATE TABLE t (id INTEGER)');
    await conn.close();
    expect(existsSync(join(root, 'data', 'app.db'))).toBe(true);
    expect(existsSync(join(process.cwd(), 'data', 'app.db'))).toBe(false);
    expect(sqliteFile('/abs/x.db', root)).toBe('/abs/x.db');
    expect(sqliteFile(':memory:', root)).toBe(':memory:');
  });

  it('opens an absolute path (four slashes)', async () => {
    const conn = await connectTo('sqlite', `sqlite:///${join(root, 'abs.db')}`, { root: '/nonexistent' });
    await conn.query('CREATE TABLE t (id INTEGER)');
    await conn.close();
    expect(existsSync(join(root, 'abs.db'))).toBe(true);
  });

  it('turns the timeout option into the busy timeout and switches foreign keys on', async () => {
    const conn = await connectTo('sqlite', 'sqlite:///:memory:?timeout=0.25');
    try {
      expect((await conn.query('PRAGMA busy_timeout')).rows[0]).toEqual({ timeout: 250 });
      expect((await conn.query('PRAGMA foreign_keys')).rows[0]).toEqual({ foreign_keys: 1 });
    } finally {
      await conn.close();
    }
  });

  it('truncates the rollback journal instead of deleting it, and leaves a WAL database in WAL', async () => {
    const plain = await connectTo('sqlite', 'sqlite:///plain.db', { root });
    try {
      expect((await plain.query('PRAGMA journal_mode')).rows[0]).toEqual({ journal_mode: 'truncate' });
    } finally {
      await plain.close();
    }
    const wal = await connectTo('sqlite', 'sqlite:///wal.db', { root });
    await wal.query('PRAGMA journal_mode = WAL');
    await wal.close();
    const again = await connectTo('sqlite', 'sqlite:///wal.db', { root });
    try {
      expect((await again.query('PRAGMA journal_mode')).rows[0]).toEqual({ journal_mode: 'wal' });
    } finally {
      await again.close();
    }
  });

  it('waits for a writer lock up to the timeout, then fails as MTOOL_DATABASE', async () => {
    const url = 'sqlite:///locked.db?timeout=0.3';
    const a = await connectTo('sqlite', url, { root });
    const b = await connectTo('sqlite', url, { root, databaseName: 'app' });
    try {
      await a.query('CREATE TABLE t (id INTEGER)');
      await a.query('BEGIN IMMEDIATE');
      const started = Date.now();
      const error = await b.query('BEGIN IMMEDIATE').catch((e: unknown) => e);
      expect(Date.now() - started).toBeGreaterThanOrEqual(250);
      expect(error).toMatchObject({ code: 'MTOOL_DATABASE' });
      expect((error as Error).message).toBe(`sqlite (app): database is locked; ${busyHint(join(root, 'locked.db'), 300)}`);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('fails a file in a missing folder as MTOOL_CONNECTION naming the file', async () => {
    const error = await connectTo('sqlite', 'sqlite:///no/such/dir/x.db', { root }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'MTOOL_CONNECTION' });
    expect((error as Error).message).toContain(join(root, 'no/such/dir/x.db'));
  });

  it('keeps text with NUL characters and integers beyond 2^53 exact', async () => {
    const conn = await connectTo('sqlite', 'sqlite:///:memory:');
    try {
      const { rows } = await conn.query(`SELECT ${sqliteQuoting.literal('a\0b')} AS s, 9007199254740993 AS big, 42 AS small`);
      expect(rows[0]).toEqual({ s: 'a\0b', big: '9007199254740993', small: 42 });
    } finally {
      await conn.close();
    }
  });
});
