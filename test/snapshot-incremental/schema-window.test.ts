import { describe, expect, it } from 'vitest';
import { getDialect } from '../../src/dialects/index.js';
import * as targets from '../../src/main/engine/ddl-targets.js';
import type { DatabaseCode } from '../../src/main/engine/ddl-targets.js';
import { parseMigrationFile, type MigrationFile } from '../../src/parser/migration-file.js';
import { SchemaWindow, type WindowEntry } from '../../src/main/snapshot/schema-window.js';
import { applyStep } from './apply-step.js';
import { emptySchema, normalizeIndex, type SchemaIR, type TableIR } from '../../src/schema/ir.js';

/**
 * SchemaWindow against a fake database: a schema the test changes by hand as each "migration"
 * runs, and a reader that records what it was asked. The real recogniser (ddl-targets) decides
 * what each migration touches. Real databases: windows.test.ts.
 */

const table = (name: string, columns: string[] = ['id']): TableIR => ({
  name,
  object_type: 'table',
  columns: Object.fromEntries(columns.map((c, i) => [c, { name: c, position: i, type: 'integer', nullable: false, primary_key: i === 0, default: null, comment: null }])),
  primary_key: [columns[0]!],
  comment: null,
  backend_table_spec: { backend: 'postgresql' },
});

class FakeDatabase {
  schema: SchemaIR = emptySchema();
  code: DatabaseCode = targets.NO_CODE;
  /** Each read: `full`, or the asked keys. */
  reads: (string[] | 'full')[] = [];
  /** Tables a partial read returns besides the asked ones (as PostgreSQL returns inheritance children). */
  dependents: Record<string, string[]> = {};

  reader = {
    read: async (tables?: readonly string[]): Promise<SchemaIR> => {
      this.reads.push(tables ? [...tables] : 'full');
      const copy = structuredClone(this.schema);
      if (!tables) return copy;
      const wanted = new Set([...tables, ...tables.flatMap((t) => this.dependents[t] ?? [])]);
      const keep = <T extends { table: string }>(map: Record<string, T>) => Object.fromEntries(Object.entries(map).filter(([, v]) => wanted.has(v.table)));
      return { tables: Object.fromEntries(Object.entries(copy.tables).filter(([k]) => wanted.has(k))), enums: copy.enums, indexes: keep(copy.indexes), constraints: keep(copy.constraints) };
    },
    code: async () => this.code,
  };
}

let counter = 0;
const migration = (sql: string, dialect: 'postgresql' | 'sqlite' = 'postgresql'): MigrationFile => {
  counter++;
  const version = String(counter).padStart(4, '0');
  return parseMigrationFile({ filename: `app__${version}_m${counter}.sql`, path: `app__${version}_m${counter}.sql`, content: `-- upgrade\n${sql}\n`, database: 'app', dialect });
};

/** Run one migration through the window: `change` plays the migration on the fake database. */
async function run(window: SchemaWindow, file: MigrationFile, change: () => void): Promise<WindowEntry> {
  await window.before(file);
  change();
  return window.after(file);
}

/** The schema after each entry (what the snapshot writer writes for it). */
function schemas(entries: WindowEntry[]): SchemaIR[] {
  let current: SchemaIR | undefined;
  return entries.map((e) => {
    current = applyStep(e.start ?? current!, e.step!);
    return current;
  });
}

const pg = targets.ddlSyntax(getDialect('postgresql'));
const lite = targets.ddlSyntax(getDialect('sqlite'));
const tableNames = (ir: SchemaIR) => Object.keys(ir.tables).sort();

