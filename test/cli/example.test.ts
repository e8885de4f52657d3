import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SCRIPT = fileURLToPath(new URL('../../scripts/example.sh', import.meta.url));

describe('README example (npm run example)', () => {
  it('runs init, new, settings show and database list on the SQLite default', () => {
    const result = spawnSync('bash', [SCRIPT], { encoding: 'utf8', timeout: 60_000, env: { ...process.env, MTOOL_EXAMPLE_DIR: '' } });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('created migrations/default/default__0001_create_users.sql');
    expect(result.stdout).toContain('CREATE TABLE users (id INTEGER PRIMARY KEY, email TEXT NOT NULL UNIQUE);');
    expect(result.stdout).toContain('created migrations/default/RA__refresh_stats.sql');
    expect(result.stdout).toMatch(/database_url: +sqlite:\/\/\/db\.sqlite3/);
  });
});
