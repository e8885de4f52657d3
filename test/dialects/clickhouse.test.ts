import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseChdbUrl } from '../../src/dialects/clickhouse/chdb-url.js';
import { ClickHouseError, parseClickHouseError } from '../../src/dialects/clickhouse/clickhouse-error.js';
import { clickhouseQuoting } from '../../src/dialects/clickhouse/quoting.js';
import { TEST_URLS, connectTo, serverStatus, useTestDatabase } from '../support/databases.js';
import { secondsToGiveUp } from './silent-server.js';

const ch = await serverStatus('clickhouse');

/** Error texts as the two server generations write them (recorded from 18.16.1 and 24.x). */
const OLD = "Code: 60, e.displayText() = DB::Exception: Table default.nope doesn't exist., e.what() = DB::Exception";
const NEW = "Code: 60. DB::Exception: Table default.nope doesn't exist. (UNKNOWN_TABLE) (version 24.3.2.23 (official build))";

describe('clickhouse error formats', () => {
  it('parses the old and the current format into the same code and message', () => {
    expect(parseClickHouseError(OLD)).toEqual({ serverCode: 60, serverType: undefined, message: "Table default.nope doesn't exist" });
    expect(parseClickHouseError(NEW)).toEqual({ serverCode: 60, serverType: 'UNKNOWN_TABLE', message: "Table default.nope doesn't exist" });
    expect(parseClickHouseError('connect ECONNREFUSED 127.0.0.1:8123')).toBeUndefined();
  });

  it('reads the code and type @clickhouse/client already split off a current server error', () => {
    // The client turns `Code: 60. DB::Exception: … (UNKNOWN_TABLE)` into this shape itself.
    const fromClient = Object.assign(new Error("Table default.nope doesn't exist. "), { code: '60', type: 'UNKNOWN_TABLE' });
    const error = new ClickHouseError('MTOOL_DATABASE', { type: 'clickhouse', databaseName: 'events', secrets: [] }, fromClient);
    expect(error).toMatchObject({ serverCode: 60, serverType: 'UNKNOWN_TABLE', serverMessage: "Table default.nope doesn't exist" });
    expect(error.message).toBe("clickhouse (events): Table default.nope doesn't exist");
  });

  it('keeps parentheses inside the message', () => {
    const text = 'Code: 62. DB::Exception: Syntax error: failed at position 7 (line 1, col 7): x. Expected one of: end of query. (SYNTAX_ERROR)';
    expect(parseClickHouseError(text)).toMatchObject({ serverCode: 62, serverType: 'SYNTAX_ERROR', message: 'Syntax error: failed at position 7 (line 1, col 7): x. Expected one of: end of query' });
  });
});

describe('clickhouse quoting', () => {
  it('escapes with backslashes in strings and identifiers', () => {
    expect(clickhouseQuoting.literal("it's \\ \n")).toBe("'it\\'s \\\\ \\n'");
    expect(clickhouseQuoting.ident('a`b')).toBe('`a\\`b`');
    expect(clickhouseQuoting.literal(new Date('2024-02-29T12:34:56.789Z'))).toBe("toDateTime('2024-02-29 12:34:56', 'UTC')");
    expect(clickhouseQuoting.literal(true)).toBe('1');
  });
});

describe('chdb URLs', () => {
  it('accepts memory, relative and absolute folders', () => {
    expect(parseChdbUrl('chdb://:memory:', '/p')).toEqual({ path: ':memory:' });
    expect(parseChdbUrl('chdb:///:memory:', '/p')).toEqual({ path: ':memory:' });
    expect(parseChdbUrl('chdb:///data/ch', '/p')).toEqual({ path: join('/p', 'data/ch') });
    expect(parseChdbUrl('chdb:////var/ch', '/p')).toEqual({ path: '/var/ch' });
  });

  it('refuses hosts, users and options without echoing credentials', () => {
    expect(() => parseChdbUrl('chdb://user:s3cret@host/x', '/p', 'events')).toThrow(/^Database 'events': a chdb URL has no host or user \(got 'chdb:\/\/\*\*\*@host'\)/);
    expect(() => parseChdbUrl('chdb:///x?compression=1', '/p')).toThrow(/takes no options/);
  });
});

