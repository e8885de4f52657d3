import { mkdir, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TestProject, explain, migration, projectsPerTest } from '../engine/support/project.js';
import { TARGETS, targetReachable } from '../engine/support/targets.js';

/**
 * `migrate`'s schema snapshots (spec "Schema snapshot": written after versioned migrations, a
 * write failure only logs a warning) end to end on SQLite and PostgreSQL: a snapshot folder that
 * cannot be written, a snapshot path that is a folder, a migration failing midway, and migrations
 * mtool cannot follow without reading the schema (dynamic SQL, renames, CREATE TABLE AS).
 */

const target = (id: string) => TARGETS.find((t) => t.id === id)!;
const pgUp = await targetReachable(target('postgresql'));

const projectsOf = projectsPerTest();
const projectOf = (id: string, files: Record<string, string>): Promise<TestProject> => projectsOf(target(id), files);

const THREE = {
  'app__0001_a.sql': migration(['CREATE TABLE a (id integer primary key)']),
  'app__0002_b.sql': migration(['CREATE TABLE b (id integer primary key)']),
  'app__0003_c.sql': migration(['CREATE TABLE c (id integer primary key)']),
};

const schemas = (project: TestProject) => join(project.dir, '.mtool', 'schemas');
const readJson = async (path: string) => JSON.parse(await readFile(path, 'utf8'));

async function appliedVersions(project: TestProject): Promise<string[]> {
  const { result, data } = await project.json(['history']);
  expect(result.code, explain(result)).toBe(0);
  const rows = data.databases.app.migrations as { version: string | null }[];
  return rows.map((r) => r.version ?? '').sort();
}

/** The warning says which folder, which files, that the migrations are applied, and what to do. */
function expectClearWarning(stderr: string, dir: string, files: string[]): void {
  expect(stderr).toContain(`schema snapshots of database 'app' not written to ${dir}`);
  for (const f of files) expect(stderr).toContain(f);
  expect(stderr).toContain('The migrations are applied and recorded');
  expect(stderr).toMatch(/Fix what keeps mtool from writing there/);
}

describe.each(['sqlite', ...(pgUp ? ['postgresql'] : [])])('snapshot write failures (%s)', (id) => {
  it('.mtool/schemas is a file: migrate succeeds, warns naming the folder and what to do; the next migrate after the fix writes again', async () => {
    const project = await projectOf(id, THREE);
    await mkdir(join(project.dir, '.mtool'), { recursive: true });
    await writeFile(schemas(project), 'not a folder\n');
    const result = await project.run(['migrate']);
    expect(result.code, explain(result)).toBe(0);
    expectClearWarning(result.stderr, schemas(project), ['app__0001_a.sql', 'app__0002_b.sql', 'app__0003_c.sql', 'ENOTDIR']);
    expect(await appliedVersions(project)).toEqual(['0001', '0002', '0003']);

    await rm(schemas(project));
    await project.write('app__0004_d.sql', migration(['CREATE TABLE d (id integer primary key)']));
    const next = await project.run(['migrate']);
    expect(next.code, explain(next)).toBe(0);
    expect(next.stderr).not.toContain('not written');
    expect(await readdir(schemas(project))).toEqual(['app__0004_d.schema.json']);
    const snap = await readJson(join(schemas(project), 'app__0004_d.schema.json'));
    expect(snap.previous_checksum).toBeNull();
    expect(Object.keys(snap.tables).sort()).toEqual(['a', 'b', 'c', 'd']);
  });

  it('--defer-snapshots with .mtool/schemas a symlink to nowhere: the same clear warning', async () => {
    const project = await projectOf(id, THREE);
    await mkdir(join(project.dir, '.mtool'), { recursive: true });
    await symlink('/proc/1/nonexistent', schemas(project));
    const result = await project.run(['migrate', '--defer-snapshots']);
    expect(result.code, explain(result)).toBe(0);
    expectClearWarning(result.stderr, schemas(project), ['app__0003_c.sql']);
    expect(await appliedVersions(project)).toEqual(['0001', '0002', '0003']);
  });

  it('a snapshot path that is a folder: that one is skipped with a warning, the rest written, the chain goes past the gap, no temp files', async () => {
    const project = await projectOf(id, THREE);
    await mkdir(join(schemas(project), 'app__0002_b.schema.json'), { recursive: true });
    const result = await project.run(['migrate']);
    expect(result.code, explain(result)).toBe(0);
    expectClearWarning(result.stderr, schemas(project), ['app__0002_b.sql', 'EISDIR']);
    expect((await readdir(schemas(project))).sort()).toEqual(['app__0001_a.schema.json', 'app__0002_b.schema.json', 'app__0003_c.schema.json']);
    const first = await readJson(join(schemas(project), 'app__0001_a.schema.json'));
    const third = await readJson(join(schemas(project), 'app__0003_c.schema.json'));
    expect(third.previous_checksum).toBe(first.checksum);
    expect(Object.keys(third.tables).sort()).toEqual(['a', 'b', 'c']);
    expect(await readdir(join(schemas(project), 'app__0002_b.schema.json'))).toEqual([]);
  });

  it('a migration failing midway: snapshots for the migrations before it, none for it', async () => {
    const project = await projectOf(id, {
      'app__0001_a.sql': migration(['CREATE TABLE a (id integer primary key)']),
      'app__0002_b.sql': migration(['CREATE TABLE b (id integer primary key)', 'INSERT INTO no_such_table VALUES (1)']),
      'app__0003_c.sql': migration(['CREATE TABLE c (id integer primary key)']),
    });
    const result = await project.run(['migrate']);
    expect(result.code, explain(result)).not.toBe(0);
    expect(await readdir(schemas(project))).toEqual(['app__0001_a.schema.json']);
    expect(Object.keys((await readJson(join(schemas(project), 'app__0001_a.schema.json'))).tables)).toEqual(['a']);
  });
});

