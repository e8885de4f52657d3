import { describe, expect, it } from 'vitest';
import { getDialect } from '../../src/dialects/index.js';
import { classifyStatement, ddlSyntax, declaresLooseReference, migrationEffect, type StatementEffect } from '../../src/main/engine/ddl-targets.js';
import { emptySchema, normalizeIndex, type SchemaIR, type TableIR } from '../../src/schema/ir.js';

const pg = ddlSyntax(getDialect('postgresql'));
const my = ddlSyntax(getDialect('mysql'));
const lite = ddlSyntax(getDialect('sqlite'));
const ch = ddlSyntax(getDialect('clickhouse'));

const names = (e: StatementEffect) => (e.kind === 'tables' ? e.tables.map((t) => t.parts.join('.')) : e.kind === 'indexes' ? e.indexes.map((t) => `index ${t.parts.join('.')}`) : e.kind);

describe('classifyStatement', () => {
  it('finds the tables of the recognised DDL forms, with quoted, qualified and folded names', () => {
    expect(names(classifyStatement('CREATE TABLE IF NOT EXISTS Users (id int)', pg))).toEqual(['users']);
    expect(names(classifyStatement('create table "Users" (id int)', pg))).toEqual(['Users']);
    expect(names(classifyStatement('CREATE TABLE app."My ""T""" (id int)', pg))).toEqual(['app.My "T"']);
    expect(names(classifyStatement('ALTER TABLE IF EXISTS ONLY app.t ADD COLUMN x int', pg))).toEqual(['app.t']);
    expect(names(classifyStatement('DROP TABLE IF EXISTS a, "B", s.c RESTRICT', pg))).toEqual(['a', 'B', 's.c']);
    expect(names(classifyStatement('CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS ix ON ONLY s.t USING gin (x)', pg))).toEqual(['s.t']);
    expect(names(classifyStatement('CREATE INDEX ON t (x)', pg))).toEqual(['t']);
    expect(names(classifyStatement("COMMENT ON COLUMN s.t.c IS 'x'", pg))).toEqual(['s.t']);
    expect(names(classifyStatement("COMMENT ON TABLE t IS NULL", pg))).toEqual(['t']);
    expect(names(classifyStatement('DROP INDEX CONCURRENTLY IF EXISTS a, s.b', pg))).toEqual(['index a', 'index s.b']);
    expect(names(classifyStatement('CREATE TABLE `Mixed` (id int)', my))).toEqual(['Mixed']);
    expect(names(classifyStatement('CREATE FULLTEXT INDEX ft USING BTREE ON db.t (x)', my))).toEqual(['db.t']);
    expect(names(classifyStatement('DROP INDEX ix ON `t`', my))).toEqual(['t']);
    expect(names(classifyStatement('ALTER TABLE t ADD CONSTRAINT fk FOREIGN KEY (a) REFERENCES u (id) ON DELETE CASCADE ON UPDATE CASCADE', my))).toEqual(['t']);
    expect(names(classifyStatement('CREATE TABLE [odd name] (id integer)', lite))).toEqual(['odd name']);
    expect(names(classifyStatement('CREATE INDEX main.ix ON t (x)', lite))).toEqual(['t']);
    expect(names(classifyStatement('CREATE TABLE e (d Date) ENGINE = MergeTree() PARTITION BY toYYYYMM(d) ORDER BY d', ch))).toEqual(['e']);
  });

  it('reads comments, strings and dollar quotes as such, not as keywords', () => {
    expect(names(classifyStatement("-- RENAME\nALTER TABLE t /* CASCADE */ ADD COLUMN c text DEFAULT 'RENAME CASCADE'", pg))).toEqual(['t']);
    expect(names(classifyStatement("ALTER TABLE t ADD COLUMN c text DEFAULT E'it\\'s RENAME'", pg))).toEqual(['t']);
    expect(names(classifyStatement("ALTER TABLE t ADD COLUMN c text DEFAULT $x$ RENAME $x$", pg))).toEqual(['t']);
    expect(names(classifyStatement("# RENAME\nALTER TABLE t ADD COLUMN c text DEFAULT 'a\\' RENAME'", my))).toEqual(['t']);
    // ClickHouse heredocs: a string, whatever it holds.
    expect(names(classifyStatement("ALTER TABLE t ADD COLUMN c String DEFAULT $h$ RENAME ' ; $h$", ch))).toEqual(['t']);
    expect(names(classifyStatement("ALTER TABLE t ADD COLUMN c String DEFAULT $$ ') RENAME $$", ch))).toEqual(['t']);
  });

  it('falls back to full for what it does not know for certain', () => {
    const fulls: [string, typeof pg][] = [
      ['ALTER TABLE t RENAME TO u', pg],
      ['ALTER TABLE t RENAME COLUMN a TO b', pg],
      ['ALTER TABLE t DROP COLUMN a CASCADE', pg],
      ['ALTER TABLE t SET SCHEMA s', pg],
      ['ALTER TABLE p ATTACH PARTITION c FOR VALUES IN (1)', pg],
      ['ALTER TABLE ALL IN TABLESPACE a SET TABLESPACE b', pg],
      ['DROP TABLE a, b CASCADE', pg],
      ['CREATE TABLE c PARTITION OF p FOR VALUES IN (1)', pg],
      ['CREATE TABLE c () INHERITS (p)', pg],
      ['CREATE TABLE c AS SELECT make_tables()', pg],
      ['CREATE TEMP TABLE t (id int)', pg],
      ['CREATE VIEW v AS SELECT 1', pg],
      ['CREATE TYPE pair AS (a int, b int)', pg],
      ["ALTER TYPE mood RENAME VALUE 'a' TO 'b'", pg],
      ['ALTER TYPE mood RENAME TO feeling', pg],
      ['DROP TYPE mood CASCADE', pg],
      ["DO $$ BEGIN PERFORM 1; END $$", pg],
      ['SELECT create_hypertable(\'t\', \'time\')', pg],
      ['SELECT app.now()', pg],
      ['SELECT * INTO copy FROM t', pg],
      ['SET search_path TO app', pg],
      ['COMMENT ON INDEX ix IS NULL', pg],
      ['GRANT SELECT ON t TO u', pg],
      ['ALTER TABLE t CHANGE a b int', my],
      ['DROP TEMPORARY TABLE t', my],
      ['/*!50001 CREATE VIEW v AS SELECT 1 */', my],
      ['RENAME TABLE a TO b', my],
      ['ALTER TABLE t ON CLUSTER c ADD COLUMN x UInt8', ch],
      ['CREATE MATERIALIZED VIEW mv ENGINE = Memory AS SELECT 1', ch],
      ['ALTER TABLE `.inner.mv` ADD COLUMN x UInt8', ch],
      ["ALTER TABLE t ADD COLUMN c text DEFAULT 'unterminated", pg],
      ['CREATE TABLE U&"d\\0061t" (id int)', pg],
      ['PRAGMA foreign_keys = ON', lite],
    ];
    for (const [sql, syntax] of fulls) expect(classifyStatement(sql, syntax).kind, sql).toBe('full');
  });

  it('reads data statements as no change, unless they may run DDL', () => {
    for (const sql of [
      "INSERT INTO app.t (a, b) VALUES (1, now()) ON CONFLICT (a) DO UPDATE SET b = excluded.b",
      "UPDATE t SET a = coalesce(a, 0) + 1, b = 'x'::varchar(10) WHERE id IN (SELECT id FROM u)",
      'DELETE FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.id = t.id)',
      "SELECT setval('t_id_seq', (SELECT max(id) FROM t))",
      'WITH moved AS (DELETE FROM a RETURNING *) INSERT INTO b SELECT * FROM moved',
    ]) {
      expect(classifyStatement(sql, pg).kind, sql).toBe('data');
    }
    expect(classifyStatement('INSERT INTO t VALUES (my_function())', pg).kind).toBe('full');
    // MySQL, SQLite and ClickHouse functions cannot run DDL.
    expect(classifyStatement('INSERT INTO t VALUES (my_function())', my).kind).toBe('data');
  });
});

