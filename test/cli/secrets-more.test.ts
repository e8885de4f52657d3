/**
 * Credentials out of every output, beyond the settings listings of secrets.test.ts: passwords
 * written into migration SQL (roles, users), shown by `--perf`, trace logs and the message of a
 * failed migration (stdout text, `--json`, stderr).
 */
import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { getDialect } from '../../src/dialects/index.js';
import { runMtool, tempProject, type CliResult } from '../support/cli.js';
import { connectTo, createTestDatabase, randomName, serverStatus, TEST_URLS, type TestDatabase } from '../support/databases.js';
import { writeProject } from './helpers/project.js';

let project: Awaited<ReturnType<typeof tempProject>>;
beforeEach(async () => {
  project = await tempProject();
});
afterEach(async () => project.dispose());

function assertClean(result: CliResult, secrets: readonly string[], what: string): void {
  for (const stream of ['stdout', 'stderr'] as const) {
    for (const secret of secrets) expect(result[stream].includes(secret), `${what}: ${stream} contains '${secret}':\n${result[stream]}`).toBe(false);
  }
}

const mtool = (args: string[], env: Record<string, string> = {}) => runMtool(args, { cwd: project.dir, env, timeoutMs: 60_000 });

const pg = await serverStatus('postgresql');
describe.skipIf(!pg.reachable)('a password in PostgreSQL migration SQL', () => {
  let db: TestDatabase;
  const roles: string[] = [];
  afterAll(async () => {
    const conn = await connectTo('postgresql', TEST_URLS.postgresql);
    try {
      for (const role of roles) await conn.query(`DROP ROLE IF EXISTS ${role}`);
    } finally {
      await conn.close();
    }
    await db?.drop();
    await getDialect('postgresql').dispose();
  });

  it('is masked in --perf lines, trace logs (plain and JSON) and the failure message', async () => {
    db ??= await createTestDatabase('postgresql');
    const role = randomName('mtool_role');
    roles.push(role);
    const secret = `Rol3Pw${randomBytes(4).toString('hex')}`;
    await writeProject(project.dir, [{ databaseName: 'app', default: true, databaseType: 'postgresql', databaseUrl: db.url, pgSchema: 'public' }], {
      'migrations/app/app__0001_role.sql': `-- upgrade\nCREATE ROLE ${role} LOGIN PASSWORD '${secret}';\n-- rollback\nDROP ROLE ${role};\n`,
      // Fails after an ALTER ROLE that names the password again; the transaction undoes both.
      'migrations/app/app__0002_fail.sql': `-- upgrade\nALTER ROLE ${role} WITH ENCRYPTED PASSWORD '${secret}';\nSELECT * FROM no_such_table;\n-- rollback\nSELECT 1;\n`,
    });

    const perf = await mtool(['migrate', '--to-version', '0001', '--perf']);
    expect(perf.code, perf.stderr).toBe(0);
    expect(perf.stderr).toContain(`CREATE ROLE ${role} LOGIN PASSWORD '***'`);
    assertClean(perf, [secret, 'Rol3Pw'], 'migrate --perf');

    const rollback = await mtool(['rollback', '--debug-level', '5']);
    expect(rollback.code, rollback.stderr).toBe(0);
    assertClean(rollback, [secret, 'Rol3Pw'], 'rollback --debug-level 5');

    const trace = await mtool(['migrate', '--debug-level', 'trace', '--perf', '--json'], { MTOOL_LOG_JSON: 'true' });
    expect(trace.code).toBe(1);
    expect(trace.stderr).toMatch(/SQL \([^)]*\): CREATE ROLE \S+ LOGIN PASSWORD '\*\*\*'/);
    assertClean(trace, [secret, 'Rol3Pw'], 'migrate --debug-level trace --json');
  });
});

