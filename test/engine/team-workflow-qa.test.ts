import { readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { explain, migration, projectPerTest } from './support/project.js';
import { TARGETS, rowCount, tableExistsAt, targetReachable, type EngineTarget } from './support/targets.js';

/**
 * A team's everyday work with git on PostgreSQL, MariaDB and SQLite: migration files renamed
 * after a merge or left on another branch, and migrations and schema snapshots merged with
 * conflicts.
 */

const target = (id: string): EngineTarget => TARGETS.find((t) => t.id === id)!;

for (const t of ['postgresql', 'mariadb', 'sqlite'].map(target)) {
  const reachable = await targetReachable(t);
  describe.skipIf(!reachable)(`a team's git workflow on ${t.id}`, () => {
    const fresh = projectPerTest(t);

    it('refuses to run an applied migration again when its file was renumbered, and runs on once it has its name back', async () => {
      const p = await fresh.create();
      await p.write('app__0001_users.sql', migration([t.createTable('users')], ['DROP TABLE users']));
      await p.write('app__0002_first_user.sql', migration([t.insertNext('users', 'first')], ["DELETE FROM users WHERE name = 'first'"]));
      expect((await p.run(['migrate'])).code).toBe(0);
      // Renumbered after a merge brought another 0002 (here: to 0003), on a database that has it applied.
      await rename(p.path('app__0002_first_user.sql'), p.path('app__0003_first_user.sql'));

      for (const command of ['status', 'migrate']) {
        const refused = await p.run([command]);
        expect(refused.code, explain(refused)).toBe(2);
        expect(refused.stderr).toContain(
          "error: database 'app': app__0003_first_user.sql is app__0002_first_user.sql renamed: it has the same content, and app__0002_first_user.sql (version 0002) is applied " +
            'but no longer in migrations/app/, so `mtool migrate` would run it a second time. Rename it back to app__0002_first_user.sql',
        );
      }
      expect(await rowCount(t, fresh.db.url, 'users')).toBe(1);

      await rename(p.path('app__0003_first_user.sql'), p.path('app__0002_first_user.sql'));
      const again = await p.run(['migrate']);
      expect(again.code, explain(again)).toBe(0);
      expect(again.stdout).toContain('nothing to apply, at version 0002');
      expect(await rowCount(t, fresh.db.url, 'users')).toBe(1);
    });

    it("on a checkout of another branch, names the other branch's migration applied at a version, rather than calling it a rename", async () => {
      const p = await fresh.create();
      await p.write('app__0001_users.sql', migration([t.createTable('users')], ['DROP TABLE users']));
      await p.write('app__0002_feature_b.sql', migration([t.createTable('b')], ['DROP TABLE b']));
      expect((await p.run(['migrate'])).code).toBe(0);
      // `git checkout feature-a`: its own 0002, and feature-b's file is gone.
      await p.remove('app__0002_feature_b.sql');
      await p.write('app__0002_feature_a.sql', migration([t.createTable('a')], ['DROP TABLE a']));

      const refused = await p.run(['migrate']);
      expect(refused.code, explain(refused)).toBe(2);
      expect(refused.stderr).toContain(
        "error: database 'app': app__0002_feature_a.sql has version 0002, which is already applied as app__0002_feature_b.sql; " +
          'a file no longer in migrations/app/ (another branch\'s, or renamed): give app__0002_feature_a.sql the next free version, ' +
          'or, if app__0002_feature_b.sql should not stay applied here, roll it back first where its file is (on its branch)',
      );
      expect(refused.stderr).not.toContain('must not be renamed');

      // The same file under another description is a rename, and said so.
      await p.remove('app__0002_feature_a.sql');
      await p.write('app__0002_renamed_b.sql', migration([t.createTable('b')], ['DROP TABLE b']));
      const renamed = await p.run(['status']);
      expect(renamed.code, explain(renamed)).toBe(2);
      expect(renamed.stderr).toContain(
        'app__0002_renamed_b.sql has version 0002, which is already applied as app__0002_feature_b.sql; it is that migration renamed (same content): ' +
          'an applied migration file must not be renamed: restore its name',
      );
    });

    it('refuses a pending migration left with git conflict markers before any of its statements runs', async () => {
      const p = await fresh.create();
      await p.write('app__0001_users.sql', migration([t.createTable('users')], ['DROP TABLE users']));
      expect((await p.run(['migrate'])).code).toBe(0);
      await p.write(
        'app__0002_merged.sql',
        ['-- upgrade', `${t.createTable('x')};`, '<<<<<<< HEAD', `${t.createTable('y')};`, '=======', `${t.createTable('z')};`, '>>>>>>> feature', '-- rollback', 'DROP TABLE x;', ''].join('\n'),
      );

      const refused = await p.run(['migrate']);
      expect(refused.code, explain(refused)).toBe(2);
      expect(refused.stderr).toContain(
        `${p.path('app__0002_merged.sql')}:3: '<<<<<<< HEAD' is a git merge conflict marker: the merge of this file is unresolved; resolve the conflict (and remove the marker lines) before running it`,
      );
      expect(await tableExistsAt(t, fresh.db.url, 'x')).toBe(false);
    });

    it('still applies a new migration whose content equals an applied one that is still in the folder', async () => {
      const p = await fresh.create();
      const insert = migration([t.insertNext('users', 'more')]);
      await p.write('app__0001_users.sql', migration([t.createTable('users')], ['DROP TABLE users']));
      await p.write('app__0002_more.sql', insert);
      expect((await p.run(['migrate'])).code).toBe(0);
      await p.write('app__0003_more.sql', insert);

      const run = await p.run(['migrate']);
      expect(run.code, explain(run)).toBe(0);
      expect(run.stdout).toContain('now at version 0003');
      expect(await rowCount(t, fresh.db.url, 'users')).toBe(2);
    });
  });
}

describe('a schema snapshot merged with git conflict markers (sqlite)', () => {
  const fresh = projectPerTest(target('sqlite'));

  it('names the conflict marker and how to resolve it, instead of calling the file truncated', async () => {
    const p = await fresh.create();
    await p.write('app__0001_a.sql', migration(['CREATE TABLE a (id integer)'], ['DROP TABLE a']));
    expect((await p.run(['migrate'])).code).toBe(0);
    const snapshot = join(p.dir, '.mtool', 'schemas', 'app__0001_a.schema.json');
    const ours = await readFile(snapshot, 'utf8');
    // The same migration applied on another branch's database, at another time.
    expect((await p.run(['rollback'])).code).toBe(0);
    expect((await p.run(['migrate'])).code).toBe(0);
    const theirs = await readFile(snapshot, 'utf8');
    const [oursLines, theirsLines] = [ours, theirs].map((text) => text.split('\n'));
    const differ = oursLines.findIndex((line, i) => line !== theirsLines[i]);
    expect(differ).toBeGreaterThan(0);
    // As `git merge` leaves it: the lines that differ between the markers.
    await writeFile(
      snapshot,
      [...oursLines.slice(0, differ), '<<<<<<< HEAD', oursLines[differ], '=======', theirsLines[differ], '>>>>>>> feature', ...oursLines.slice(differ + 1)].join('\n'),
    );

    await p.write('app__0002_b.sql', migration(['CREATE TABLE b (id integer)'], ['DROP TABLE b']));
    const run = await p.run(['migrate']);
    expect(run.code, explain(run)).toBe(0);
    expect(run.stderr).toContain(`schema snapshot ${snapshot} is unusable and is ignored: it holds a git merge conflict marker at line ${differ + 1}: `);
    expect(run.stderr).toContain('keeping one side whole (`git checkout --ours` or `--theirs` on the file, then `git add` it)');
    expect(run.stderr).not.toContain('truncated');
    expect(await readdir(join(p.dir, '.mtool', 'schemas'))).toContain('app__0002_b.schema.json');
  });
});
