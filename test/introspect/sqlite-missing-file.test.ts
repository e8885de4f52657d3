/**
 * Commands that only inspect a SQLite database (check-db, snapshot, generate-models) must not
 * create a missing database file and report an empty schema: a mistyped URL would look like a
 * database without tables and leave an empty file behind. They fail naming the file; `migrate`
 * still creates it. Drives the built binary (`npm run build` first).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SchemaProject } from '../commands-schema/schema-project.js';

describe('inspection commands on a SQLite database file that does not exist', () => {
  let project: SchemaProject;
  beforeAll(async () => {
    project = await SchemaProject.create('sqlite', 'sqlite:///typo.sqlite3');
  });
  afterAll(() => project.dispose());

  const file = () => join(project.dir, 'typo.sqlite3');

  for (const args of [['check-db'], ['check-db', '--out', 'sql'], ['snapshot', 't'], ['generate-models']]) {
    it(`mtool ${args.join(' ')} fails naming the file and creates nothing`, async () => {
      const r = await project.run(args);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain(`the database file '${file()}' does not exist; check databaseUrl in the configuration, or run \`mtool migrate\` to create it`);
      expect(existsSync(file())).toBe(false);
      expect(existsSync(join(project.dir, 'models'))).toBe(false);
    });
  }

  it('says so in the --json error document too', async () => {
    const r = await project.run(['check-db', '--json']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('MTOOL_CONNECTION');
    expect(existsSync(file())).toBe(false);
  });

  it('recover-model-state reads the missing file as empty without creating it', async () => {
    const r = await project.run(['recover-model-state']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("no model state is stored in database 'app'");
    expect(existsSync(file())).toBe(false);
  });

  it('migrate creates the file; check-db then reads it', async () => {
    await project.migration('app__0001_t.sql', 'CREATE TABLE t (id INTEGER PRIMARY KEY);', 'DROP TABLE t;');
    await project.ok(['migrate']);
    expect(existsSync(file())).toBe(true);
    expect((await project.ok(['check-db'])).stdout).toContain('t');
    expect((await project.ok(['snapshot', 't'])).stdout).toContain('CREATE TABLE "t"');
  });
});
