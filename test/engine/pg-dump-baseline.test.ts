import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestProject, explain, migration } from './support/project.js';
import { TARGETS, provision, queryOnce, tableExistsAt, targetReachable, type ProvisionedDatabase } from './support/targets.js';

/**
 * A `pg_dump --schema-only` of an existing database as the first migration, the way a project
 * starts using mtool on a database it already has: pg_dump's own output, psql lines (`\restrict`,
 * `\unrestrict`) and its `set_config('search_path', '', false)` included.
 */
const pg = TARGETS.find((t) => t.id === 'postgresql')!;
const reachable = await targetReachable(pg);
const pgDump = (() => {
  try {
    execFileSync('pg_dump', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
if (reachable && !pgDump) console.warn('pg-dump-baseline: pg_dump is not installed; skipping (it comes with the PostgreSQL client)');

describe.skipIf(!reachable || !pgDump)('a pg_dump --schema-only as the first migration on PostgreSQL', () => {
  let source: ProvisionedDatabase;
  let target: ProvisionedDatabase;
  let project: TestProject;
  beforeAll(async () => {
    source = await provision(pg);
    target = await provision(pg);
    await queryOnce(
      pg,
      source.url,
      `CREATE TYPE mood AS ENUM ('ok', 'sad');
       CREATE TABLE users (id bigserial PRIMARY KEY, email text NOT NULL UNIQUE, m mood DEFAULT 'ok', created_at timestamptz DEFAULT now());
       CREATE TABLE posts (id serial PRIMARY KEY, user_id bigint REFERENCES users (id) ON DELETE CASCADE, body text);
       CREATE VIEW v_posts AS SELECT p.id, u.email FROM posts p JOIN users u ON u.id = p.user_id;
       CREATE FUNCTION touch() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN NEW.created_at := now(); RETURN NEW; END $$;
       CREATE TRIGGER t_touch BEFORE INSERT ON users FOR EACH ROW EXECUTE FUNCTION touch();
       COMMENT ON TABLE users IS 'people; and more';`,
    );
    const dump = execFileSync('pg_dump', ['--schema-only', '--no-owner', '--no-privileges', '--dbname', source.url], { encoding: 'utf8' });
    project = await TestProject.create([{ name: 'app', type: 'postgresql', url: target.url }]);
    await project.write('app__0001_baseline.sql', `-- upgrade\n${dump}\n-- rollback\nDROP VIEW v_posts;\nDROP TABLE posts;\nDROP TABLE users;\nDROP FUNCTION touch();\nDROP TYPE mood;\n`);
    await project.write('app__0002_after.sql', migration(['CREATE TABLE after_dump (id integer)'], ['DROP TABLE after_dump']));
  });
  afterAll(async () => {
    await project?.dispose();
    await source?.drop();
    await target?.drop();
  });

  it('applies, is recorded, and the migration after it lands in the home schema', async () => {
    const result = await project.run(['migrate']);
    expect(result.code, explain(result)).toBe(0);
    for (const table of ['users', 'posts', 'after_dump']) expect(await tableExistsAt(pg, target.url, table), table).toBe(true);
    const triggers = await queryOnce(pg, target.url, "SELECT count(*) AS n FROM pg_trigger WHERE tgname = 't_touch'");
    expect(Number(triggers[0]!.n)).toBe(1);
    const status = await project.json(['status']);
    expect(status.data.databases.app).toMatchObject({ current_version: '0002', applied_migrations: 2, lock_active: false });
  });

  it('rolls back', async () => {
    const result = await project.run(['rollback', '--count', '2']);
    expect(result.code, explain(result)).toBe(0);
    expect(await tableExistsAt(pg, target.url, 'users')).toBe(false);
  });
});
