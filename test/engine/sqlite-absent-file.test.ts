import { existsSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { TestProject, explain, migration } from './support/project.js';

/**
 * A command that only reads (status, history, lock-status, migrate --dry-run) does not create a
 * SQLite database file that is not there: it reads it as empty and says so. A mistyped path would
 * otherwise leave an empty database behind, shown with every migration pending.
 */
describe('a SQLite database file that does not exist yet', () => {
  let project: TestProject | undefined;
  afterEach(async () => project?.dispose());

  it('is read as empty by the read-only commands, with a warning, and created only by migrate', async () => {
    project = await TestProject.create([{ name: 'app', type: 'sqlite', url: 'sqlite:///data.sqlite3' }]);
    await project.write('app__0001_a.sql', migration(['CREATE TABLE a (id integer)'], ['DROP TABLE a']));
    const file = `${project.dir}/data.sqlite3`;
    for (const args of [['status'], ['history'], ['lock-status'], ['migrate', '--dry-run']]) {
      const result = await project.run(args);
      expect(result.code, explain(result)).toBe(0);
      expect(result.stderr).toContain(`the database file '${file}' does not exist (yet): read as an empty database, nothing applied; \`mtool migrate\` creates it`);
      expect(existsSync(file), args.join(' ')).toBe(false);
    }
    const status = await project.json(['status']);
    expect(status.data.databases.app).toMatchObject({ applied_migrations: 0, pending_migrations: 1, lock_active: false });
    expect((await project.run(['migrate'])).code).toBe(0);
    expect(existsSync(file)).toBe(true);
    const after = await project.run(['status']);
    expect(after.stderr).not.toContain('does not exist');
  });
});
