import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runMtool, tempProject } from '../support/cli.js';
import { writeProject } from './helpers/project.js';

let project: Awaited<ReturnType<typeof tempProject>>;
beforeEach(async () => {
  project = await tempProject();
});
afterEach(async () => project.dispose());

// `s3cr@t/pw` percent-encoded in the URL; both forms must stay out of every output.
const PASSWORD = 's3cr@t/pw';
const ENCODED = encodeURIComponent(PASSWORD);
const FORBIDDEN = [PASSWORD, ENCODED, 's3cr'];

function assertClean(text: string, what: string): void {
  for (const secret of FORBIDDEN) expect(text.includes(secret), `${what} contains '${secret}':\n${text}`).toBe(false);
}

describe('credentials never reach output', () => {
  beforeEach(async () => {
    await writeProject(project.dir, [
      {
        databaseName: 'app',
        default: true,
        databaseType: 'postgresql',
        databaseUrl: `postgresql://app:${ENCODED}@[::1]:5432/app?sslmode=require&application_name=mtool-test`,
        devDatabaseUrl: `postgresql://dev:${ENCODED}@127.0.0.1:5432/app_dev`,
        pgSchema: 'public',
        modelPaths: ['models/app'],
      },
      { databaseName: 'ch', databaseType: 'clickhouse', databaseUrl: `http://default:${ENCODED}@127.0.0.1:8123/analytics`, modelPaths: ['models/ch'] },
    ]);
  });

  it.each([
    [['settings', 'show', '--all']],
    [['settings', 'show', '--all', '--json']],
    [['database', 'list']],
    [['database', 'list', '--json']],
    [['config']],
    [['config', '--json']],
    [['--dev', 'config', '--json', '--debug-level', 'trace']],
    [['--debug', 'settings', 'show', 'nope']],
  ])('mtool %j prints no password', async (args) => {
    const result = await runMtool(args, { cwd: project.dir, env: { MTOOL_LOG_JSON: 'true' } });
    assertClean(result.stdout, 'stdout');
    assertClean(result.stderr, 'stderr');
    expect(result.stdout + result.stderr).toMatch(/\*\*\*|Unknown database/);
  });

  it('shows masked URLs in settings', async () => {
    const result = await runMtool(['settings', 'show', '--json'], { cwd: project.dir });
    const [db] = JSON.parse(result.stdout).databases;
    expect(db.database_url).toBe('postgresql://app:***@[::1]:5432/app?sslmode=require&application_name=mtool-test');
    expect(db.dev_database_url).toBe('postgresql://dev:***@127.0.0.1:5432/app_dev');
  });
});

describe('secureValues', () => {
  it('shows env(NAME) instead of the URL', async () => {
    await writeProject(project.dir, [
      { databaseName: 'app', default: true, databaseType: 'postgresql', databaseUrl: { env: 'APP_DATABASE_URL' }, secureValues: true, pgSchema: 'public' },
    ]);
    const result = await runMtool(['settings', 'show', '--json'], {
      cwd: project.dir,
      env: { APP_DATABASE_URL: `postgresql://app:${ENCODED}@127.0.0.1:5432/app` },
    });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).databases[0].database_url).toBe('env(APP_DATABASE_URL)');
    assertClean(result.stdout + result.stderr, 'output');
  });
});

describe('configuration errors', () => {
  it('mask the URL they quote', async () => {
    const url = `postgresql://app:${ENCODED}@127.0.0.1:5432/app`;
    await writeProject(project.dir, [
      { databaseName: 'a', default: true, databaseType: 'postgresql', databaseUrl: url, modelPaths: ['a'] },
      { databaseName: 'b', databaseType: 'postgresql', databaseUrl: url, modelPaths: ['b'] },
    ]);
    const result = await runMtool(['settings', 'show'], { cwd: project.dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('postgresql://app:***@127.0.0.1:5432/app');
    assertClean(result.stderr, 'stderr');
  });
});
