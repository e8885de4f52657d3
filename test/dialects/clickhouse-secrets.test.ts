/**
 * ClickHouse's HTTP client sends the URL's user and password as `Authorization: Basic <base64>`.
 * When what answers at the URL is not ClickHouse (a proxy, another web server), mtool quotes the
 * start of its answer; an answer that echoes the request's credentials must not show them.
 */
import { createServer, type Server } from 'node:http';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { writeProject } from '../cli/helpers/project.js';
import { runMtool, tempProject } from '../support/cli.js';

const PASSWORD = 'Ch/S3cret-pw';
const BASIC = Buffer.from(`default:${PASSWORD}`).toString('base64');

let server: Server;
let port: number;
beforeAll(async () => {
  server = createServer((req, res) => {
    // `/short`: the header first; `/long`: after enough text that the quoted excerpt ends inside the token.
    const padding = req.url?.includes('/long') ? `${'x'.repeat(90)} ` : '';
    res.writeHead(401, { 'content-type': 'text/plain' }).end(`${padding}rejected credentials: ${req.headers.authorization ?? '(none)'}`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

let project: Awaited<ReturnType<typeof tempProject>>;
beforeEach(async () => {
  project = await tempProject();
});
afterEach(async () => project.dispose());

describe('an HTTP answer that echoes the Authorization header', () => {
  it.each([['short'], ['long']])('shows neither the password nor its Basic token (%s answer)', async (path) => {
    await writeProject(project.dir, [
      { databaseName: 'ch', default: true, databaseType: 'clickhouse', databaseUrl: `http://default:${encodeURIComponent(PASSWORD)}@127.0.0.1:${port}/${path}` },
    ]);
    for (const args of [['status'], ['migrate', '--json', '--debug']]) {
      const result = await runMtool(args, { cwd: project.dir, env: { MTOOL_LOG_JSON: 'true' } });
      const output = result.stdout + result.stderr;
      expect(result.code, output).toBe(1);
      expect(output).toMatch(/HTTP 401 Unauthorized \(.*rejected credentials: Basic \*\*\*/);
      // Any 8 characters of the token would give away 6 bytes of `default:<password>`.
      for (let i = 0; i + 8 <= BASIC.length; i += 4) expect(output, `${args.join(' ')}: '${BASIC.slice(i, i + 8)}' in\n${output}`).not.toContain(BASIC.slice(i, i + 8));
      expect(output).not.toContain('S3cret');
    }
  });
});