const mysql = await serverStatus('mysql');
describe.skipIf(!mysql.reachable)('a password in MySQL migration SQL', () => {
  let db: TestDatabase;
  const users: string[] = [];
  afterAll(async () => {
    const conn = await connectTo('mysql', TEST_URLS.mysql);
    try {
      for (const user of users) await conn.query(`DROP USER IF EXISTS '${user}'@'%'`);
    } finally {
      await conn.close();
    }
    await db?.drop();
    await getDialect('mysql').dispose();
  });

  // DDL commits at once on MySQL: the failure message lists the statements that already ran.
  it.each([[['migrate']], [['migrate', '--json']], [['migrate', '--all']], [['migrate', '--perf', '--debug-level', '5']]])(
    'is masked where a failed migration lists the statements that ran (mtool %j)',
    async (args) => {
      db ??= await createTestDatabase('mysql');
      // Short names: the listed statement is cut at 60 characters.
      const user = `m${randomBytes(3).toString('hex')}`;
      users.push(user);
      const secret = `MyS3c${randomBytes(3).toString('hex')}`;
      await writeProject(project.dir, [{ databaseName: 'app', default: true, databaseType: 'mysql', databaseUrl: db.url }], {
        'migrations/app/app__0001_user.sql': `-- upgrade\nCREATE USER '${user}'@'%' IDENTIFIED BY '${secret}';\nSELECT * FROM no_such_table;\n-- rollback\nDROP USER '${user}'@'%';\n`,
      });
      const result = await mtool(args);
      expect(result.code).toBe(1);
      const output = result.stdout + result.stderr;
      expect(output).toContain(`line 2: CREATE USER '${user}'@'%' IDENTIFIED BY '***'`);
      assertClean(result, [secret, 'MyS3c'], `mtool ${args.join(' ')}`);
    },
  );
});

// Not secrets, but paths a message must show as they are: quoted, on one line, and true to what `migrate` can do.
describe('a SQLite database file that does not exist, at an odd path', () => {
  it('is quoted in the warning, with a line break in its name escaped, not starting a second line', async () => {
    await writeProject(project.dir, [{ databaseName: 'app', default: true, databaseType: 'sqlite', databaseUrl: 'sqlite:///my%20data/ERROR%0Afake%20line.db' }]);
    await mkdir(join(project.dir, 'my data'));
    const result = await mtool(['status']);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(`WARNING [app/sqlite] the database file '${project.dir}/my data/ERROR\\nfake line.db' does not exist (yet): read as an empty database, nothing applied; \`mtool migrate\` creates it`);
    expect(result.stderr).not.toMatch(/^fake line/m);
  });

  it('whose folder is missing too: says so instead of promising that migrate creates it', async () => {
    await writeProject(project.dir, [{ databaseName: 'app', default: true, databaseType: 'sqlite', databaseUrl: 'sqlite:///no-such-folder/app.db' }], {
      'migrations/app/app__0001_a.sql': '-- upgrade\nCREATE TABLE a (id integer);\n-- rollback\nDROP TABLE a;\n',
    });
    const status = await mtool(['status']);
    expect(status.code).toBe(0);
    expect(status.stderr).toContain(`the database file '${project.dir}/no-such-folder/app.db' does not exist (yet), nor does its folder '${project.dir}/no-such-folder'`);
    expect(status.stderr).not.toContain('`mtool migrate` creates it');
    // What the warning says: migrate does not create the folder.
    const migrate = await mtool(['migrate']);
    expect(migrate.code).toBe(1);
    const inspect = await mtool(['check-db']);
    expect(inspect.code).toBe(1);
    expect(inspect.stderr).toContain(`nor does its folder '${project.dir}/no-such-folder'; check databaseUrl in the configuration, or create the folder and run \`mtool migrate\` to create the file`);
  });
});

describe('plugin settings in the configuration listings', () => {
  it('hide every value under a secret-looking key, lists and nested objects included, and password pairs in strings', async () => {
    const plugins = {
      'mtool-web': {
        apiKeys: ['PlugKey1', 'PlugKey2'],
        secret: { value: 'PlugSec3' },
        auth: { token: 'PlugTok4', enabled: true },
        dsn: 'host=db user=app password=PlugPw5',
        endpoint: 'https://svc:PlugUrl6@example.com/hook',
        path: '/metrics',
      },
    };
    await writeProject(project.dir, [{ databaseName: 'app', default: true, databaseType: 'sqlite', databaseUrl: 'sqlite:///app.db', plugins }]);
    for (const args of [['config', '--json'], ['config'], ['settings', 'show', '--all', '--json'], ['settings', 'show', '--all']]) {
      const result = await mtool(args);
      expect(result.code, result.stderr).toBe(0);
      assertClean(result, ['PlugKey', 'PlugSec', 'PlugTok', 'PlugPw', 'PlugUrl'], `mtool ${args.join(' ')}`);
      if (args[0] === 'config') expect(result.stdout, args.join(' ')).toContain('/metrics');
    }
    const shown = JSON.parse((await mtool(['config', '--json'])).stdout).databases[0].plugins['mtool-web'];
    expect(shown).toEqual({
      apiKeys: ['***', '***'],
      secret: { value: '***' },
      auth: { token: '***', enabled: true },
      dsn: 'host=db user=app password=***',
      endpoint: 'https://svc:***@example.com/hook',
      path: '/metrics',
    });
  });
});
