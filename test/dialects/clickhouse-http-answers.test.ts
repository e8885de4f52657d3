import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTo, serverStatus, TEST_URLS } from '../support/databases.js';
import { silentServer } from './silent-server.js';

/**
 * What a ClickHouse connection says when the server at the URL does not answer in time, or what
 * answers there is not ClickHouse: the bound that fired (and which URL option set it), the HTTP
 * status of a foreign answer. The client library alone says "The user aborted a request.",
 * "Timeout error." or the bare (empty) body.
 */

const failure = (url: string) =>
  connectTo('clickhouse', url, { databaseName: 'ch' }).then(
    async (conn) => {
      await conn.close();
      throw new Error(`connected to ${url}`);
    },
    (e: unknown) => e as Error & { code?: string },
  );

describe('a server that takes the connection and never answers', () => {
  let silent: Awaited<ReturnType<typeof silentServer>>;
  beforeAll(async () => {
    silent = await silentServer();
  });
  afterAll(() => silent?.close());

  it('times out naming connect_timeout from the URL, not as an abort', async () => {
    const error = await failure(`http://default@127.0.0.1:${silent.port}/fix_ch_2?connect_timeout=1`);
    expect(error.code).toBe('MTOOL_CONNECTION');
    expect(error.message).toMatch(
      new RegExp(`^clickhouse \\(ch\\): the request timed out: no answer within 1 s \\(connect_timeout=1 in the URL\\); check that ClickHouse answers HTTP at 127\\.0\\.0\\.1:${silent.port} `),
    );
    expect(error.message).not.toMatch(/abort/i);
  });

  it('names receive_timeout when that shorter bound fires first', async () => {
    const error = await failure(`http://default@127.0.0.1:${silent.port}/fix_ch_2?connect_timeout=5&receive_timeout=1`);
    expect(error.code).toBe('MTOOL_CONNECTION');
    expect(error.message).toMatch(/^clickhouse \(ch\): the request timed out: no answer within 1 s \(receive_timeout=1 in the URL\); /);
    expect(error.message).not.toMatch(/Timeout error/);
  });
});

describe('an HTTP server that is not ClickHouse', () => {
  let server: Server;
  let port: number;
  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url?.includes('fix_ch_ok')) {
        res.writeHead(200, { 'content-type': 'text/html' }).end('<html>hello</html>');
      } else {
        res.writeHead(404, { 'content-length': 0 }).end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('an error answer with an empty body: its HTTP status, and that it is not ClickHouse', async () => {
    const error = await failure(`http://default@127.0.0.1:${port}/fix_ch_2`);
    expect(error.code).toBe('MTOOL_CONNECTION');
    expect(error.message).toBe(
      `clickhouse (ch): HTTP 404 Not Found with an empty body from 127.0.0.1:${port}: the server there does not look like ClickHouse (no ClickHouse error in the answer); ` +
        "check that the URL's host and port are those of ClickHouse's HTTP interface (port 8123 by default, 8443 with https), not of another web server or a proxy",
    );
  });

  it('a success answer without a version: not taken for ClickHouse', async () => {
    // The database goes into the request's query string, where this server looks for it.
    const error = await failure(`http://default@127.0.0.1:${port}/fix_ch_ok`);
    expect(error.code).toBe('MTOOL_CONNECTION');
    expect(error.message).toMatch(new RegExp(`^clickhouse \\(ch\\): HTTP 200 OK from 127\\.0\\.0\\.1:${port} without a version in the answer to SELECT version\\(\\): the server there does not look like ClickHouse; `));
  });
});

const { reachable } = await serverStatus('clickhouse');
describe.skipIf(!reachable)('a statement that outlasts receive_timeout on a real server', () => {
  it('says the request timed out after receive_timeout, and that the statement was stopped', async () => {
    const url = new URL(TEST_URLS.clickhouse);
    url.pathname = '/default';
    url.search = 'receive_timeout=1';
    const conn = await connectTo('clickhouse', url.toString(), { databaseName: 'ch' });
    try {
      const error = await conn.query('SELECT sleep(3)').then(
        () => undefined,
        (e: unknown) => e as Error & { code?: string },
      );
      expect(error?.code).toBe('MTOOL_CONNECTION');
      expect(error?.message).toMatch(/^clickhouse \(ch\): the request timed out: no answer within 1 s \(receive_timeout=1 in the URL\); the statement was stopped on the server/);
    } finally {
      await conn.close();
    }
  }, 30_000);
});
