import { describe, expect, it } from 'vitest';
import { MtoolConfigError } from '../../src/errors.js';
import {
  canonicalJson,
  chIndex,
  col,
  compileModels,
  dictionary,
  foreignKey,
  index,
  isModel,
  materializedView,
  pgEnum,
  sql,
  table,
} from '../../src/schema/index.js';

const userStatus = pgEnum('user_status', ['active', 'banned']);
const users = table(
  'users',
  {
    id: col.bigint().primaryKey().autoincrement(),
    email: col.varchar(255).notNull().comment('login name'),
    status: col.enum(userStatus).notNull().default('active'),
    created_at: col.timestamp({ withTimezone: true }).notNull().default(sql`CURRENT_TIMESTAMP`),
    bio: col.text(),
  },
  { indexes: [index('email').unique()] },
);

describe('compileModels for postgresql', () => {
  const ir = compileModels([userStatus, users], { dialect: 'postgresql' });

  it('normalizes every column type and records the native type as format_type prints it', () => {
    const t = table('all_types', {
      a: col.integer(),
      b: col.bigint(),
      c: col.smallint(),
      d: col.varchar(40),
      e: col.text(),
      f: col.boolean(),
      g: col.timestamp(),
      h: col.timestamp({ withTimezone: true, precision: 3 }),
      i: col.numeric(10, 2),
      j: col.numeric(8),
      k: col.float(),
      l: col.double(),
      m: col.bytes(),
      n: col.uuid(),
      o: col.json(),
      p: col.jsonb(),
      q: col.raw('TSVECTOR'),
      r: col.enum(['x', 'y']),
    });
    const cols = compileModels([t], { dialect: 'postgresql' }).tables.all_types!.columns;
    const pick = (name: string) => {
      const c = cols[name]!;
      return { type: c.type, raw: c.raw, length: c.length, precision: c.precision, scale: c.scale, timezone: c.timezone, native: c.pg_column?.native_type };
    };
    expect(pick('a')).toMatchObject({ type: 'integer', native: 'integer' });
    expect(pick('b')).toMatchObject({ type: 'biginteger', native: 'bigint' });
    expect(pick('c')).toMatchObject({ type: 'integer', native: 'smallint' });
    expect(pick('d')).toMatchObject({ type: 'varchar', length: 40, native: 'character varying(40)' });
    expect(pick('e')).toMatchObject({ type: 'text' });
    expect(pick('f')).toMatchObject({ type: 'boolean' });
    expect(pick('g')).toMatchObject({ type: 'timestamp', timezone: false, native: 'timestamp without time zone' });
    expect(pick('h')).toMatchObject({ type: 'timestamp', timezone: true, precision: 3, native: 'timestamp(3) with time zone' });
    expect(pick('i')).toMatchObject({ type: 'numeric', precision: 10, scale: 2 });
    expect(pick('j')).toMatchObject({ type: 'numeric', precision: 8, scale: 0, native: 'numeric(8,0)' });
    expect(pick('k')).toMatchObject({ type: 'float', native: 'real' });
    expect(pick('l')).toMatchObject({ type: 'float', native: 'double precision' });
    expect(pick('m')).toMatchObject({ type: 'bytes', native: 'bytea' });
    expect(pick('n')).toMatchObject({ type: 'uuid' });
    expect(pick('o')).toMatchObject({ type: 'json', raw: true });
    expect(pick('p')).toMatchObject({ type: 'jsonb', raw: true });
    expect(pick('q')).toMatchObject({ type: 'tsvector', raw: true, native: 'tsvector' });
    expect(cols.r).toMatchObject({ type: 'enum', enum: 'all_types_r_enum' });
    expect(Object.values(cols).map((c) => c.position)).toEqual([...Array(18).keys()]);
  });

  it('compiles the DESIGN.md example with identity, defaults, comments and enums', () => {
    expect(ir.enums).toEqual({ user_status: { name: 'user_status', values: ['active', 'banned'] } });
    const t = ir.tables.users!;
    expect(t).toMatchObject({ name: 'users', object_type: 'table', primary_key: ['id'], comment: null, backend_table_spec: { backend: 'postgresql' } });
    expect(t.columns.id).toEqual({
      name: 'id',
      position: 0,
      type: 'biginteger',
      nullable: false,
      primary_key: true,
      autoincrement: true,
      default: null,
      comment: null,
      pg_column: { native_type: 'bigint', identity: 'by_default', collation: null },
    });
    expect(t.columns.email).toMatchObject({ nullable: false, comment: 'login name', default: null });
    expect(t.columns.status).toMatchObject({ type: 'enum', enum: 'user_status', default: { kind: 'literal', value: 'active' } });
    expect(t.columns.created_at!.default).toEqual({ kind: 'expression', sql: 'CURRENT_TIMESTAMP' });
    expect(t.columns.bio!.nullable).toBe(true);
    expect(ir.indexes['users.uq_users_email']).toMatchObject({ name: 'uq_users_email', table: 'users', columns: ['email'], unique: true, using: null });
  });

  it('keys tables and enums of a non-default pgSchema as schema.name', () => {
    const st = pgEnum('state', ['on', 'off'], { schema: 'app' });
    const t = table('devices', { id: col.integer().primaryKey(), state: col.enum(st) }, { pgSchema: 'app', comment: 'things' });
    const pub = table('plain', { id: col.integer() }, { pgSchema: 'public' });
    const out = compileModels([t, pub], { dialect: 'postgresql' });
    expect(Object.keys(out.tables).sort()).toEqual(['app.devices', 'plain']);
    expect(out.tables['app.devices']).toMatchObject({ name: 'devices', schema: 'app', comment: 'things' });
    expect(out.tables.plain!.schema).toBeUndefined();
    expect(out.enums['app.state']).toEqual({ name: 'state', schema: 'app', values: ['on', 'off'] });
    expect(out.tables['app.devices']!.columns.state!.enum).toBe('app.state');
  });

  it('supports composite primary keys through the table option', () => {
    const t = table('memberships', { org_id: col.integer(), user_id: col.integer(), role: col.text() }, { primaryKey: ['user_id', 'org_id'] });
    const out = compileModels([t], { dialect: 'postgresql' }).tables.memberships!;
    expect(out.primary_key).toEqual(['user_id', 'org_id']);
    expect(out.columns.org_id).toMatchObject({ primary_key: true, nullable: false });
    expect(out.columns.role).toMatchObject({ primary_key: false, nullable: true });
  });

  it('records every rule-8 index attribute and names indexes automatically', () => {
    const t = table(
      'docs',
      { id: col.integer().primaryKey(), title: col.text(), body: col.text(), tags: col.raw('text[]'), owner: col.integer(), at: col.timestamp() },
      {
        indexes: [
          index('tags').using('GIN'),
          index('owner', 'at').desc('at', 'last').include('title').where(sql`owner IS NOT  NULL`).with({ fillfactor: 70 }).tablespace('fast').concurrently(),
          index('title', 'owner').unique().nullsNotDistinct().sort({ title: { order: 'asc', nulls: 'first' }, owner: 'asc' }),
          index(sql`lower(title)`).name('idx_docs_title_lower'),
          index('body').using('btree'),
        ],
      },
    );
    const ix = compileModels([t], { dialect: 'postgresql' }).indexes;
    expect(Object.keys(ix).sort()).toEqual(['docs.idx_docs_body', 'docs.idx_docs_owner_at', 'docs.idx_docs_tags_gin', 'docs.idx_docs_title_lower', 'docs.uq_docs_title_owner']);
    expect(ix['docs.idx_docs_tags_gin']).toMatchObject({ using: 'gin', unique: false });
    expect(ix['docs.idx_docs_body']!.using).toBeNull();
    expect(ix['docs.idx_docs_owner_at']).toEqual({
      name: 'idx_docs_owner_at',
      table: 'docs',
      columns: ['owner', 'at'],
      unique: false,
      using: null,
      where: 'owner IS NOT NULL',
      include: ['title'],
      with_params: { fillfactor: '70' },
      tablespace: 'fast',
      nulls_not_distinct: false,
      column_sorting: { at: { order: 'desc', nulls: 'last' } },
      type: null,
      granularity: null,
      concurrently: true,
    });
    expect(ix['docs.uq_docs_title_owner']).toMatchObject({ unique: true, nulls_not_distinct: true, column_sorting: { title: { order: 'asc', nulls: 'first' } } });
    expect(ix['docs.idx_docs_title_lower']!.columns).toEqual(['lower(title)']);
  });

  it('compiles foreign keys with actions, deferrability and composite columns', () => {
    const orgs = table('orgs', { id: col.integer().primaryKey(), region: col.integer().notNull() }, { uniques: [['id', 'region']] });
    const posts = table(
      'posts',
      {
        id: col.integer().primaryKey(),
        author_id: col.bigint().references(() => users.id, { onDelete: 'cascade', onUpdate: 'set null', deferrable: true, initiallyDeferred: true }),
        org_id: col.integer(),
        region: col.integer(),
      },
      {
        foreignKeys: [foreignKey({ columns: ['org_id', 'region'], references: { table: () => orgs, columns: ['id', 'region'] }, onDelete: 'RESTRICT', name: 'fk_posts_org' })],
        checks: { positive_id: sql`id > 0` },
      },
    );
    const out = compileModels([users, orgs, posts, userStatus], { dialect: 'postgresql' });
    expect(out.constraints['posts.fk_posts_author_id_users']).toEqual({
      kind: 'foreign_key',
      name: 'fk_posts_author_id_users',
      table: 'posts',
      columns: ['author_id'],
      ref_table: 'users',
      ref_columns: ['id'],
      on_delete: 'CASCADE',
      on_update: 'SET NULL',
      deferrable: true,
      initially_deferred: true,
    });
    expect(out.constraints['posts.fk_posts_org']).toMatchObject({ columns: ['org_id', 'region'], ref_table: 'orgs', ref_columns: ['id', 'region'], on_delete: 'RESTRICT', on_update: 'NO ACTION', deferrable: false });
    expect(out.constraints['orgs.uq_orgs_id_region']).toEqual({ kind: 'unique', name: 'uq_orgs_id_region', table: 'orgs', columns: ['id', 'region'], nulls_not_distinct: false });
    expect(out.constraints['posts.positive_id']).toEqual({ kind: 'check', name: 'positive_id', table: 'posts', expression: 'id > 0' });
  });

  it('gives the same canonical JSON whatever order the models come in', () => {
    const a = canonicalJson(compileModels([userStatus, users], { dialect: 'postgresql' }));
    const b = canonicalJson(compileModels([users, userStatus], { dialect: 'postgresql' }));
    expect(a).toBe(b);
    expect(JSON.parse(a)).toEqual(JSON.parse(JSON.stringify(ir)));
  });
});

