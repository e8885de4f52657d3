import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clickhouseDefault, parseDictionary, parseEngineClauses, parseProjections, parseSkipIndexes, unqualify } from '../../src/dialects/clickhouse/introspector.js';
import { renderClickHouseTable } from '../../src/dialects/clickhouse/renderer.js';
import type { Connection } from '../../src/dialects/types.js';
import { chIndex, col, compileModels, dictionary, materializedView, sql, table } from '../../src/schema/index.js';
import { connectTo, randomName, serverStatus, useFreshConnections } from '../support/databases.js';
import { canon, execAll, introspect, render } from './round-trip.js';

const server = await serverStatus('clickhouse');

/** What both servers understand (18.16 has no TTL, codecs, projections, skip indexes, dictionaries or table comments). */
const PORTABLE = [
  `CREATE TABLE events (
     id UInt64,
     d Date,
     s String DEFAULT 'it\\'s' COMMENT 'a string',
     n Nullable(Int32),
     e Enum8('x' = 1, 'y' = 2) DEFAULT 'x',
     ts DateTime DEFAULT now(),
     utc DateTime('UTC'),
     amount Decimal(10, 2) DEFAULT 1.5,
     ratio Float64 DEFAULT -2.5,
     u UUID,
     tags Array(String),
     doubled UInt64 MATERIALIZED id * 2
   ) ENGINE = MergeTree() PARTITION BY toYYYYMM(d) ORDER BY (id, d) SAMPLE BY id SETTINGS index_granularity = 4096`,
  `CREATE TABLE versions (id UInt64, d Date, v UInt32) ENGINE = ReplacingMergeTree(v) PRIMARY KEY id ORDER BY (id, d)`,
  `CREATE TABLE totals (id UInt64, c UInt64) ENGINE = SummingMergeTree() ORDER BY id`,
  `CREATE MATERIALIZED VIEW totals_mv TO totals AS SELECT id, count() AS c FROM events GROUP BY id`,
  `CREATE MATERIALIZED VIEW daily_mv ENGINE = SummingMergeTree() PARTITION BY d ORDER BY d AS SELECT d, count() AS c FROM events GROUP BY d`,
  `CREATE VIEW recent AS SELECT id, ts FROM events WHERE ts > now() - 3600`,
  `CREATE TABLE _mtool_migrations (filename String) ENGINE = MergeTree() ORDER BY filename`,
];

/** Current ClickHouse only. */
const CURRENT = [
  `CREATE TABLE metrics (
     id UInt64,
     d Date,
     name LowCardinality(String) CODEC(ZSTD(1)),
     flag Bool DEFAULT true,
     value Float64,
     INDEX idx_name name TYPE bloom_filter(0.01) GRANULARITY 2,
     INDEX idx_pair (id, d) TYPE minmax GRANULARITY 1,
     PROJECTION by_day (SELECT d, count() GROUP BY d)
   ) ENGINE = MergeTree PARTITION BY toYYYYMM(d) ORDER BY (id, d) TTL d + INTERVAL 1 MONTH SETTINGS index_granularity = 8192, min_bytes_for_wide_part = 0 COMMENT 'metric points'`,
  `CREATE TABLE countries (code String, name String) ENGINE = MergeTree ORDER BY code`,
  `CREATE DICTIONARY country_names (code String, name String DEFAULT '?') PRIMARY KEY code SOURCE(CLICKHOUSE(TABLE 'countries')) LAYOUT(COMPLEX_KEY_HASHED()) LIFETIME(MIN 0 MAX 300)`,
];

