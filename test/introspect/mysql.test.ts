import { describe, expect, it } from 'vitest';
import { checkExpression } from '../../src/dialects/mysql/introspector.js';
import { renderMysqlTable } from '../../src/dialects/mysql/renderer.js';
import { mariadbSchemaFlavour, mysqlSchemaFlavour, schemaFlavourOf } from '../../src/dialects/mysql/schema-flavour.js';
import type { Connection, DatabaseType } from '../../src/dialects/types.js';
import { col, compileModels, foreignKey, index, sql, table } from '../../src/schema/index.js';
import { serverStatus, useFreshConnections } from '../support/databases.js';
import { canon, execAll, introspect, render } from './round-trip.js';

const server = await serverStatus('mysql');

const HAND_WRITTEN = [
  `CREATE TABLE orgs (id INT AUTO_INCREMENT PRIMARY KEY, slug VARCHAR(40) NOT NULL, parent INT NULL, budget INT UNSIGNED DEFAULT 0) COMMENT 'organisations'`,
  `CREATE TABLE users (
     id BIGINT NOT NULL AUTO_INCREMENT,
     email VARCHAR(255) NOT NULL COMMENT 'login name',
     name TEXT,
     nick VARCHAR(20) DEFAULT 'it''s',
     active TINYINT(1) NOT NULL DEFAULT 1,
     score DECIMAL(10,2) DEFAULT 1.50,
     ratio FLOAT DEFAULT -2.5,
     precise DOUBLE,
     small SMALLINT DEFAULT -1,
     born DATETIME(3) DEFAULT CURRENT_TIMESTAMP(3),
     seen TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP,
     avatar BLOB,
     token CHAR(36),
     status ENUM('active','banned','it''s') NOT NULL DEFAULT 'active',
     doc JSON,
     label VARCHAR(10) COLLATE utf8mb4_general_ci,
     joined VARCHAR(10) DEFAULT (concat('a','b')),
     upper_email VARCHAR(255) GENERATED ALWAYS AS (upper(email)) VIRTUAL,
     PRIMARY KEY (id),
     UNIQUE KEY uq_users_email (email),
     KEY idx_users_name (name(10), nick DESC),
     FULLTEXT KEY ft_users_name (name),
     CONSTRAINT ck_users_score CHECK (score >= 0)
   ) COMMENT 'people'`,
  `CREATE TABLE members (
     org_id INT NOT NULL,
     user_id BIGINT NOT NULL,
     role VARCHAR(20) NOT NULL DEFAULT 'member',
     PRIMARY KEY (org_id, user_id),
     KEY idx_members_user (user_id)
   )`,
  `ALTER TABLE orgs ADD CONSTRAINT fk_orgs_parent FOREIGN KEY (parent) REFERENCES orgs (id) ON DELETE SET NULL`,
  `ALTER TABLE members ADD CONSTRAINT fk_members_org FOREIGN KEY (org_id) REFERENCES orgs (id) ON DELETE CASCADE ON UPDATE CASCADE`,
  `ALTER TABLE members ADD CONSTRAINT fk_members_user FOREIGN KEY (user_id) REFERENCES users (id) ON UPDATE RESTRICT`,
  `CREATE TABLE _mtool_migrations (filename VARCHAR(255) PRIMARY KEY)`,
];