describe('compileModels for the other dialects', () => {
  it('mysql: tinyint(1) booleans, AUTO_INCREMENT, inline enums, unique constraints as indexes', () => {
    const t = table('m', { id: col.integer().primaryKey().autoincrement(), ok: col.boolean().default(true), s: col.enum(userStatus), u: col.uuid(), n: col.numeric() }, { uniques: [['ok', 's']] });
    const out = compileModels([t], { dialect: 'mysql' });
    const c = out.tables.m!.columns;
    expect(c.id).toMatchObject({ type: 'integer', autoincrement: true, my_column: { native_type: 'int', unsigned: false, collation: null } });
    expect(c.ok).toMatchObject({ type: 'boolean', default: { kind: 'literal', value: true }, my_column: { native_type: 'tinyint(1)' } });
    expect(c.s).toMatchObject({ type: 'enum', enum_values: ['active', 'banned'], my_column: { native_type: "enum('active','banned')" } });
    expect(c.s!.enum).toBeUndefined();
    expect(c.u).toMatchObject({ type: 'char(36)', raw: true });
    expect(c.n).toMatchObject({ type: 'numeric', precision: 10, scale: 0 });
    expect(out.enums).toEqual({});
    expect(out.indexes['m.uq_m_ok_s']).toMatchObject({ unique: true, columns: ['ok', 's'] });
    expect(compileModels([t], { dialect: 'mariadb' }).tables.m!.columns.u).toMatchObject({ type: 'uuid' });
  });

  it('mysql refuses varchar without a length', () => {
    expect(() => compileModels([table('v', { a: col.varchar() })], { dialect: 'mysql' })).toThrow(/table 'v' column 'a': varchar needs a length/);
  });

  it('sqlite: autoincrement makes INTEGER, enums become VARCHAR plus a check', () => {
    const t = table('s', { id: col.bigint().primaryKey().autoincrement(), s: col.enum(['a', 'bbb']), ts: col.timestamp({ withTimezone: true }) });
    const out = compileModels([t], { dialect: 'sqlite' });
    expect(out.tables.s!.columns.id).toMatchObject({ type: 'integer', sqlite_column: { native_type: 'INTEGER' } });
    expect(out.tables.s!.columns.s).toMatchObject({ type: 'varchar', length: 3 });
    expect(out.tables.s!.columns.ts).toMatchObject({ type: 'timestamp', timezone: true });
    expect(out.constraints['s.ck_s_s']).toEqual({ kind: 'check', name: 'ck_s_s', table: 's', expression: `"s" IN ('a', 'bbb')` });
    expect(() => compileModels([table('x', { a: col.integer().primaryKey().autoincrement(), b: col.integer().primaryKey() })], { dialect: 'sqlite' })).toThrow(/whole primary key/);
  });

  it('clickhouse tables: engine spec, skip indexes, Nullable and LowCardinality', () => {
    const events = table(
      'events',
      {
        ts: col.timestamp(),
        user_id: col.bigint(),
        kind: col.ch('LowCardinality(String)'),
        note: col.text().nullable(),
        tag: col.ch('LowCardinality(String)').nullable(),
        amount: col.numeric(18, 4),
        state: col.enum(userStatus),
      },
      {
        backendTable: {
          engine: 'ReplacingMergeTree(ts)',
          orderBy: ['user_id', 'ts'],
          partitionBy: 'toYYYYMM(ts)',
          ttl: 'ts + INTERVAL 30 DAY',
          settings: { index_granularity: 8192 },
          projections: [{ name: 'p_kind', query: 'SELECT kind, count() GROUP BY kind' }],
          indexes: [chIndex('idx_kind', 'kind', { type: 'set(100)', granularity: 4 })],
        },
      },
    );
    const out = compileModels([events], { dialect: 'clickhouse' });
    const t = out.tables.events!;
    expect(t.backend_table_spec).toEqual({
      backend: 'clickhouse',
      engine: 'ReplacingMergeTree(ts)',
      order_by: 'user_id, ts',
      partition_by: 'toYYYYMM(ts)',
      primary_key: null,
      sample_by: null,
      ttl: 'ts + INTERVAL 30 DAY',
      settings: { index_granularity: '8192' },
      projections: [{ name: 'p_kind', query: 'SELECT kind, count() GROUP BY kind' }],
    });
    expect(t.columns.ts).toMatchObject({ type: 'timestamp', nullable: false, ch_column: { native_type: 'DateTime', low_cardinality: false, codec: null, default_kind: null } });
    expect(t.columns.kind).toMatchObject({ type: 'text', nullable: false, ch_column: { low_cardinality: true } });
    expect(t.columns.note).toMatchObject({ type: 'text', nullable: true, ch_column: { native_type: 'Nullable(String)' } });
    expect(t.columns.tag).toMatchObject({ nullable: true, ch_column: { native_type: 'LowCardinality(Nullable(String))', low_cardinality: true } });
    expect(t.columns.amount).toMatchObject({ type: 'numeric', precision: 18, scale: 4, ch_column: { native_type: 'Decimal(18, 4)' } });
    expect(t.columns.state).toMatchObject({ type: 'enum', enum_values: ['active', 'banned'], ch_column: { native_type: "Enum8('active' = 1, 'banned' = 2)" } });
    expect(out.indexes['events.idx_kind']).toMatchObject({ columns: ['kind'], type: 'set(100)', granularity: 4 });
  });

  it('clickhouse materialized views and dictionaries', () => {
    const totals = table('totals', { day: col.ch('Date'), n: col.ch('UInt64') }, { backendTable: { engine: 'SummingMergeTree()', orderBy: 'day' } });
    const mv = materializedView('totals_mv', { to: totals, query: sql`SELECT toDate(ts) AS day, count() AS n
      FROM events GROUP BY day` });
    const dict = dictionary('countries', {
      columns: { code: col.ch('String'), name: col.ch('String') },
      primaryKey: 'code',
      source: { type: 'clickhouse', table: 'countries_src', port: 9000 },
      layout: 'complex_key_hashed',
      lifetime: { min: 60, max: 300 },
    });
    const out = compileModels([totals, mv, dict], { dialect: 'clickhouse' });
    expect(out.tables.totals_mv).toMatchObject({
      object_type: 'materialized_view',
      columns: {},
      backend_table_spec: { backend: 'clickhouse', to: 'totals', engine: null, query: 'SELECT toDate(ts) AS day, count() AS n FROM events GROUP BY day' },
    });
    expect(out.tables.countries).toMatchObject({
      object_type: 'dictionary',
      primary_key: ['code'],
      backend_table_spec: { primary_key: ['code'], source: { type: 'CLICKHOUSE', params: { table: 'countries_src', port: '9000' } }, layout: { type: 'COMPLEX_KEY_HASHED', params: {} }, lifetime: { min: 60, max: 300 } },
    });
    expect(out.tables.countries!.columns.code).toMatchObject({ type: 'text', primary_key: true });
    // Not ClickHouse: views and dictionaries are left out, or refused with strict.
    expect(compileModels([mv, dict], { dialect: 'postgresql' }).tables).toEqual({});
    expect(() => compileModels([mv], { dialect: 'postgresql', strict: true })).toThrow(/exists only on ClickHouse/);
  });

  it('clickhouse refuses foreign keys, autoincrement, column primary keys and missing engines', () => {
    const parent = table('p', { id: col.integer() }, { backendTable: { engine: 'MergeTree()', orderBy: 'id' } });
    const fk = table('c', { pid: col.integer().references(() => parent.id) }, { backendTable: { engine: 'MergeTree()', orderBy: 'pid' } });
    expect(() => compileModels([parent, fk], { dialect: 'clickhouse' })).toThrow(/foreign key on a ClickHouse table is an error/);
    expect(() => compileModels([table('a', { id: col.integer().primaryKey() }, { backendTable: { engine: 'MergeTree()' } })], { dialect: 'clickhouse' })).toThrow(/backendTable.orderBy/);
    expect(() => compileModels([table('a', { id: col.integer() })], { dialect: 'clickhouse' })).toThrow(/needs backendTable/);
    expect(() => compileModels([table('a', { id: col.integer().autoincrement() }, { backendTable: { engine: 'MergeTree()' } })], { dialect: 'clickhouse' })).toThrow(/no autoincrement/);
    expect(() => compileModels([table('a', { x: col.ch('String') })], { dialect: 'postgresql' })).toThrow(/ClickHouse type/);
  });
});