describe('clickhouse DDL text reading', () => {
  it('splits an engine definition into its clauses', () => {
    expect(parseEngineClauses("ReplacingMergeTree(v) PARTITION BY toYYYYMM(d) PRIMARY KEY id ORDER BY (id, d) SAMPLE BY id TTL d + toIntervalMonth(1) SETTINGS index_granularity = 8192, storage_policy = 'x y'")).toEqual({
      engine: 'ReplacingMergeTree(v)',
      clauses: { 'PARTITION BY': 'toYYYYMM(d)', 'PRIMARY KEY': 'id', 'ORDER BY': '(id, d)', 'SAMPLE BY': 'id', TTL: 'd + toIntervalMonth(1)', SETTINGS: "index_granularity = 8192, storage_policy = 'x y'" },
    });
    expect(parseEngineClauses('MergeTree ORDER BY tuple()').engine).toBe('MergeTree()');
  });

  it('reads defaults, including the 18.x CAST around enum literals', () => {
    expect(clickhouseDefault("'it\\'s'", { type: 'text' })).toEqual({ kind: 'literal', value: "it's" });
    expect(clickhouseDefault("CAST('x', 'Enum8(\\'x\\' = 1, \\'y\\' = 2)')", { type: 'enum' })).toEqual({ kind: 'literal', value: 'x' });
    expect(clickhouseDefault('true', { type: 'boolean' })).toEqual({ kind: 'literal', value: true });
    expect(clickhouseDefault('42', { type: 'integer' })).toEqual({ kind: 'literal', value: 42 });
    expect(clickhouseDefault('now()', { type: 'timestamp' })).toEqual({ kind: 'expression', sql: 'now()' });
    expect(clickhouseDefault("CAST(1.5, 'Decimal(10, 2)')", { type: 'numeric' })).toEqual({ kind: 'literal', value: 1.5 });
    expect(clickhouseDefault("CAST(x, 'String')", { type: 'text' })).toEqual({ kind: 'expression', sql: "CAST(x, 'String')" });
  });

  it('removes only the view database qualification, not string contents', () => {
    expect(unqualify("SELECT a FROM db1.t JOIN `db1`.u ON x = 'db1.t' WHERE mydb1.z", 'db1')).toBe("SELECT a FROM t JOIN u ON x = 'db1.t' WHERE mydb1.z");
  });

  it('reads skip indexes, projections and dictionaries from create queries', () => {
    const create = "CREATE TABLE d.t (`id` UInt64, `s` String, INDEX ix s TYPE bloom_filter(0.01) GRANULARITY 2, INDEX iy (id, s) TYPE minmax GRANULARITY 1, PROJECTION p (SELECT s, count() GROUP BY s)) ENGINE = MergeTree ORDER BY id";
    expect(parseSkipIndexes(create, 't').map((i) => [i.name, i.columns, i.type, i.granularity])).toEqual([
      ['ix', ['s'], 'bloom_filter(0.01)', 2],
      ['iy', ['id, s'], 'minmax', 1],
    ]);
    expect(parseProjections(create)).toEqual([{ name: 'p', query: 'SELECT s, count() GROUP BY s' }]);
    const dict = parseDictionary("CREATE DICTIONARY d.x (`k` UInt64, `v` String DEFAULT 'a' INJECTIVE) PRIMARY KEY k SOURCE(CLICKHOUSE(TABLE 'src' PORT 9000 DB 'd')) LIFETIME(MIN 5 MAX 10) LAYOUT(HASHED())");
    expect(dict.spec).toEqual({ backend: 'clickhouse', primary_key: ['k'], source: { type: 'CLICKHOUSE', params: { table: 'src', port: '9000', db: 'd' } }, layout: { type: 'HASHED', params: {} }, lifetime: { min: 5, max: 10 } });
    expect(dict.columns.map((c) => [c.name, c.type, c.default])).toEqual([
      ['k', 'UInt64', null],
      ['v', 'text', { kind: 'literal', value: 'a' }],
    ]);
  });
});

