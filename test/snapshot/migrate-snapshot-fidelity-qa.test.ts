import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TestProject, explain, migration, projectsPerTest } from '../engine/support/project.js';
import { TARGETS, targetReachable } from '../engine/support/targets.js';

/**
 * The snapshots `migrate` writes (spec "Schema snapshot") hold the schema the database has at
 * their version: the last one of a batch equals a fresh `check-db` of the database.
 */

const target = (id: string) => TARGETS.find((t) => t.id === id)!;
const pgUp = await targetReachable(target('postgresql'));

const projectsOf = projectsPerTest();
const projectOf = (id: string, files: Record<string, string>): Promise<TestProject> => projectsOf(target(id), files);

const snapshotOf = async (project: TestProject, id: string) => JSON.parse(await readFile(join(project.dir, '.mtool', 'schemas', `${id}.schema.json`), 'utf8'));

/** The snapshot's schema equals a fresh introspection of the database. */
async function expectLive(project: TestProject, snap: Record<string, unknown>): Promise<void> {
  const live = await project.run(['check-db', '--out', 'json']);
  expect(live.code, explain(live)).toBe(0);
  const fresh = JSON.parse(live.stdout);
  for (const key of ['tables', 'enums', 'indexes', 'constraints']) expect(snap[key], key).toEqual(fresh[key]);
}

describe.skipIf(!pgUp)('snapshots match the schema (postgresql)', () => {
  it('a table whose name PostgreSQL cuts to 63 bytes is in the snapshots after it', async () => {
    const long = 'a_table_with_a_really_long_name_that_postgres_will_truncate_at_sixty_three';
    const project = await projectOf('postgresql', {
      'app__0001_users.sql': migration(['CREATE TABLE users (id int primary key)']),
      'app__0002_long.sql': migration([`CREATE TABLE ${long} (id int primary key, users_id int references users (id))`]),
      'app__0003_other.sql': migration(['CREATE TABLE other (id int)']),
    });
    const result = await project.run(['migrate']);
    expect(result.code, explain(result)).toBe(0);
    expect(Object.keys((await snapshotOf(project, 'app__0002_long')).tables).sort()).toEqual([long.slice(0, 63), 'users']);
    await expectLive(project, await snapshotOf(project, 'app__0003_other'));
  });
});

describe('the snapshot chain (sqlite)', () => {
  const table = (name: string) => migration([`CREATE TABLE ${name} (id integer)`], [`DROP TABLE ${name}`]);

  it('after a version rolled back and applied under another description, the next snapshot links to the new file, in the same run and in the next', async () => {
    const project = await projectOf('sqlite', { 'app__0001_a.sql': table('a'), 'app__0002_zz_first.sql': table('b'), 'app__0003_c.sql': table('c') });
    for (const args of [['migrate'], ['rollback', '--count', '2']]) {
      const result = await project.run(args);
      expect(result.code, explain(result)).toBe(0);
    }
    // The old file of version 0002 stays (rollback keeps snapshots) and sorts after the new one.
    await project.remove('app__0002_zz_first.sql');
    await project.write('app__0002_again.sql', table('b2'));
    const run = await project.run(['migrate']);
    expect(run.code, explain(run)).toBe(0);
    const again = await snapshotOf(project, 'app__0002_again');
    expect((await snapshotOf(project, 'app__0003_c')).previous_checksum).toBe(again.checksum);

    for (const args of [['rollback'], ['migrate']]) {
      const result = await project.run(args);
      expect(result.code, explain(result)).toBe(0);
    }
    expect((await snapshotOf(project, 'app__0003_c')).previous_checksum).toBe(again.checksum);
    expect((await snapshotOf(project, 'app__0001_a')).checksum).toBe(again.previous_checksum);
  });
});

/** A table made in the schema of temporary objects without TEMP: SQLite `temp.x`, PostgreSQL `pg_temp.x`. */
describe.each([['sqlite', 'temp'], ...(pgUp ? [['postgresql', 'pg_temp']] : [])])('a temporary table named by its schema (%s)', (id, schema) => {
  it('goes with its file: the next migration of the batch alters the real table, and its snapshot shows it', async () => {
    const project = await projectOf(id, {
      'app__0001_x.sql': migration(['CREATE TABLE x (a integer)']),
      'app__0002_temp.sql': migration([`CREATE TABLE ${schema}.x (b integer)`, 'INSERT INTO x VALUES (1)']),
      'app__0003_alter.sql': migration(['ALTER TABLE x ADD COLUMN c integer', 'CREATE INDEX ix ON x (a)']),
    });
    const result = await project.run(['migrate']);
    expect(result.code, explain(result)).toBe(0);
    const snap = await snapshotOf(project, 'app__0003_alter');
    expect(Object.keys(snap.tables.x.columns).sort()).toEqual(['a', 'c']);
    await expectLive(project, snap);
    expect(Object.keys((await snapshotOf(project, 'app__0002_temp')).tables.x.columns)).toEqual(['a']);
  });
});
