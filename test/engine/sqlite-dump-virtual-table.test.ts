import { createRequire } from 'node:module';
import { join } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { TestProject, explain, migration } from './support/project.js';

/**
 * `sqlite3 .dump` writes a virtual table (FTS5, R*Tree) as an INSERT into sqlite_schema under
 * PRAGMA writable_schema, which SQLite's defensive mode (better-sqlite3's default) refuses with
 * only "table sqlite_master may not be modified". The failure says why and what to write.
 */
const Database = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;

const DUMP_LINE = "INSERT INTO sqlite_schema(type,name,tbl_name,rootpage,sql)VALUES('table','docs','docs',0,'CREATE VIRTUAL TABLE docs USING fts5(body, note UNINDEXED, tokenize = ''porter'')')";

describe('a sqlite3 .dump of a virtual table', () => {
  let project: TestProject | undefined;
  afterEach(async () => project?.dispose());

  it('fails saying that the schema table cannot be written, and which statement to write instead; that statement applies', async () => {
    project = await TestProject.create([{ name: 'app', type: 'sqlite', url: 'sqlite:///app.sqlite3' }]);
    await project.write('app__0001_dump.sql', migration(['PRAGMA writable_schema=ON', DUMP_LINE, 'PRAGMA writable_schema=OFF']));
    const failed = await project.run(['migrate']);
    expect(failed.code, explain(failed)).toBe(1);
    expect(failed.stderr).toContain('app__0001_dump.sql:3: sqlite (app): table sqlite_master may not be modified');
    expect(failed.stderr).toContain("where the schema table cannot be written, not even under PRAGMA writable_schema (how `sqlite3 .dump` writes a virtual table, FTS5 or R*Tree): write the CREATE statement it holds instead (CREATE VIRTUAL TABLE docs USING fts5(body, note UNINDEXED, tokenize = 'porter'))");

    await project.write('app__0001_dump.sql', migration(["CREATE VIRTUAL TABLE docs USING fts5(body, note UNINDEXED, tokenize = 'porter')", "INSERT INTO docs (body) VALUES ('running fast')"]));
    const applied = await project.run(['migrate']);
    expect(applied.code, explain(applied)).toBe(0);
    const db = new Database(join(project.dir, 'app.sqlite3'), { readonly: true });
    try {
      expect(db.prepare("SELECT body FROM docs WHERE docs MATCH 'run'").all()).toEqual([{ body: 'running fast' }]);
    } finally {
      db.close();
    }
  });
});
