import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SCRIPT = fileURLToPath(new URL('../../scripts/example.sh', import.meta.url));

describe('README example (npm run example)', () => {
  it('runs init, new, migrate, status, history and rollback on the SQLite default', () => {
    const result = spawnSync('bash', [SCRIPT], { encoding: 'utf8', timeout: 60_000, env: { ...process.env, MTOOL_EXAMPLE_DIR: '' } });
    // Logs (stderr) carry only INFO phase timings; no warning or error.
    expect(result.stderr).not.toMatch(/^(WARNING|ERROR|CRITICAL)/m);
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('created migrations/default/default__0001_create_users.sql');
    expect(result.stdout).toContain('CREATE TABLE users (id INTEGER PRIMARY KEY, email TEXT NOT NULL UNIQUE);');
    expect(result.stdout).toContain('created migrations/default/RA__refresh_stats.sql');
    expect(result.stdout).toMatch(/database_url: +sqlite:\/\/\/db\.sqlite3/);
    expect(result.stdout).toMatch(/applied 2 migrations/);
    expect(result.stdout).toMatch(/rolled back 1 migration/);
    const statusJson = result.stdout.slice(result.stdout.indexOf('$ mtool status --json') + '$ mtool status --json'.length, result.stdout.indexOf('$ mtool version'));
    expect(JSON.parse(statusJson).databases.default).toMatchObject({ pending_migrations: 1, applied_migrations: 1 });
  });
});
