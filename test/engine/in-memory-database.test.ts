import { afterEach, describe, expect, it } from 'vitest';
import { TestProject, explain, migration } from './support/project.js';

/**
 * An in-process database (SQLite `:memory:`, chdb `:memory:`) lasts only as long as one command's
 * connection: `migrate` applies and records, and the next command sees an empty database again.
 * Every command says so, with what to write instead.
 */
describe('a database in memory', () => {
  let project: TestProject | undefined;
  afterEach(async () => project?.dispose());

  it.each([
    ['sqlite:///:memory:', 'sqlite:///:memory:'],
    ['sqlite://', 'sqlite:///:memory:'],
  ])('SQLite %s: migrate and status warn that nothing is kept, and status shows the migration pending again', async (url, shown) => {
    project = await TestProject.create([{ name: 'app', type: 'sqlite', url }]);
    await project.write('app__0001_a.sql', migration(['CREATE TABLE a (id integer)'], ['DROP TABLE a']));
    const warning = `the database is in memory (${shown}): it lasts only as long as this command, so every command starts from an empty database and what this one applies is gone when it ends; give databaseUrl a file path (sqlite:///app.db) to keep it`;
    const migrated = await project.run(['migrate']);
    expect(migrated.code, explain(migrated)).toBe(0);
    expect(migrated.stderr).toContain(warning);
    const status = await project.run(['status']);
    expect(status.code, explain(status)).toBe(0);
    expect(status.stderr).toContain(warning);
    expect(status.stdout).toMatch(/pending\s+0001/);
  });

  it('chdb://:memory: warns too, naming a data folder to use instead', async () => {
    project = await TestProject.create([{ name: 'app', type: 'clickhouse', url: 'chdb://:memory:' }]);
    const status = await project.run(['status']);
    expect(status.code, explain(status)).toBe(0);
    expect(status.stderr).toContain('the database is in memory (chdb://:memory:)');
    expect(status.stderr).toContain('give databaseUrl a data folder (chdb:///data/clickhouse) to keep it');
  });

  it('a SQLite file is not warned about', async () => {
    project = await TestProject.create([{ name: 'app', type: 'sqlite', url: 'sqlite:///app.sqlite3' }]);
    await project.write('app__0001_a.sql', migration(['CREATE TABLE a (id integer)'], ['DROP TABLE a']));
    const migrated = await project.run(['migrate']);
    expect(migrated.code, explain(migrated)).toBe(0);
    expect(migrated.stderr).not.toContain('in memory');
  });
});