function tableIr(name: string, schema?: string, objectType: TableIR['object_type'] = 'table'): TableIR {
  return { name, ...(schema ? { schema } : {}), object_type: objectType, columns: {}, primary_key: [], comment: null, backend_table_spec: { backend: 'postgresql' } };
}

describe('migrationEffect', () => {
  const previous: SchemaIR = {
    ...emptySchema(),
    tables: { users: tableIr('users'), 'app.items': tableIr('items', 'app'), mv: tableIr('mv', undefined, 'materialized_view') },
    indexes: {
      'users.users_email': normalizeIndex({ name: 'users_email', table: 'users', columns: ['email'] }),
      'app.items.items_label': normalizeIndex({ name: 'items_label', table: 'app.items', columns: ['label'] }),
    },
  };

  it('resolves names against the previous IR', () => {
    expect(migrationEffect(['ALTER TABLE users ADD x int', 'CREATE TABLE fresh (id int)', 'CREATE INDEX ON fresh (id)'], pg, previous)).toEqual({ kind: 'partial', tables: ['users', 'fresh'], enums: false });
    // `s.t` may be the default schema's table, keyed bare.
    expect(migrationEffect(['ALTER TABLE public.users ADD x int'], pg, previous)).toEqual({ kind: 'partial', tables: ['public.users', 'users'], enums: false });
    expect(migrationEffect(['DROP INDEX users_email', 'DROP INDEX app.items_label'], pg, previous)).toEqual({ kind: 'partial', tables: ['users', 'app.items'], enums: false });
    expect(migrationEffect(["ALTER TYPE mood ADD VALUE 'x'"], pg, previous)).toEqual({ kind: 'partial', tables: [], enums: true });
    expect(migrationEffect(["INSERT INTO users VALUES (1)"], pg, previous)).toEqual({ kind: 'none' });
    expect(migrationEffect(['ALTER TABLE db.t ADD x int'], my, previous)).toEqual({ kind: 'partial', tables: ['t'], enums: false });
  });

  it('is full where resolution is not certain', () => {
    // An unqualified table missing from the default schema may be found elsewhere on the search path.
    expect(migrationEffect(['ALTER TABLE items ADD x int'], pg, previous).kind).toBe('full');
    // An index of another schema, or one the previous IR does not have.
    expect(migrationEffect(['DROP INDEX items_label'], pg, previous).kind).toBe('full');
    expect(migrationEffect(['DROP INDEX nowhere'], lite, previous).kind).toBe('full');
    expect(migrationEffect(['DROP TABLE mv'], ch, previous).kind).toBe('full');
    expect(migrationEffect(['INSERT INTO users VALUES (1)'], pg, previous, { eventTriggers: false, dmlCode: true, dependents: false }).kind).toBe('full');
    expect(migrationEffect(['CREATE TABLE t (id int)'], pg, previous, { eventTriggers: true, dmlCode: false, dependents: false }).kind).toBe('full');
    expect(migrationEffect(['CREATE TABLE t (id int)', 'CREATE VIEW v AS SELECT 1'], pg, previous).kind).toBe('full');
  });
});