describe('mysql and mariadb default and check normalization', () => {
  it('reads MariaDB quoted literals and MySQL bare ones to the same value', () => {
    const text = { type: 'varchar' };
    expect(mariadbSchemaFlavour.columnDefault("'it''s'", '', text)).toEqual({ kind: 'literal', value: "it's" });
    expect(mysqlSchemaFlavour.columnDefault("it's", '', text)).toEqual({ kind: 'literal', value: "it's" });
    expect(mariadbSchemaFlavour.columnDefault('1', '', { type: 'boolean' })).toEqual({ kind: 'literal', value: true });
    expect(mysqlSchemaFlavour.columnDefault('1', '', { type: 'boolean' })).toEqual({ kind: 'literal', value: true });
    expect(mariadbSchemaFlavour.columnDefault('NULL', '', text)).toBeNull();
    expect(mysqlSchemaFlavour.columnDefault(null, '', text)).toBeNull();
    expect(mysqlSchemaFlavour.columnDefault('NULL', '', text)).toEqual({ kind: 'literal', value: 'NULL' });
    expect(mariadbSchemaFlavour.columnDefault("'NULL'", '', text)).toEqual({ kind: 'literal', value: 'NULL' });
    expect(mariadbSchemaFlavour.columnDefault('current_timestamp()', '', { type: 'timestamp' })).toEqual({ kind: 'expression', sql: 'CURRENT_TIMESTAMP' });
    expect(mysqlSchemaFlavour.columnDefault('CURRENT_TIMESTAMP', 'DEFAULT_GENERATED', { type: 'timestamp' })).toEqual({ kind: 'expression', sql: 'CURRENT_TIMESTAMP' });
    expect(mariadbSchemaFlavour.columnDefault('current_timestamp(3)', '', { type: 'timestamp' })).toEqual({ kind: 'expression', sql: 'CURRENT_TIMESTAMP(3)' });
    expect(mysqlSchemaFlavour.columnDefault("concat(_utf8mb4'a',_utf8mb4'b')", 'DEFAULT_GENERATED', text)).toEqual({ kind: 'expression', sql: "concat(_utf8mb4'a',_utf8mb4'b')" });
    expect(mariadbSchemaFlavour.columnDefault('1.50', '', { type: 'numeric' })).toEqual({ kind: 'literal', value: 1.5 });
    expect(mysqlSchemaFlavour.columnDefault('0.00', '', { type: 'numeric' })).toEqual({ kind: 'literal', value: 0 });
    expect(mysqlSchemaFlavour.columnDefault('12345678901234567890.10', '', { type: 'numeric' })).toEqual({ kind: 'literal', value: '12345678901234567890.1' });
  });

  it('picks the flavour from the server version, not the configured type', () => {
    expect(schemaFlavourOf('10.11.19-MariaDB-0+deb12u1').product).toBe('mariadb');
    expect(schemaFlavourOf('8.0.36').product).toBe('mysql');
  });

  it('drops backticks around plain names in check clauses but not inside strings', () => {
    expect(checkExpression("`n` > 0 AND `we ird` = '`x`'")).toBe("n > 0 AND `we ird` = '`x`'");
  });
});

