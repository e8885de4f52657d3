import { describe, expect, it } from 'vitest';
import { explain, migration, projectPerTest } from './support/project.js';
import { TARGETS, queryOnce, targetReachable } from './support/targets.js';

/**
 * PostgreSQL 12+ runs `ALTER TYPE ... ADD VALUE` inside a transaction, but the new value cannot
 * be used before that transaction commits (55P04). A migration is one transaction, so the
 * server's own hint ("must be committed") leaves the user to work out what that means here.
 */
const pg = TARGETS.find((t) => t.id === 'postgresql')!;

describe.skipIf(!(await targetReachable(pg)))('a PostgreSQL migration that uses the enum value it adds', () => {
  const app = projectPerTest(pg);

  it('fails, rolled back, saying how to split the file or run it outside a transaction; marked no-transaction it applies', async () => {
    const project = await app.create();
    await project.write('app__0001_mood.sql', migration(["CREATE TYPE mood AS ENUM ('a', 'b')", 'CREATE TABLE m (v mood)'], ['DROP TABLE m', 'DROP TYPE mood']));
    await project.write('app__0002_c.sql', migration(["ALTER TYPE mood ADD VALUE 'c'", "INSERT INTO m VALUES ('c')"]));
    const failed = await project.run(['migrate']);
    expect(failed.code, explain(failed)).toBe(1);
    expect(failed.stderr).toContain('app__0002_c.sql:3: postgresql (app): unsafe use of new value "c" of enum type mood');
    expect(failed.stderr).toContain('move the statements that use the value to the next migration, or mark this file `-- mtool: no-transaction`');
    expect(await queryOnce(pg, app.db.url, 'SELECT enum_range(NULL::mood)::text AS r')).toEqual([{ r: '{a,b}' }]);

    await project.write('app__0002_c.sql', migration(["ALTER TYPE mood ADD VALUE 'c'", "INSERT INTO m VALUES ('c')"], [], ['no-transaction']));
    const applied = await project.run(['migrate']);
    expect(applied.code, explain(applied)).toBe(0);
    expect(await queryOnce(pg, app.db.url, 'SELECT v::text FROM m')).toEqual([{ v: 'c' }]);
  });

  it('adds no such advice to other failures', async () => {
    const project = await app.create();
    await project.write('app__0001_bad.sql', migration(["CREATE TYPE mood AS ENUM ('a')", "INSERT INTO nowhere VALUES ('a')"]));
    const failed = await project.run(['migrate']);
    expect(failed.code, explain(failed)).toBe(1);
    expect(failed.stderr).toContain('relation "nowhere" does not exist');
    expect(failed.stderr).not.toContain('enum value');
  });
});