describe.skipIf(!pgUp)('snapshots after migrations mtool cannot follow without reading the schema (postgresql)', () => {
  it('DO blocks, functions running dynamic SQL, renames, CREATE TABLE AS, views, mixed-case names: the last snapshot equals check-db', async () => {
    const project = await projectOf('postgresql', {
      'app__0001_a.sql': migration(['CREATE TABLE "MixedCase" (id integer primary key, "Name" text)', 'CREATE TABLE t2 (id serial primary key, v integer)']),
      'app__0002_do.sql': "-- upgrade\nDO $$ BEGIN EXECUTE 'CREATE TABLE dyn_' || 'tbl (id int, x varchar(10))'; EXECUTE 'ALTER TABLE t2 ADD COLUMN w bigint'; END $$;\n",
      'app__0003_rename.sql': migration([
        'ALTER TABLE "MixedCase" RENAME TO "Other"',
        'ALTER TABLE t2 RENAME COLUMN v TO vv',
        'CREATE TABLE ctas AS SELECT id, vv FROM t2',
        'CREATE VIEW v1 AS SELECT * FROM t2',
        'CREATE INDEX ix_ctas ON ctas (vv)',
      ]),
      'app__0004_fn.sql':
        "-- upgrade\nCREATE FUNCTION mk() RETURNS void LANGUAGE plpgsql AS $$ BEGIN EXECUTE 'CREATE TABLE fromfn (id int)'; EXECUTE 'ALTER TABLE ctas ALTER COLUMN vv SET NOT NULL'; END $$;\nSELECT mk();\n",
    });
    const result = await project.run(['migrate']);
    expect(result.code, explain(result)).toBe(0);
    const live = await project.run(['check-db', '--out', 'json']);
    expect(live.code, explain(live)).toBe(0);
    const fresh = JSON.parse(live.stdout);
    const snap = await readJson(join(schemas(project), 'app__0004_fn.schema.json'));
    for (const key of ['tables', 'enums', 'indexes', 'constraints']) expect(snap[key], key).toEqual(fresh[key]);
    expect(Object.keys(snap.tables).sort()).toEqual(['Other', 'ctas', 'dyn_tbl', 'fromfn', 't2']);
  });
});
