import { afterEach, describe, expect, it } from 'vitest';
import { parseCreateIndex, parseCreateTable, sqliteDefault } from '../../src/dialects/sqlite/introspector.js';
import { renderSqliteTable } from '../../src/dialects/sqlite/renderer.js';
import type { Connection } from '../../src/dialects/types.js';
import { col, compileModels, foreignKey, index, sql, table } from '../../src/schema/index.js';
import { connectTo } from '../support/databases.js';
import { canon, execAll, introspect, render } from './round-trip.js';

const HAND_WRITTEN = [
  `CREATE TABLE users (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     email VARCHAR(255) NOT NULL CONSTRAINT uq_users_email UNIQUE,
     name TEXT DEFAULT 'it''s',
     active BOOLEAN NOT NULL DEFAULT 1,
     score NUMERIC(10,2) DEFAULT 1.5,
     ratio REAL DEFAULT -2,
     big BIGINT,
     born TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
     avatar BLOB,
     token UUID,
     doc JSON,
     lowered TEXT DEFAULT (lower('ABC')),
     status VARCHAR(6) CHECK (status IN ('active', 'banned')),
     full_name TEXT GENERATED ALWAYS AS (name || '!') VIRTUAL,
     CONSTRAINT ck_users_score CHECK (score >= 0)
   )`,
  `CREATE TABLE orgs (id INTEGER NOT NULL PRIMARY KEY, slug TEXT NOT NULL, parent INTEGER REFERENCES orgs (id) ON DELETE SET NULL)`,
  `CREATE TABLE members (
     org_id INTEGER NOT NULL,
     user_id INTEGER NOT NULL,
     role TEXT NOT NULL DEFAULT 'member',
     PRIMARY KEY (org_id, user_id),
     CONSTRAINT fk_members_org FOREIGN KEY (org_id) REFERENCES orgs (id) ON DELETE CASCADE ON UPDATE RESTRICT,
     FOREIGN KEY (user_id) REFERENCES users DEFERRABLE INITIALLY DEFERRED,
     UNIQUE (role, org_id)
   ) WITHOUT ROWID`,
  `CREATE INDEX idx_users_name_desc ON users (name DESC, email)`,
  `CREATE INDEX idx_users_born ON users (born) WHERE born IS NOT NULL`,
  `CREATE UNIQUE INDEX uq_orgs_slug ON orgs (slug)`,
  `CREATE INDEX idx_users_lower ON users (lower(email), (score + 1) DESC)`,
  `CREATE TABLE _mtool_migrations (filename TEXT PRIMARY KEY)`,
];

describe('sqlite DDL text reading', () => {
  it('reads constraint names, checks, deferral and markers from CREATE TABLE', () => {
    const p = parseCreateTable(`CREATE TABLE t ( /* mtool-table-comment: "tab" */
      a INTEGER PRIMARY KEY AUTOINCREMENT /* mtool-comment: "the \\"a\\", with, commas *\\/" */,
      b TEXT CONSTRAINT ck_b CHECK (b <> ''),
      c INT REFERENCES "other" (x) DEFERRABLE INITIALLY DEFERRED,
      CONSTRAINT "fk one" FOREIGN KEY (b, c) REFERENCES [o2] (x, y) NOT DEFERRABLE
    ) STRICT`);
    expect(p.comment).toBe('tab');
    expect(p.columns.get('a')).toEqual({ autoincrement: true, comment: 'the "a", with, commas */', generated: null });
    expect(p.checks).toEqual([{ name: 'ck_b', column: 'b', expression: "b <> ''" }]);
    expect(p.foreignKeys).toEqual([
      { name: null, columns: ['c'], refTable: 'other', deferrable: true, initiallyDeferred: true },
      { name: 'fk one', columns: ['b', 'c'], refTable: 'o2', deferrable: false, initiallyDeferred: false },
    ]);
    expect(p.attrs).toEqual({ strict: true });
  });

  it('reads index key items and the partial-index predicate', () => {
    expect(parseCreateIndex(`CREATE INDEX "i" ON t (lower(a) DESC, b COLLATE NOCASE, (c + 1)) WHERE a > 0 AND "on" = 1`)).toEqual({
      items: ['lower(a)', 'b', 'c + 1'],
      where: 'a > 0 AND "on" = 1',
    });
  });

  it('normalizes defaults', () => {
    expect(sqliteDefault("'x'", { type: 'text' })).toEqual({ kind: 'literal', value: 'x' });
    expect(sqliteDefault('1', { type: 'boolean' })).toEqual({ kind: 'literal', value: true });
    expect(sqliteDefault('TRUE', { type: 'boolean' })).toEqual({ kind: 'literal', value: true });
    expect(sqliteDefault('-2', { type: 'float' })).toEqual({ kind: 'literal', value: -2 });
    expect(sqliteDefault('current_timestamp', { type: 'timestamp' })).toEqual({ kind: 'expression', sql: 'CURRENT_TIMESTAMP' });
    expect(sqliteDefault("lower('A')", { type: 'text' })).toEqual({ kind: 'expression', sql: "lower('A')" });
    expect(sqliteDefault('NULL', { type: 'text' })).toBeNull();
  });
});

