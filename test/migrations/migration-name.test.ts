import { describe, expect, it } from 'vitest';
import { classifyMigrationName, slugifyDescription } from '../../src/parser/migration-name.js';

describe('migration file-name classes', () => {
  it('reads <db>__NNNN_desc.sql as versioned for the folder database', () => {
    expect(classifyMigrationName('app__0002_add_users.sql', 'app')).toEqual({ kind: 'versioned', version: '0002', description: 'add_users' });
  });

  it('reads V__NNNN_desc.sql as versioned', () => {
    expect(classifyMigrationName('V__0010_init.sql', 'app')).toEqual({ kind: 'versioned', version: '0010', description: 'init' });
  });

  it('reads RA__ as runs-always and ROC__ as runs-on-change', () => {
    expect(classifyMigrationName('RA__refresh_views.sql', 'app')).toEqual({ kind: 'repeatable_always', description: 'refresh_views' });
    expect(classifyMigrationName('ROC__functions.sql', 'app')).toEqual({ kind: 'repeatable_on_change', description: 'functions' });
  });

  it('handles a database name that itself contains double underscores', () => {
    expect(classifyMigrationName('my__db__0001_x.sql', 'my__db')).toMatchObject({ version: '0001', description: 'x' });
  });

  it('ignores companions, dot-files and non-sql files', () => {
    for (const name of ['app__0001_init.plan.json', 'app__0001_init.rollback.sql', '.app__0001_init.sql.123.tmp', 'README.md', '.hidden.sql']) {
      expect(classifyMigrationName(name, 'app')).toBeUndefined();
    }
  });

  it('rejects a version that is not exactly four digits, naming the file and the accepted forms', () => {
    expect(() => classifyMigrationName('app__001_init.sql', 'app')).toThrow(/app__001_init\.sql: version '001' must be exactly four digits.*app__<NNNN>_<description>\.sql/);
    expect(() => classifyMigrationName('V__00001_init.sql', 'app')).toThrow(/V__00001_init\.sql: version '00001'/);
  });

  it('rejects a prefix naming another database', () => {
    expect(() => classifyMigrationName('other__0001_init.sql', 'app')).toThrow(/'other__' names another database than the folder's 'app'/);
  });

  it('rejects any other .sql name with the accepted forms', () => {
    let error: unknown;
    try {
      classifyMigrationName('create_users.sql', 'app');
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({ code: 'MTOOL_MIGRATION_FILE', exitCode: 2 });
    expect(String((error as Error).message)).toMatch(/^create_users\.sql: not a migration file name; accepted migration file names: app__<NNNN>_<description>\.sql, V__<NNNN>_<description>\.sql, RA__<description>\.sql, ROC__<description>\.sql$/);
    expect(() => classifyMigrationName('RA__.sql', 'app')).toThrow(/RA__\.sql/);
    expect(() => classifyMigrationName('app__0001_.sql', 'app')).toThrow(/app__0001_\.sql/);
  });

  it('slugifies descriptions to lower snake case within 72 characters', () => {
    expect(slugifyDescription('Add users table!')).toBe('add_users_table');
    expect(slugifyDescription('  Crème brûlée -- v2 ')).toBe('creme_brulee_v2');
    expect(slugifyDescription('x'.repeat(100))).toHaveLength(72);
    expect(slugifyDescription('!!!')).toBe('');
  });
});
