import { afterAll, describe, expect, it } from 'vitest';
import { getDialect } from '../../src/dialects/index.js';
import { postgresQuoting } from '../../src/dialects/postgresql/quoting.js';
import { PostgresError } from '../../src/dialects/postgresql/postgres-error.js';
import { TEST_URLS, connectTo, serverStatus, useTestDatabase, withDatabase } from '../support/databases.js';
import { secondsToGiveUp } from './silent-server.js';

const pg = await serverStatus('postgresql');

/** The test database's URL with extra query options. */
function withOptions(url: string, options: string): string {
  return `${url}${url.includes('?') ? '&' : '?'}${options}`;
}

describe('postgresql quoting', () => {
  it('doubles quotes and switches to E-strings only for backslashes', () => {
    expect(postgresQuoting.literal("it's")).toBe("'it''s'");
    expect(postgresQuoting.literal('a\\b')).toBe("E'a\\\\b'");
    expect(postgresQuoting.literal("it's a\\b")).toBe("E'it''s a\\\\b'");
    expect(postgresQuoting.qualified('app', 'we"ird')).toBe('"app"."we""ird"');
    expect(postgresQuoting.literal(new Uint8Array([1, 255]))).toBe("decode('01ff', 'hex')");
    expect(postgresQuoting.literal(Number.NaN)).toBe("'NaN'::float8");
  });

  it('refuses text with NUL, which PostgreSQL cannot store', () => {
    expect(() => postgresQuoting.literal('a\0b')).toThrow(/NUL/);
  });
});