for (const type of ['mysql', 'mariadb'] as const satisfies readonly DatabaseType[]) {
  describe.skipIf(!server.reachable)(`${type} introspection (MariaDB server)`, () => {
    const fresh = useFreshConnections('mysql', type);

    it('reads a hand-written schema, renders it into an empty database and reads back the same IR', async () => {
      const source = await fresh();
      await execAll(source, HAND_WRITTEN);
      const ir = await introspect(source);
      expect(Object.keys(ir.tables).sort()).toEqual(['members', 'orgs', 'users']);
      const users = ir.tables.users!;
      expect(users).toMatchObject({ comment: 'people', primary_key: ['id'], backend_table_spec: { backend: type } });
      expect(users.columns.id).toMatchObject({ type: 'biginteger', autoincrement: true, primary_key: true, nullable: false, my_column: { native_type: 'bigint' } });
      expect(users.columns.email).toMatchObject({ type: 'varchar', length: 255, comment: 'login name' });
      expect(users.columns.nick!.default).toEqual({ kind: 'literal', value: "it's" });
      expect(users.columns.active).toMatchObject({ type: 'boolean', default: { kind: 'literal', value: true } });
      expect(users.columns.score!.default).toEqual({ kind: 'literal', value: 1.5 });
      expect(users.columns.doc).toMatchObject({ type: 'json', raw: true, my_column: { native_type: 'json', collation: null } });
      expect(users.columns.ratio!.default).toEqual({ kind: 'literal', value: -2.5 });
      expect(users.columns.small!.default).toEqual({ kind: 'literal', value: -1 });
      expect(users.columns.born).toMatchObject({ type: 'timestamp', precision: 3, timezone: false, default: { kind: 'expression', sql: 'CURRENT_TIMESTAMP(3)' } });
      expect(users.columns.seen).toMatchObject({ timezone: true, default: { kind: 'expression', sql: 'CURRENT_TIMESTAMP' }, attrs: { on_update: 'CURRENT_TIMESTAMP' } });
      expect(users.columns.status).toMatchObject({ type: 'enum', enum_values: ['active', 'banned', "it's"], default: { kind: 'literal', value: 'active' } });
      expect(users.columns.label!.my_column!.collation).toBe('utf8mb4_general_ci');
      expect(users.columns.name!.my_column!.collation).toBeNull();
      expect(users.columns.joined!.default).toEqual({ kind: 'expression', sql: "concat('a','b')" });
      expect(users.columns.upper_email!.attrs).toEqual({ generated: { kind: 'virtual', expression: 'ucase(`email`)' } });
      expect(ir.tables.orgs!.columns.budget).toMatchObject({ my_column: { native_type: 'int unsigned', unsigned: true }, default: { kind: 'literal', value: 0 } });
      expect(ir.tables.members!.primary_key).toEqual(['org_id', 'user_id']);
      expect(ir.indexes['users.uq_users_email']).toMatchObject({ unique: true, columns: ['email'] });
      expect(ir.indexes['users.idx_users_name']).toMatchObject({ columns: ['name', 'nick'], column_sorting: { nick: { order: 'desc', nulls: null } }, attrs: { prefix_lengths: { name: 10 } } });
      expect(ir.indexes['users.ft_users_name']).toMatchObject({ using: 'fulltext', unique: false });
      // The server made an index for fk_orgs_parent by itself: it is not part of the schema.
      expect(ir.indexes['orgs.fk_orgs_parent']).toBeUndefined();
      expect(ir.indexes['members.idx_members_user']).toBeDefined();
      expect(ir.constraints['users.ck_users_score']).toEqual({ kind: 'check', name: 'ck_users_score', table: 'users', expression: 'score >= 0' });
      expect(Object.values(ir.constraints).filter((c) => c.kind === 'check')).toHaveLength(1);
      expect(ir.constraints['members.fk_members_org']).toMatchObject({ ref_table: 'orgs', on_delete: 'CASCADE', on_update: 'CASCADE' });
      expect(ir.constraints['members.fk_members_user']).toMatchObject({ on_delete: 'NO ACTION', on_update: 'NO ACTION' });

      const target = await fresh();
      await execAll(target, await render(type, ir));
      expect(canon(await introspect(target))).toBe(canon(ir));
    });

    it('gives for a database built from models the IR those models compile to', async () => {
      const users = table(
        'users',
        {
          id: col.bigint().primaryKey().autoincrement(),
          email: col.varchar(255).notNull().comment('login name').unique(),
          status: col.enum(['active', 'banned']).notNull().default('active'),
          created_at: col.timestamp().notNull().default(sql`CURRENT_TIMESTAMP`),
          seen_at: col.timestamp({ withTimezone: true, precision: 3 }),
          score: col.numeric(10, 2).default(0),
          ratio: col.float(),
          precise: col.double().default(1.5),
          small: col.smallint().default(-3),
          flag: col.boolean().default(false),
          avatar: col.bytes(),
          token: col.uuid(),
          doc: col.json(),
          nick: col.varchar(20).default("it's"),
          plain: col.integer(),
        },
        { comment: 'people', indexes: [index('nick').desc('nick'), index('score', 'plain')], checks: { ck_users_score: sql`score >= 0` } },
      );
      const orgs = table('orgs', { id: col.integer().primaryKey().autoincrement(), name: col.varchar(50).notNull() }, { uniques: [['name']] });
      const members = table(
        'members',
        {
          org_id: col.integer().notNull(),
          user_id: col.bigint().notNull().references(() => users.id, { onDelete: 'cascade' }),
        },
        { primaryKey: ['org_id', 'user_id'], foreignKeys: [foreignKey({ columns: ['org_id'], references: { table: orgs, columns: ['id'] }, onUpdate: 'cascade' })] },
      );
      const compiled = compileModels([users, orgs, members], { dialect: type });
      const conn = await fresh();
      await execAll(conn, await render(type, compiled));
      expect(canon(await introspect(conn))).toBe(canon(compiled));
    });

    it('renders one table with its indexes and foreign keys for snapshot TABLE', async () => {
      const conn = await fresh();
      await execAll(conn, HAND_WRITTEN);
      const statements = renderMysqlTable(await introspect(conn), 'users');
      expect(statements[0]).toMatch(/^CREATE TABLE `users` \(/);
      expect(statements).toContain('CREATE FULLTEXT INDEX `ft_users_name` ON `users` (`name`)');
      expect(statements).toContain('CREATE INDEX `idx_users_name` ON `users` (`name`(10), `nick` DESC)');
    });

    it('asks a connection once for its server version and optional information_schema columns, and reads the same IR again', async () => {
      const conn = await fresh();
      await execAll(conn, HAND_WRITTEN);
      const asked: string[] = [];
      // Spread: the driver's methods stay behind, so each read goes through query().
      const counting: Connection = { ...conn, query: (sql) => (asked.push(sql), conn.query(sql)), serverVersion: () => conn.serverVersion() };
      const factQueries = () => asked.filter((q) => q.includes("TABLE_SCHEMA = 'information_schema'") || q.includes('VERSION()')).length;
      const first = await introspect(counting);
      expect(factQueries()).toBe(2);
      const again = await introspect(counting, { tables: ['users'] });
      expect(factQueries()).toBe(2);
      expect(again.tables.users).toEqual(first.tables.users);
      // Another connection asks for itself.
      await introspect({ ...counting });
      expect(factQueries()).toBe(4);
    });

    it('sends the reads of an introspection in one message, and names the read that fails when that message fails', async () => {
      const conn = await fresh();
      await execAll(conn, HAND_WRITTEN);
      const expected = await introspect(conn);
      const messages: string[][] = [];
      const queries: string[] = [];
      const watched = (queryMany: (statements: readonly string[]) => Promise<Record<string, unknown>[][]>): Connection => ({
        type: conn.type,
        databaseName: conn.databaseName,
        query: (sql) => (queries.push(sql), conn.query(sql)),
        queryMany: (statements) => (messages.push([...statements]), queryMany(statements)),
        begin: () => conn.begin(),
        commit: () => conn.commit(),
        rollback: () => conn.rollback(),
        serverVersion: () => conn.serverVersion(),
        close: async () => undefined,
      });
      const batched = watched((statements) => conn.queryMany!(statements));
      expect(canon(await introspect(batched))).toBe(canon(expected));
      // The server facts (once per connection), then the session, foreign keys, tables, columns, indexes and checks together;
      // the foreign key rules after them, as the schema has foreign keys.
      expect(messages.map((m) => m.length)).toEqual([2, 6]);
      expect(queries).toHaveLength(1);
      expect(queries[0]).toContain('REFERENTIAL_CONSTRAINTS');
      expect(canon(await introspect(batched, { tables: ['orgs'] }))).toBe(canon({ ...expected, tables: { orgs: expected.tables.orgs! }, indexes: Object.fromEntries(Object.entries(expected.indexes).filter(([, i]) => i.table === 'orgs')), constraints: Object.fromEntries(Object.entries(expected.constraints).filter(([, c]) => c.table === 'orgs')) }));
      expect(messages).toHaveLength(3);

      // A message that fails: the reads run one by one, and the error names the read that failed.
      messages.length = 0;
      queries.length = 0;
      const failing = watched(() => Promise.reject(new Error('message refused')));
      expect(canon(await introspect(failing))).toBe(canon(expected));
      expect(queries.length).toBeGreaterThanOrEqual(8);
      // That connection reads one by one from then on: no message is tried again.
      const tried = messages.length;
      expect(canon(await introspect(failing))).toBe(canon(expected));
      expect(messages).toHaveLength(tried);
      const broken: Connection = { ...failing, query: (sql) => (sql.includes('information_schema.STATISTICS') ? Promise.reject(new Error('no such view')) : failing.query(sql)) };
      await expect(introspect(broken)).rejects.toThrow(/reading indexes: no such view/);
    });
  });
}
