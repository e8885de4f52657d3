import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ACCEPTED_MIGRATION_NAMES, classifyMigrationName, isMigrationCompanion, slugifyDescription, type MigrationName } from '../../src/parser/migration-name.js';

/** classifyMigrationName as first written (named groups), the reference for the faster one. */
function reference(filename: string, database: string): MigrationName | undefined {
  const forms = ACCEPTED_MIGRATION_NAMES.map((f) => f.replace('<database>', database)).join(', ');
  if (!filename.startsWith('.') && !filename.endsWith('.sql') && filename.toLowerCase().endsWith('.sql')) {
    throw new Error(`${filename}: the extension must be lower-case '.sql'; rename it to ${filename.slice(0, -4)}.sql; accepted migration file names: ${forms}`);
  }
  if (filename.startsWith('.') || !filename.endsWith('.sql') || isMigrationCompanion(filename)) return undefined;
  const DESCRIPTION = '[A-Za-z0-9][A-Za-z0-9_-]*';
  const repeatable = new RegExp(`^(?<prefix>RA|ROC)__(?<description>${DESCRIPTION})\\.sql$`).exec(filename);
  if (repeatable?.groups) return { kind: repeatable.groups.prefix === 'RA' ? 'repeatable_always' : 'repeatable_on_change', description: repeatable.groups.description };
  const own = filename.startsWith(`${database}__`) ? new RegExp(`^(?<version>\\d+)_(?<description>${DESCRIPTION})\\.sql$`).exec(filename.slice(database.length + 2)) : null;
  const match = own?.groups ? { db: database, ...own.groups } : new RegExp(`^(?<db>.+?)__(?<version>\\d+)_(?<description>${DESCRIPTION})\\.sql$`).exec(filename)?.groups;
  if (!match) {
    // A name of an accepted form but for its description says so, with the name to use.
    const loose = /^((?:RA|ROC)__)(.+)\.sql$/.exec(filename) ?? (filename.startsWith(`${database}__`) || filename.startsWith('V__') ? /^(.+?__\d{4}_)(.+)\.sql$/.exec(filename) : null);
    const slug = loose ? slugifyDescription(loose[2]!) : '';
    const why = loose
      ? `the description '${loose[2]}' may hold only ASCII letters, digits, '_' and '-' and must start with a letter or digit; ${slug ? `rename it to ${loose[1]}${slug}.sql` : 'give it a description of letters and digits'}`
      : 'not a migration file name';
    throw new Error(`${filename}: ${why}; accepted migration file names: ${forms}`);
  }
  const { db, version, description } = match as { db: string; version: string; description: string };
  if (db !== 'V' && db !== database) throw new Error(`${filename}: the prefix '${db}__' names another database than the folder's '${database}'; accepted migration file names: ${forms}`);
  if (!/^\d{4}$/.test(version)) throw new Error(`${filename}: version '${version}' must be exactly four digits (for example 0001); accepted migration file names: ${forms}`);
  return { kind: 'versioned', version, description };
}

const outcome = (f: () => MigrationName | undefined): unknown => {
  try {
    return f();
  } catch (error) {
    return `error: ${(error as Error).message}`;
  }
};

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

  it('rejects a .SQL extension in any case but lower, instead of skipping the migration', () => {
    for (const name of ['app__0001_init.SQL', 'app__0001_init.Sql', 'RA__x.sQL']) {
      expect(() => classifyMigrationName(name, 'app'), name).toThrow(new RegExp(`${name.replace('.', '\\.')}: the extension must be lower-case '\\.sql'; rename it to .*\\.sql`));
    }
    expect(classifyMigrationName('.hidden.SQL', 'app')).toBeUndefined();
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

  it('says a V__, RA__ or ROC__ prefix in another letter case must be upper-case, with the name to rename the file to', () => {
    const why = (name: string) => outcome(() => classifyMigrationName(name, 'app'));
    expect(why('v__0002_add_users.sql')).toMatch(/^error: v__0002_add_users\.sql: the prefix 'v__' must be upper-case 'V__'; rename it to V__0002_add_users\.sql; accepted/);
    expect(why('ra__refresh.sql')).toMatch(/the prefix 'ra__' must be upper-case 'RA__'; rename it to RA__refresh\.sql;/);
    expect(why('Roc__functions.sql')).toMatch(/the prefix 'Roc__' must be upper-case 'ROC__'; rename it to ROC__functions\.sql;/);
    // A database of that name keeps its own files.
    expect(classifyMigrationName('v__0002_x.sql', 'v')).toEqual({ kind: 'versioned', version: '0002', description: 'x' });
  });

  it('says what is wrong with a description, and the name to rename the file to', () => {
    const why = (name: string) => outcome(() => classifyMigrationName(name, 'app'));
    expect(why('app__0001_créer_café.sql')).toMatch(/^error: app__0001_créer_café\.sql: the description 'créer_café' may hold only ASCII letters, digits, '_' and '-' and must start with a letter or digit; rename it to app__0001_creer_cafe\.sql; accepted migration file names: /);
    expect(why('app__0001_add users.sql')).toMatch(/rename it to app__0001_add_users\.sql;/);
    expect(why('V__0002_-x.sql')).toMatch(/the description '-x' .*; rename it to V__0002_x\.sql;/);
    expect(why('ROC__refresh stats.sql')).toMatch(/rename it to ROC__refresh_stats\.sql;/);
    expect(why('app__0001_!!!.sql')).toMatch(/the description '!!!' .*; give it a description of letters and digits;/);
    // Not of an accepted form otherwise: no rename that would still be refused.
    expect(why('other__0001_a b.sql')).toMatch(/^error: other__0001_a b\.sql: not a migration file name;/);
    expect(why('app__01_a b.sql')).toMatch(/: not a migration file name;/);
  });

  it('classifies any name exactly as the named-group version did (same result, same error)', () => {
    const part = fc.constantFrom('app', 'my__db', 'V', 'R', 'RA', 'ROC', 'other', '', '_', '0001', '001', '00001', '9999', 'x', 'a-b', '-x', '.', 'sql', '__', 'a b', 'é', '!');
    const name = fc.tuple(fc.array(part, { maxLength: 6 }), fc.constantFrom('', '_', '__'), fc.constantFrom('.sql', '.SQL', '.rollback.sql', '.plan.json', '')).map(([parts, join, ext]) => parts.join(join) + ext);
    const database = fc.constantFrom('app', 'my__db', 'a', 'V', 'R');
    fc.assert(
      fc.property(name, database, (filename, db) => {
        expect(outcome(() => classifyMigrationName(filename, db))).toEqual(outcome(() => reference(filename, db)));
      }),
      { numRuns: 5000 },
    );
    for (const [filename, db] of [['app__0001_x.sql', 'app'], ['RA__x.sql', 'app'], ['ROC__x-y.sql', 'app'], ['R__0001_x.sql', 'R'], ['V__0001_x.sql', 'V'], ['app__0001_x.sql', 'ap'], ['app___0001_x.sql', 'app']]) {
      expect(outcome(() => classifyMigrationName(filename!, db!)), filename).toEqual(outcome(() => reference(filename!, db!)));
    }
  });

  it('slugifies descriptions to lower snake case within 72 characters', () => {
    expect(slugifyDescription('Add users table!')).toBe('add_users_table');
    expect(slugifyDescription('  Crème brûlée -- v2 ')).toBe('creme_brulee_v2');
    expect(slugifyDescription('x'.repeat(100))).toHaveLength(72);
    expect(slugifyDescription('!!!')).toBe('');
  });
});