describe.skipIf(!pg.reachable)('postgresql connection options', () => {
  const db = useTestDatabase('postgresql');
  const dialect = getDialect('postgresql');
  afterAll(() => dialect.dispose());

  it("applies libpq's options: server settings for the session (-c lock_timeout=...)", async () => {
    const conn = await connectTo('postgresql', withOptions(db.url, `options=${encodeURIComponent('-c lock_timeout=1234ms -c statement_timeout=5min')}`));
    try {
      const { rows } = await conn.query("SELECT current_setting('lock_timeout') AS lt, current_setting('statement_timeout') AS st");
      expect(rows[0]).toEqual({ lt: '1234ms', st: '5min' });
    } finally {
      await conn.close();
    }
  });

  it('applies application_name (visible in pg_stat_activity)', async () => {
    const conn = await connectTo('postgresql', withOptions(db.url, 'application_name=mtool-conformance'));
    try {
      const { rows } = await conn.query('SELECT application_name FROM pg_stat_activity WHERE pid = pg_backend_pid()');
      expect(rows[0]!.application_name).toBe('mtool-conformance');
    } finally {
      await conn.close();
    }
  });

  it('puts pgSchema first on the search path, and a pooled session forgets it on close', async () => {
    const setup = await connectTo('postgresql', db.url);
    await setup.query('CREATE SCHEMA app');
    await setup.close();
    const url = withOptions(db.url, 'pool_size=1&max_overflow=0');
    const conn = await connectTo('postgresql', url, { pgSchema: 'app' });
    const pid = (await conn.query('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
    await conn.query('CREATE TABLE in_app (id int)');
    const { rows } = await conn.query("SELECT table_schema FROM information_schema.tables WHERE table_name = 'in_app'");
    expect(rows).toEqual([{ table_schema: 'app' }]);
    await conn.close();
    // pool_size=1: the next connection gets the same server session back, reset.
    const next = await connectTo('postgresql', url);
    try {
      expect((await next.query('SELECT pg_backend_pid() AS pid')).rows[0]!.pid).toBe(pid);
      expect((await next.query('SHOW search_path')).rows[0]!.search_path).toBe('"$user", public');
    } finally {
      await next.close();
    }
  });

  it('reuses one pooled session many times without piling up listeners on it', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    try {
      const url = withOptions(db.url, 'pool_size=1&max_overflow=0');
      for (let i = 0; i < 15; i++) {
        const conn = await connectTo('postgresql', url);
        await conn.query('SELECT 1');
        await conn.close();
      }
      await new Promise((r) => setImmediate(r));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings).not.toContain('MaxListenersExceededWarning');
  });

  it('bounds the wait for a session by pool_timeout when pool_size + max_overflow are in use', async () => {
    const url = withOptions(db.url, 'pool_size=1&max_overflow=0&pool_timeout=0.5');
    const held = await connectTo('postgresql', url);
    try {
      const started = Date.now();
      const error = await connectTo('postgresql', url).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PostgresError);
      expect(error).toMatchObject({ code: 'MTOOL_CONNECTION' });
      expect((error as Error).message).toMatch(/^postgresql \(test\): timeout exceeded/);
      expect(Date.now() - started).toBeLessThan(3000);
    } finally {
      await held.close();
    }
  });

  it('closes sessions released beyond pool_size (max_overflow) and keeps pool_size of them', async () => {
    const url = withOptions(db.url, 'pool_size=1&max_overflow=2&application_name=mtool-overflow');
    const sessions = await Promise.all([connectTo('postgresql', url), connectTo('postgresql', url), connectTo('postgresql', url)]);
    const observer = await connectTo('postgresql', db.url);
    const count = async () => Number((await observer.query("SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = 'mtool-overflow'")).rows[0]!.n);
    try {
      expect(await count()).toBe(3);
      for (const s of sessions) await s.close();
      // The backend exits asynchronously after the client disconnects.
      for (let i = 0; i < 50 && (await count()) > 1; i++) await new Promise((r) => setTimeout(r, 20));
      expect(await count()).toBe(1);
    } finally {
      await observer.close();
    }
  });

  it('fails sslmode=require clearly against a server without SSL', async () => {
    const error = await connectTo('postgresql', withOptions(db.url, 'sslmode=require'), { databaseName: 'app' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'MTOOL_CONNECTION', database: 'app' });
    expect((error as Error).message).toMatch(/^postgresql \(app\): .*SSL/);
    // The hint names the URL's sslmode as the cause and what to change.
    expect((error as Error).message).toMatch(/; the URL's sslmode=require requires TLS, which the server at 127\.0\.0\.1:\d+ does not offer: turn ssl on in the server's configuration, or use sslmode=prefer \(TLS when offered\) or sslmode=disable$/);
  });

  it('falls back to a plain connection under the default sslmode (prefer)', async () => {
    const conn = await connectTo('postgresql', withOptions(db.url, 'sslmode=prefer'));
    try {
      const { rows } = await conn.query('SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()');
      expect(rows[0]!.ssl).toBe(false);
    } finally {
      await conn.close();
    }
  });

  it('names a missing sslrootcert file', async () => {
    const error = await connectTo('postgresql', withOptions(db.url, 'sslmode=verify-full&sslrootcert=certs/nope.pem'), { root: '/tmp/mtool-root' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'MTOOL_URL' });
    expect((error as Error).message).toContain("sslrootcert file '/tmp/mtool-root/certs/nope.pem' (ENOENT)");
  });

  it('gives up after connect_timeout on a server that never answers', async () => {
    const seconds = await secondsToGiveUp((port) => connectTo('postgresql', `postgresql://postgres@127.0.0.1:${port}/x?connect_timeout=1&pool_timeout=30&sslmode=disable`));
    expect(seconds).toBeGreaterThanOrEqual(0.9);
    expect(seconds).toBeLessThan(5);
  });

  it('keeps SQLSTATE and position, and never shows the password', async () => {
    // Trust authentication ignores the password, so the session opens with it in the URL.
    const url = db.url.replace('postgres@', 'postgres:Sup3r%2Fsecret@');
    const conn = await connectTo('postgresql', url, { databaseName: 'app' });
    try {
      const error = await conn.query("SELECT * FROM missing_table /* Sup3r/secret */").catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PostgresError);
      expect(error).toMatchObject({ code: 'MTOOL_DATABASE', sqlState: '42P01', position: 15 });
      expect((error as Error).message).toBe('postgresql (app): relation "missing_table" does not exist');
      const syntax = await conn.query("SELECT 'Sup3r/secret' FROM").catch((e: unknown) => e);
      expect(JSON.stringify({ m: (syntax as Error).message, c: String((syntax as Error).cause) })).not.toContain('Sup3r');
    } finally {
      await conn.close();
    }
  });

  it('round-trips backslashes with standard_conforming_strings off', async () => {
    const conn = await connectTo('postgresql', db.url);
    try {
      await conn.query('SET standard_conforming_strings = off');
      const value = "C:\\path\\it's";
      expect((await conn.query(`SELECT ${postgresQuoting.literal(value)} AS v`)).rows[0]!.v).toBe(value);
    } finally {
      await conn.close();
    }
  });
});