describe('clickhouse in process (chdb, current server)', () => {
  it('reports errors in the current format as the same ClickHouseError', async () => {
    const conn = await connectTo('clickhouse', 'chdb://:memory:', { databaseName: 'events' });
    try {
      const error = await conn.query('SELEC 1').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ClickHouseError);
      expect(error).toMatchObject({ code: 'MTOOL_DATABASE', serverCode: 62, serverType: 'SYNTAX_ERROR' });
      expect((error as Error).message).toMatch(/^clickhouse \(events\): Syntax error/);
      expect((error as Error).message).not.toMatch(/Code: 62|DB::Exception|\(SYNTAX_ERROR\)/);
    } finally {
      await conn.close();
    }
  });

  it('shares one temporary folder between open :memory: connections and drops it after the last', async () => {
    const a = await connectTo('clickhouse', 'chdb://:memory:');
    const b = await connectTo('clickhouse', 'chdb://:memory:');
    await a.query('CREATE TABLE shared (x UInt8) ENGINE = MergeTree ORDER BY x');
    expect((await b.query("SELECT count() AS n FROM system.tables WHERE name = 'shared'")).rows[0]!.n).toBe('1');
    await a.close();
    await b.close();
    const c = await connectTo('clickhouse', 'chdb://:memory:');
    try {
      expect((await c.query("SELECT count() AS n FROM system.tables WHERE name = 'shared'")).rows[0]!.n).toBe('0');
    } finally {
      await c.close();
    }
  });

  it('refuses a second data folder while the first is in use', async () => {
    const a = await connectTo('clickhouse', 'chdb://:memory:');
    try {
      const error = await connectTo('clickhouse', 'chdb:///elsewhere', { root: '/tmp' }).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'MTOOL_CONNECTION' });
      expect((error as Error).message).toMatch(/one data folder per process/);
    } finally {
      await a.close();
    }
  });
});

describe.skipIf(!ch.reachable)('clickhouse 18.16 over HTTP', () => {
  const db = useTestDatabase('clickhouse');

  it('reports errors in the old format as the same ClickHouseError', async () => {
    const conn = await connectTo('clickhouse', db.url, { databaseName: 'events' });
    try {
      const error = await conn.query('SELEC 1').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ClickHouseError);
      expect(error).toMatchObject({ code: 'MTOOL_DATABASE', serverCode: 62 });
      expect((error as Error).message).toMatch(/^clickhouse \(events\): Syntax error/);
      expect((error as Error).message).not.toMatch(/Code: 62|e\.displayText|e\.what/);
      expect(await conn.serverVersion()).toBe('18.16.1');
    } finally {
      await conn.close();
    }
  });

  it('sends send_timeout and receive_timeout as settings, and keeps SET for the session', async () => {
    const conn = await connectTo('clickhouse', `${db.url}?send_timeout=7&receive_timeout=9&connect_timeout=3`);
    try {
      const { rows } = await conn.query("SELECT name, value FROM system.settings WHERE name IN ('send_timeout', 'receive_timeout') ORDER BY name");
      expect(rows).toEqual([
        { name: 'receive_timeout', value: '9' },
        { name: 'send_timeout', value: '7' },
      ]);
      await conn.query('SET max_threads = 3');
      expect((await conn.query("SELECT value FROM system.settings WHERE name = 'max_threads'")).rows[0]!.value).toBe('3');
    } finally {
      await conn.close();
    }
  });

  it('works with compression on', async () => {
    const conn = await connectTo('clickhouse', `${db.url}?compression=true`);
    try {
      await conn.query('CREATE TABLE c (s String) ENGINE = Memory');
      await conn.query(`INSERT INTO c VALUES (${clickhouseQuoting.literal('x'.repeat(10_000))})`);
      expect((await conn.query('SELECT length(s) AS n FROM c')).rows[0]!.n).toBe('10000');
    } finally {
      await conn.close();
    }
  });

  it('uses the database from the URL path', async () => {
    const conn = await connectTo('clickhouse', db.url);
    try {
      expect((await conn.query('SELECT currentDatabase() AS d')).rows[0]!.d).toBe(db.name);
    } finally {
      await conn.close();
    }
  });

  it('fails a wrong password as MTOOL_CONNECTION without showing it', async () => {
    const url = db.url.replace('http://', 'http://default:Wr0ngPa55@');
    const error = await connectTo('clickhouse', url, { databaseName: 'events' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'MTOOL_CONNECTION', database: 'events' });
    expect((error as Error).message).toMatch(/^clickhouse \(events\): /);
    expect(`${(error as Error).message} ${(error as Error).stack} ${String((error as Error).cause)}`).not.toContain('Wr0ngPa55');
  });

  it('gives up after connect_timeout on a server that never answers', async () => {
    const seconds = await secondsToGiveUp((port) => connectTo('clickhouse', `http://127.0.0.1:${port}/?connect_timeout=1`));
    expect(seconds).toBeGreaterThanOrEqual(0.9);
    expect(seconds).toBeLessThan(5);
  });
});