describe('declaresLooseReference', () => {
  it('finds SQLite foreign keys without a column list, which follow their target\'s primary key', () => {
    expect(declaresLooseReference(['CREATE TABLE posts (id integer PRIMARY KEY, user_id integer REFERENCES users)'], lite)).toBe(true);
    expect(declaresLooseReference(['CREATE TABLE posts (user_id integer, FOREIGN KEY (user_id) REFERENCES "users" ON DELETE CASCADE)'], lite)).toBe(true);
    expect(declaresLooseReference(['ALTER TABLE posts ADD COLUMN user_id integer REFERENCES [users]'], lite)).toBe(true);
    expect(declaresLooseReference(['CREATE TABLE posts (user_id integer REFERENCES users (id), note text)'], lite)).toBe(false);
    expect(declaresLooseReference(["CREATE TABLE posts (note text DEFAULT 'REFERENCES users')", '-- REFERENCES users\nSELECT 1'], lite)).toBe(false);
    // Unreadable text is taken to declare one.
    expect(declaresLooseReference(["CREATE TABLE posts (note text DEFAULT 'unterminated)"], lite)).toBe(true);
    // Elsewhere the referenced columns are fixed when the key is created.
    expect(declaresLooseReference(['CREATE TABLE posts (user_id int REFERENCES users)'], pg)).toBe(false);
  });
});