describe('sqlite introspection', () => {
  const open: Connection[] = [];
  const fresh = async () => {
    const conn = await connectTo('sqlite', 'sqlite:///:memory:');
    open.push(conn);
    return conn;
  };
  afterEach(async () => {
    for (const c of open.splice(0)) await c.close();
  });

  it('reads a hand-written schema, renders it into an empty database and reads back the same IR', async () => {
    const source = await fresh();
    await execAll(source, HAND_WRITTEN);
    const ir = await introspect(source);
    expect(Object.keys(ir.tables).sort()).toEqual(['members', 'orgs', 'users']);
    const users = ir.tables.users!;
    expect(users.columns.id).toMatchObject({ type: 'integer', autoincrement: true, primary_key: true, nullable: false });
    expect(users.columns.name!.default).toEqual({ kind: 'literal', value: "it's" });
    expect(users.columns.active!.default).toEqual({ kind: 'literal', value: true });
    expect(users.columns.score).toMatchObject({ type: 'numeric', precision: 10, scale: 2, default: { kind: 'literal', value: 1.5 } });
    expect(users.columns.born!.default).toEqual({ kind: 'expression', sql: 'CURRENT_TIMESTAMP' });
    expect(users.columns.lowered!.default).toEqual({ kind: 'expression', sql: "lower('ABC')" });
    expect(users.columns.doc).toMatchObject({ type: 'JSON', raw: true });
    expect(users.columns.full_name!.attrs).toEqual({ generated: { kind: 'virtual', expression: "name || '!'" } });
    expect(ir.constraints['users.uq_users_email']).toEqual({ kind: 'unique', name: 'uq_users_email', table: 'users', columns: ['email'], nulls_not_distinct: false });
    expect(ir.constraints['users.ck_users_status']).toEqual({ kind: 'check', name: 'ck_users_status', table: 'users', expression: "status IN ('active', 'banned')" });
    expect(ir.constraints['users.ck_users_score']!).toMatchObject({ expression: 'score >= 0' });
    expect(ir.constraints['orgs.fk_orgs_parent_orgs']).toMatchObject({ columns: ['parent'], ref_table: 'orgs', ref_columns: ['id'], on_delete: 'SET NULL' });
    expect(ir.constraints['members.fk_members_org']).toMatchObject({ on_delete: 'CASCADE', on_update: 'RESTRICT', deferrable: false });
    expect(ir.constraints['members.fk_members_user_id_users']).toMatchObject({ ref_columns: ['id'], deferrable: true, initially_deferred: true });
    expect(ir.constraints['members.uq_members_role_org_id']).toMatchObject({ kind: 'unique', columns: ['role', 'org_id'] });
    expect(ir.tables.members!).toMatchObject({ primary_key: ['org_id', 'user_id'], attrs: { without_rowid: true } });
    expect(ir.indexes['users.idx_users_name_desc']).toMatchObject({ columns: ['name', 'email'], column_sorting: { name: { order: 'desc', nulls: null } } });
    expect(ir.indexes['users.idx_users_born']!.where).toBe('born IS NOT NULL');
    expect(ir.indexes['orgs.uq_orgs_slug']!.unique).toBe(true);
    expect(ir.indexes['users.idx_users_lower']).toMatchObject({ columns: ['lower(email)', 'score + 1'], column_sorting: { 'score + 1': { order: 'desc' } } });

    const target = await fresh();
    await execAll(target, await render('sqlite', ir));
    expect(canon(await introspect(target))).toBe(canon(ir));
  });

  it('gives for a database built from models the IR those models compile to, comments included', async () => {
    const users = table(
      'users',
      {
        id: col.integer().primaryKey().autoincrement(),
        email: col.varchar(255).notNull().comment('login, name */ "quoted"').unique(),
        status: col.enum(['active', 'banned']).notNull().default('active'),
        created_at: col.timestamp().notNull().default(sql`CURRENT_TIMESTAMP`),
        score: col.numeric(10, 2).default(0),
        ratio: col.float(),
        flag: col.boolean().default(true),
        avatar: col.bytes(),
        token: col.uuid(),
        big: col.bigint().default(-5),
        doc: col.json(),
        lowered: col.text().default(sql`lower('X')`),
      },
      { comment: 'people', indexes: [index('score').desc('score'), index('created_at').where(sql`score > 0`), index(sql`lower(email)`).name('idx_users_lower_email')], checks: { ck_users_score: sql`score >= 0` } },
    );
    const orgs = table('orgs', { id: col.integer().primaryKey(), name: col.text().notNull() }, { uniques: [['name']] });
    const members = table(
      'members',
      {
        org_id: col.integer().notNull(),
        user_id: col.integer().notNull().references(() => users.id, { onDelete: 'cascade', deferrable: true, initiallyDeferred: true }),
      },
      { primaryKey: ['org_id', 'user_id'], foreignKeys: [foreignKey({ columns: ['org_id'], references: { table: orgs, columns: ['id'] }, onUpdate: 'restrict' })] },
    );
    const compiled = compileModels([users, orgs, members], { dialect: 'sqlite' });
    const conn = await fresh();
    await execAll(conn, await render('sqlite', compiled));
    expect(canon(await introspect(conn))).toBe(canon(compiled));
  });

  it('renders one table for snapshot TABLE and names the known tables for an unknown one', async () => {
    const conn = await fresh();
    await execAll(conn, HAND_WRITTEN);
    const ir = await introspect(conn);
    const statements = renderSqliteTable(ir, 'members');
    expect(statements).toHaveLength(1);
    expect(statements[0]).toContain('FOREIGN KEY ("org_id") REFERENCES "orgs" ("id") ON DELETE CASCADE ON UPDATE RESTRICT');
    expect(() => renderSqliteTable(ir, 'nope')).toThrow(/known tables: members, orgs, users/);
  });
});