/** The models of the model-vs-database test; `current` adds what only current servers have. */
function models(current: boolean) {
  const events = table(
    'events',
    {
      id: col.ch('UInt64'),
      d: col.ch('Date'),
      name: col.text().default('none').comment('event name'),
      n: col.integer().nullable(),
      kind: col.enum(['a', 'b']).default('a'),
      ts: col.timestamp().default(sql`now()`),
      amount: col.numeric(10, 2),
      ratio: col.double().default(0.5),
      token: col.uuid(),
      ...(current ? { label: col.ch('LowCardinality(String)') } : {}),
    },
    {
      comment: current ? 'all events' : undefined,
      backendTable: {
        engine: 'MergeTree()',
        orderBy: ['id', 'd'],
        partitionBy: 'toYYYYMM(d)',
        sampleBy: 'id',
        settings: { index_granularity: 1024 },
        ...(current
          ? {
              ttl: 'd + toIntervalMonth(1)',
              projections: [{ name: 'by_day', query: 'SELECT d, count() GROUP BY d' }],
              indexes: [chIndex('idx_name', 'name', { type: 'bloom_filter(0.01)', granularity: 2 })],
            }
          : {}),
      },
    },
  );
  const totals = table('totals', { id: col.ch('UInt64'), c: col.ch('UInt64') }, { backendTable: { engine: 'SummingMergeTree()', orderBy: 'id', primaryKey: 'id' } });
  const mv = materializedView('totals_mv', { to: totals, query: sql`SELECT id, count() AS c FROM events GROUP BY id`, columns: { id: col.ch('UInt64'), c: col.ch('UInt64') } });
  const list: unknown[] = [events, totals, mv];
  if (current) {
    const countries = table('countries', { code: col.text(), name: col.text() }, { backendTable: { engine: 'MergeTree()', orderBy: 'code' } });
    const names = dictionary('country_names', {
      columns: { code: col.text(), name: col.text().default('?') },
      primaryKey: 'code',
      source: { type: 'clickhouse', table: 'countries' },
      layout: 'complex_key_hashed',
      lifetime: 300,
    });
    list.push(countries, names);
  }
  return list;
}

describe.skipIf(!server.reachable)('clickhouse 18.16 introspection over HTTP', () => {
  const fresh = useFreshConnections('clickhouse');

  it('reads a hand-written schema, renders it into an empty database and reads back the same IR', async () => {
    const source = await fresh();
    await execAll(source, PORTABLE);
    const ir = await introspect(source);
    expect(Object.keys(ir.tables).sort()).toEqual(['daily_mv', 'events', 'recent', 'totals', 'totals_mv', 'versions']);
    const events = ir.tables.events!;
    expect(events.backend_table_spec).toEqual({
      backend: 'clickhouse',
      engine: 'MergeTree()',
      order_by: 'id, d',
      partition_by: 'toYYYYMM(d)',
      primary_key: null,
      sample_by: 'id',
      ttl: null,
      settings: { index_granularity: '4096' },
      projections: [],
    });
    expect(events.columns.s).toMatchObject({ default: { kind: 'literal', value: "it's" }, comment: 'a string', ch_column: { default_kind: 'DEFAULT' } });
    expect(events.columns.n).toMatchObject({ type: 'integer', nullable: true, ch_column: { native_type: 'Nullable(Int32)' } });
    expect(events.columns.e).toMatchObject({ type: 'enum', enum_values: ['x', 'y'], default: { kind: 'literal', value: 'x' } });
    expect(events.columns.ts!.default).toEqual({ kind: 'expression', sql: 'now()' });
    expect(events.columns.amount!.default).toEqual({ kind: 'literal', value: 1.5 });
    expect(events.columns.doubled).toMatchObject({ default: { kind: 'expression', sql: 'id * 2' }, ch_column: { default_kind: 'MATERIALIZED' } });
    expect(ir.tables.versions!.backend_table_spec).toMatchObject({ engine: 'ReplacingMergeTree(v)', primary_key: 'id', order_by: 'id, d' });
    expect(ir.tables.totals_mv).toMatchObject({ object_type: 'materialized_view', backend_table_spec: { to: 'totals', engine: null, query: 'SELECT id, count() AS c FROM events GROUP BY id' } });
    expect(ir.tables.daily_mv!.backend_table_spec).toMatchObject({ to: null, engine: 'SummingMergeTree()', order_by: 'd', partition_by: 'd' });
    expect(ir.tables.recent).toMatchObject({ object_type: 'view', backend_table_spec: { query: 'SELECT id, ts FROM events WHERE ts > (now() - 3600)' } });

    const target = await fresh();
    await execAll(target, await render('clickhouse', ir));
    expect(canon(await introspect(target))).toBe(canon(ir));
  });

  it('gives for a database built from models the IR those models compile to', async () => {
    const compiled = compileModels(models(false), { dialect: 'clickhouse' });
    const conn = await fresh();
    await execAll(conn, await render('clickhouse', compiled));
    expect(canon(await introspect(conn))).toBe(canon(compiled));
  });
});