describe('model definitions are validated when defined', () => {
  it('names an unknown table option and suggests the right one', () => {
    expect(() => table('users', { id: col.integer() }, { pg_schema: 'app' } as never)).toThrow(MtoolConfigError);
    expect(() => table('users', { id: col.integer() }, { pg_schema: 'app' } as never)).toThrow("table 'users': unknown option 'pg_schema' (did you mean 'pgSchema'?)");
    expect(() => table('users', { id: col.integer() }, { indexs: [] } as never)).toThrow(/did you mean 'indexes'/);
  });

  it('rejects bad column, index, reference and ClickHouse options', () => {
    expect(() => col.timestamp({ withTimeZone: true } as never)).toThrow(/col.timestamp\(\): unknown option 'withTimeZone' \(did you mean 'withTimezone'\?\)/);
    expect(() => col.varchar(0)).toThrow(/length must be a positive integer/);
    expect(() => col.integer().references(() => users.id, { on_delete: 'cascade' } as never)).toThrow(/did you mean 'onDelete'/);
    expect(() => col.integer().references(() => users.id, { onDelete: 'explode' })).toThrow(/onDelete 'explode'/);
    expect(() => col.text().autoincrement()).toThrow(/needs an integer column/);
    expect(() => table('t', { a: col.integer() }, { indexes: [index('b')] })).toThrow("table 't': index #1 names unknown column 'b'; columns are a");
    expect(() => table('t', { a: col.integer() }, { indexes: [index('a').desc('z')] })).toThrow(/sorts z/);
    expect(() => table('t', { a: col.integer() }, { backendTable: { engine: 'MergeTree()', order_by: 'a' } as never })).toThrow(/backendTable: unknown option 'order_by' \(did you mean 'orderBy'\?\)/);
    expect(() => table('t', { a: col.integer().primaryKey() }, { primaryKey: ['a'] })).toThrow(/use one/);
    expect(() => table('t', { a: 'int' } as never)).toThrow(/column 'a' must be made with col/);
    expect(() => chIndex('i', 'a', { type: 'minmax', granularity: 0 })).toThrow(/granularity/);
    expect(() => pgEnum('e', ['a', 'a'])).toThrow(/appears twice/);
    expect(() => col.enum(userStatus).default('gone' as never)).toThrow(/not one of its values/);
    expect(() => index()).toThrow(/at least one column/);
    expect(() => foreignKey({ columns: ['a'], references: { table: 'x', columns: ['a', 'b'] } })).toThrow(/as many columns/);
  });

  it('brands models for discovery and exposes columns for references', () => {
    expect(isModel(users)).toBe(true);
    expect(isModel(userStatus)).toBe(true);
    expect(isModel({ users })).toBe(false);
    expect(Object.keys(users)).toEqual(['id', 'email', 'status', 'created_at', 'bio']);
    expect(users[Symbol.for('mtool.model') as typeof import('../../src/schema/index.js').MODEL].name).toBe('users');
  });

  it('a builder shared by two tables is bound to each separately', () => {
    const shared = col.integer().notNull();
    const a = table('a', { id: shared });
    const b = table('b', { id: shared, a_id: col.integer().references(() => a.id) });
    const out = compileModels([a, b], { dialect: 'postgresql' });
    expect(out.constraints['b.fk_b_a_id_a']).toMatchObject({ ref_table: 'a', ref_columns: ['id'] });
    expect(a.id).not.toBe(b.id);
  });

  it('long auto names are cut to 63 characters with a hash', () => {
    const cols = Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`a_rather_long_column_name_${i}`, col.integer()]));
    const t = table('a_table_with_a_long_name', cols, { indexes: [index(...Object.keys(cols))] });
    const [name] = Object.values(compileModels([t], { dialect: 'postgresql' }).indexes).map((i) => i.name);
    expect(name!.length).toBe(63);
    expect(name).toMatch(/^idx_a_table_with_a_long_name_a_rather_long_column_name_[0-9a-f]{8}$/);
  });
});