describe('SchemaWindow', () => {
  it('reads the tables of independent migrations once, and gives each snapshot only the tables of the migrations up to it', async () => {
    const db = new FakeDatabase();
    db.schema.tables.old = table('old');
    const window = await SchemaWindow.open(db.reader, targets, pg);
    const entries = [
      await run(window, migration('CREATE TABLE a (id int)'), () => (db.schema.tables.a = table('a'))),
      await run(window, migration("INSERT INTO old VALUES (1)"), () => undefined),
      await run(window, migration('CREATE TABLE b (id int)'), () => (db.schema.tables.b = table('b'))),
      await run(window, migration('DROP TABLE old'), () => delete db.schema.tables.old),
    ];
    expect(db.reads).toEqual(['full']);
    expect(entries.map((e) => e.step?.kind)).toEqual([undefined, 'none', undefined, undefined]);
    await window.flush();
    expect(db.reads).toEqual(['full', ['a', 'b', 'old']]);
    expect(entries.map((e) => e.kind)).toEqual(['partial', 'none', 'partial', 'partial']);
    expect(schemas(entries).map(tableNames)).toEqual([['a', 'old'], ['a', 'old'], ['a', 'b', 'old'], ['a', 'b']]);
    // Unchanged tables are the very objects of the first read: the writer reuses their text.
    const [first, , third] = schemas(entries);
    expect(third!.tables.a).toBe(first!.tables.a);
  });

  it('reads the window before a migration that touches a table changed in it, and keeps each change with its migration', async () => {
    const db = new FakeDatabase();
    db.schema.tables.a = table('a');
    const window = await SchemaWindow.open(db.reader, targets, pg);
    const entries = [
      await run(window, migration('ALTER TABLE a ADD COLUMN x int'), () => (db.schema.tables.a = table('a', ['id', 'x']))),
      await run(window, migration('CREATE TABLE b (id int)'), () => (db.schema.tables.b = table('b'))),
    ];
    expect(db.reads).toEqual(['full']);
    entries.push(await run(window, migration('ALTER TABLE A ADD COLUMN y int'), () => (db.schema.tables.a = table('a', ['id', 'x', 'y']))));
    // Read before the second ALTER ran: `a` as the first migration left it.
    expect(db.reads).toEqual(['full', ['a', 'b']]);
    await window.flush();
    expect(db.reads).toEqual(['full', ['a', 'b'], ['a']]);
    expect(schemas(entries).map((s) => Object.keys(s.tables.a!.columns))).toEqual([['id', 'x'], ['id', 'x'], ['id', 'x', 'y']]);

    // SQLite compares names without case: `Mixed` created, then altered as `mixed`.
    const lt = new FakeDatabase();
    const liteWindow = await SchemaWindow.open(lt.reader, targets, lite);
    await run(liteWindow, migration('CREATE TABLE "Mixed" (id integer)', 'sqlite'), () => (lt.schema.tables.Mixed = table('Mixed')));
    await run(liteWindow, migration('ALTER TABLE mixed ADD COLUMN b text', 'sqlite'), () => (lt.schema.tables.Mixed = table('Mixed', ['id', 'b'])));
    expect(lt.reads).toEqual(['full', ['Mixed', 'mixed']]);
  });

  it('resolves again after a read what the stale read cannot resolve: an index or a table created in the window', async () => {
    const db = new FakeDatabase();
    db.schema.tables.c = table('c');
    const window = await SchemaWindow.open(db.reader, targets, pg);
    const entries = [
      await run(window, migration('CREATE TABLE d (id int)'), () => (db.schema.tables.d = table('d'))),
      await run(window, migration('CREATE INDEX ix ON c (id)'), () => (db.schema.indexes['c.ix'] = normalizeIndex({ name: 'ix', table: 'c', columns: ['id'] }))),
    ];
    // `ix` is not in the last read: resolved against a fresh one, it is `c`'s.
    entries.push(await run(window, migration('DROP INDEX ix'), () => delete db.schema.indexes['c.ix']));
    // An unqualified table of the default schema that the last read did not have.
    entries.push(await run(window, migration('CREATE TABLE e (id int)'), () => (db.schema.tables.e = table('e'))));
    entries.push(await run(window, migration('ALTER TABLE e ADD COLUMN y int'), () => (db.schema.tables.e = table('e', ['id', 'y']))));
    await window.flush();
    expect(entries.map((e) => e.kind)).toEqual(['partial', 'partial', 'partial', 'partial', 'partial']);
    expect(db.reads).toEqual(['full', ['d', 'c'], ['c', 'e'], ['e']]);
    expect(schemas(entries).map((s) => Object.keys(s.indexes))).toEqual([[], ['c.ix'], [], [], []]);
  });

  it('keeps enum types with the migration that changed them, reading before a second one', async () => {
    const db = new FakeDatabase();
    const window = await SchemaWindow.open(db.reader, targets, pg);
    const entries = [
      await run(window, migration('CREATE TABLE a (id int)'), () => (db.schema.tables.a = table('a'))),
      await run(window, migration("CREATE TYPE mood AS ENUM ('a')"), () => (db.schema.enums.mood = { name: 'mood', values: ['a'] })),
      await run(window, migration('CREATE TABLE b (id int)'), () => (db.schema.tables.b = table('b'))),
      await run(window, migration("ALTER TYPE mood ADD VALUE 'b'"), () => (db.schema.enums.mood = { name: 'mood', values: ['a', 'b'] })),
    ];
    await window.flush();
    expect(db.reads).toEqual(['full', ['a', 'b'], []]);
    expect(schemas(entries).map((s) => s.enums.mood?.values ?? null)).toEqual([null, ['a'], ['a'], ['a', 'b']]);
  });

  it('reads every migration on its own where a table follows another (inheritance, foreign keys without columns)', async () => {
    const db = new FakeDatabase();
    db.schema.tables.parent = table('parent');
    db.schema.tables.child = table('child');
    db.dependents = { parent: ['child'] };
    db.code = { ...targets.NO_CODE, dependents: true };
    const window = await SchemaWindow.open(db.reader, targets, pg);
    const entries = [
      await run(window, migration('ALTER TABLE parent ADD COLUMN x int'), () => {
        db.schema.tables.parent = table('parent', ['id', 'x']);
        db.schema.tables.child = table('child', ['id', 'x']);
      }),
      await run(window, migration('CREATE TABLE other (id int)'), () => (db.schema.tables.other = table('other'))),
    ];
    await window.flush();
    expect(db.reads).toEqual(['full', ['parent'], ['other']]);
    expect(schemas(entries).map((s) => Object.keys(s.tables.child!.columns))).toEqual([['id', 'x'], ['id', 'x']]);

    // Even a migration touching most of the schema is read in part then: a full read would leave
    // out the child, which no migration names.
    for (let i = 0; i < 40; i++) db.schema.tables[`t${i}`] = table(`t${i}`);
    const wide = await SchemaWindow.open(db.reader, targets, pg);
    const dropAll = migration(`ALTER TABLE parent ADD COLUMN y int;\nDROP TABLE ${Array.from({ length: 40 }, (_, i) => `t${i}`).join(', ')};`);
    const entry = await run(wide, dropAll, () => {
      for (let i = 0; i < 40; i++) delete db.schema.tables[`t${i}`];
      db.schema.tables.parent = table('parent', ['id', 'x', 'y']);
      db.schema.tables.child = table('child', ['id', 'x', 'y']);
    });
    await wide.flush();
    expect(db.reads.at(-1)).toHaveLength(41);
    expect(tableNames(schemas([entry])[0]!)).toEqual(['child', 'other', 'parent']);
    expect(Object.keys(schemas([entry])[0]!.tables.child!.columns)).toEqual(['id', 'x', 'y']);

    // SQLite: a foreign key without columns declared in the window has the same effect from then on.
    const lt = new FakeDatabase();
    const liteWindow = await SchemaWindow.open(lt.reader, targets, lite);
    await run(liteWindow, migration('CREATE TABLE users (id integer PRIMARY KEY)', 'sqlite'), () => (lt.schema.tables.users = table('users')));
    await run(liteWindow, migration('CREATE TABLE posts (id integer PRIMARY KEY, user_id integer REFERENCES users)', 'sqlite'), () => (lt.schema.tables.posts = table('posts', ['id', 'user_id'])));
    expect(lt.reads).toEqual(['full']);
    await run(liteWindow, migration('CREATE TABLE tags (id integer PRIMARY KEY)', 'sqlite'), () => (lt.schema.tables.tags = table('tags')));
    await run(liteWindow, migration('CREATE TABLE more (id integer PRIMARY KEY)', 'sqlite'), () => (lt.schema.tables.more = table('more')));
    expect(lt.reads).toEqual(['full', ['users', 'posts'], ['tags']]);
  });

  it('refuses to guess which migration changed a table nobody asked for', async () => {
    const db = new FakeDatabase();
    db.schema.tables.parent = table('parent');
    db.schema.tables.child = table('child');
    // The database has dependents the code check did not report.
    db.dependents = { parent: ['child'] };
    const window = await SchemaWindow.open(db.reader, targets, pg);
    await run(window, migration('ALTER TABLE parent ADD COLUMN x int'), () => undefined);
    await run(window, migration('CREATE TABLE other (id int)'), () => (db.schema.tables.other = table('other')));
    await expect(window.flush()).rejects.toThrow(/also returned 'child'/);
  });

  it('reads in full after a migration it does not recognise, and reads the window before it', async () => {
    const db = new FakeDatabase();
    const window = await SchemaWindow.open(db.reader, targets, pg);
    const entries = [
      await run(window, migration('CREATE TABLE a (id int)'), () => (db.schema.tables.a = table('a'))),
      await run(window, migration('ALTER TABLE a RENAME TO z'), () => {
        db.schema.tables.z = { ...db.schema.tables.a!, name: 'z' };
        delete db.schema.tables.a;
      }),
    ];
    expect(db.reads).toEqual(['full', ['a'], 'full']);
    expect(entries.map((e) => e.kind)).toEqual(['partial', 'full']);
    expect(schemas(entries).map(tableNames)).toEqual([['a'], ['z']]);
  });

  it('lets migrations run together up to one that needs a read first, and gives each the step it gets run alone', async () => {
    const db = new FakeDatabase();
    const window = await SchemaWindow.open(db.reader, targets, pg);
    const plays: [MigrationFile, () => void][] = [
      [migration('CREATE TABLE a (id int)'), () => (db.schema.tables.a = table('a'))],
      [migration('CREATE TABLE b (id int)'), () => (db.schema.tables.b = table('b'))],
      [migration("INSERT INTO b VALUES (1)"), () => undefined],
      [migration('CREATE TABLE c (id int)'), () => (db.schema.tables.c = table('c'))],
      // Touches a, which the run's first migration created: the run ends before it.
      [migration('ALTER TABLE a ADD COLUMN x int'), () => (db.schema.tables.a = table('a', ['id', 'x']))],
      [migration('CREATE TABLE d (id int)'), () => (db.schema.tables.d = table('d'))],
      // Not recognised (a full read after it): ends a run before it, and runs alone.
      [migration('ALTER TABLE d RENAME TO e'), () => ((db.schema.tables.e = { ...db.schema.tables.d!, name: 'e' }), delete db.schema.tables.d)],
      [migration('CREATE TABLE f (id int)'), () => (db.schema.tables.f = table('f'))],
    ];
    const files = plays.map(([file]) => file);
    const entries: WindowEntry[] = [];
    const runs: number[] = [];
    for (let i = 0; i < plays.length; ) {
      await window.before(files[i]!);
      const length = window.runnable(files.slice(i), 3);
      runs.push(length);
      // The run plays on the database, then its migrations get their after-hooks, in order.
      for (const [, change] of plays.slice(i, i + length)) change();
      for (const file of files.slice(i, i + length)) entries.push(await window.after(file));
      i += length;
    }
    await window.flush();
    // At most 3 (the cap) in a run; the ALTER of a ends the first, the rename runs alone.
    expect(runs).toEqual([3, 1, 2, 1, 1]);
    expect(db.reads).toEqual(['full', ['a', 'b', 'c'], ['a', 'd'], 'full', ['f']]);
    expect(schemas(entries).map(tableNames)).toEqual([['a'], ['a', 'b'], ['a', 'b'], ['a', 'b', 'c'], ['a', 'b', 'c'], ['a', 'b', 'c', 'd'], ['a', 'b', 'c', 'e'], ['a', 'b', 'c', 'e', 'f']]);
    expect(schemas(entries)[4]!.tables.a!.columns.x).toBeDefined();
    expect(schemas(entries)[3]!.tables.a!.columns.x).toBeUndefined();
  });

  it('refuses a migration after a run that it did not plan, and one whose plan a read made stale', async () => {
    const db = new FakeDatabase();
    const window = await SchemaWindow.open(db.reader, targets, pg);
    const [a, b, c] = [migration('CREATE TABLE a (id int)'), migration('CREATE TABLE b (id int)'), migration('CREATE TABLE c (id int)')];
    await window.before(a);
    expect(window.runnable([a, b, c], 10)).toBe(3);
    await window.after(a);
    // Out of order: c was planned after b.
    await expect(window.after(c)).rejects.toThrow(/the hook before it did not run/);
    await window.before(a);
    expect(window.runnable([a, b], 10)).toBe(2);
    await window.after(a);
    await window.flush();
    await expect(window.after(b)).rejects.toThrow(/the hook before it did not run/);
  });

  it('says so when the hook before a migration did not run', async () => {
    const db = new FakeDatabase();
    const window = await SchemaWindow.open(db.reader, targets, pg);
    await expect(window.after(migration('CREATE TABLE a (id int)'))).rejects.toThrow(/the hook before it did not run/);
  });
});