describe('clickhouse current-server introspection via chdb', () => {
  let conn: Connection;
  beforeAll(async () => {
    conn = await connectTo('clickhouse', 'chdb://:memory:');
  });
  afterAll(async () => {
    await conn?.close();
  });
  /** chdb runs one engine per process: each step works in its own database, selected with USE. */
  async function use(): Promise<string> {
    const db = randomName();
    await execAll(conn, [`CREATE DATABASE ${db}`, `USE ${db}`]);
    return db;
  }

  it('reads TTL, codecs, projections, skip indexes, dictionaries and comments, and renders them back', async () => {
    await use();
    await execAll(conn, [...PORTABLE, ...CURRENT]);
    const ir = await introspect(conn);
    expect(ir.tables.metrics).toMatchObject({
      comment: 'metric points',
      backend_table_spec: { engine: 'MergeTree()', ttl: 'd + toIntervalMonth(1)', settings: { min_bytes_for_wide_part: '0' }, projections: [{ name: 'by_day', query: 'SELECT d, count() GROUP BY d' }] },
    });
    expect(ir.tables.metrics!.columns.name).toMatchObject({ type: 'text', ch_column: { low_cardinality: true, codec: 'CODEC(ZSTD(1))' } });
    expect(ir.tables.metrics!.columns.flag).toMatchObject({ type: 'boolean', default: { kind: 'literal', value: true } });
    expect(ir.indexes['metrics.idx_name']).toMatchObject({ columns: ['name'], type: 'bloom_filter(0.01)', granularity: 2 });
    expect(ir.indexes['metrics.idx_pair']).toMatchObject({ columns: ['id, d'], type: 'minmax', granularity: 1 });
    expect(ir.tables.country_names).toMatchObject({
      object_type: 'dictionary',
      primary_key: ['code'],
      backend_table_spec: { primary_key: ['code'], source: { type: 'CLICKHOUSE', params: { table: 'countries' } }, layout: { type: 'COMPLEX_KEY_HASHED', params: {} }, lifetime: { min: 0, max: 300 } },
    });
    expect(ir.tables.country_names!.columns.name).toMatchObject({ default: { kind: 'literal', value: '?' }, primary_key: false });
    expect(Object.keys(ir.tables).some((k) => k.startsWith('.inner'))).toBe(false);

    await use();
    await execAll(conn, await render('clickhouse', ir));
    expect(canon(await introspect(conn))).toBe(canon(ir));
  });

  it('gives for a database built from models the IR those models compile to', async () => {
    const compiled = compileModels(models(true), { dialect: 'clickhouse' });
    await use();
    await execAll(conn, await render('clickhouse', compiled));
    expect(canon(await introspect(conn))).toBe(canon(compiled));
  });

  it('renders one object for snapshot TABLE', async () => {
    await use();
    await execAll(conn, PORTABLE);
    const ir = await introspect(conn);
    expect(renderClickHouseTable(ir, 'totals_mv')).toEqual(['CREATE MATERIALIZED VIEW `totals_mv` TO `totals` AS SELECT id, count() AS c FROM events GROUP BY id']);
    expect(() => renderClickHouseTable(ir, 'nope')).toThrow(/known tables: daily_mv, events, recent, totals, totals_mv, versions/);
  });
});
