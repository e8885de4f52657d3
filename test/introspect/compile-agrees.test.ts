/**
 * Where compiled models and introspection used to disagree, a model compiles to exactly the IR
 * that introspection reads back from a database built from it (model → compile equals
 * model → compile → render → apply → introspect), on each real server. Rendering and
 * introspection go through the Dialect members.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDialect } from '../../src/dialects/index.js';
import type { Connection, DatabaseType } from '../../src/dialects/types.js';
import type { ChMaterializedViewSpec, ChTableSpec, SchemaIR } from '../../src/schema/ir.js';
import { col, compileModels, foreignKey, materializedView, sql, table } from '../../src/schema/index.js';
import { connectTo, randomName, serverStatus, useFreshConnections } from '../support/databases.js';
import { canon, execAll } from './round-trip.js';

const [pg, maria, ch] = await Promise.all([serverStatus('postgresql'), serverStatus('mysql'), serverStatus('clickhouse')]);

/** Build `compiled` in the connection's (empty) database and read it back. */
async function applyAndIntrospect(conn: Connection, compiled: SchemaIR): Promise<SchemaIR> {
  const dialect = getDialect(conn.type);
  await execAll(conn, await dialect.renderSchema(compiled));
  return dialect.introspect(conn);
}

/** Parent/child tables whose foreign keys say `restrict` (column reference and table option). */
function restrictModels() {
  const parents = table('parents', { id: col.integer().primaryKey(), code: col.integer().notNull().unique() });
  const children = table(
    'children',
    {
      id: col.integer().primaryKey(),
      parent_id: col.integer().references(() => parents.id, { onDelete: 'restrict', onUpdate: 'restrict' }),
      parent_code: col.integer(),
    },
    { foreignKeys: [foreignKey({ columns: ['parent_code'], references: { table: parents, columns: ['code'] }, onDelete: 'restrict', onUpdate: 'cascade' })] },
  );
  return [parents, children];
}

/** JSON columns, plain and binary flavoured. */
function jsonModels() {
  return [table('docs', { id: col.integer().primaryKey(), doc: col.json(), docb: col.jsonb().notNull() })];
}

function actions(ir: SchemaIR): [string, string, string][] {
  return Object.values(ir.constraints)
    .filter((c) => c.kind === 'foreign_key')
    .map((c) => [c.name, (c as { on_delete: string }).on_delete, (c as { on_update: string }).on_update] as [string, string, string])
    .sort((a, b) => (a[0] < b[0] ? -1 : 1));
}

describe.skipIf(!pg.reachable)('postgresql: compiled models equal introspection', () => {
  const fresh = useFreshConnections('postgresql');

  it('keeps RESTRICT apart from NO ACTION, as the server does', async () => {
    const compiled = compileModels(restrictModels(), { dialect: 'postgresql' });
    expect(actions(compiled)).toEqual([
      ['fk_children_parent_code_parents', 'RESTRICT', 'CASCADE'],
      ['fk_children_parent_id_parents', 'RESTRICT', 'RESTRICT'],
    ]);
    expect(canon(await applyAndIntrospect(await fresh(), compiled))).toBe(canon(compiled));
  });

  it('reads json and jsonb columns back as compiled', async () => {
    const compiled = compileModels(jsonModels(), { dialect: 'postgresql' });
    expect(compiled.tables.docs!.columns.docb).toMatchObject({ type: 'jsonb', raw: true });
    expect(canon(await applyAndIntrospect(await fresh(), compiled))).toBe(canon(compiled));
  });
});

for (const type of ['mysql', 'mariadb'] as const satisfies readonly DatabaseType[]) {
  describe.skipIf(!maria.reachable)(`${type} (MariaDB server): compiled models equal introspection`, () => {
    const fresh = useFreshConnections('mysql', type);

    it('compiles restrict to NO ACTION, which is what the server reports for it', async () => {
      const compiled = compileModels(restrictModels(), { dialect: type });
      expect(actions(compiled)).toEqual([
        ['fk_children_parent_code_parents', 'NO ACTION', 'CASCADE'],
        ['fk_children_parent_id_parents', 'NO ACTION', 'NO ACTION'],
      ]);
      expect(canon(await applyAndIntrospect(await fresh(), compiled))).toBe(canon(compiled));
    });

    it('compiles json to json, reads it back as json, and keeps JSON validation when re-rendered', async () => {
      const compiled = compileModels(jsonModels(), { dialect: type });
      expect(compiled.tables.docs!.columns.doc).toMatchObject({ type: 'json', raw: true, my_column: { native_type: 'json' } });
      const built = await fresh();
      const read = await applyAndIntrospect(built, compiled);
      expect(canon(read)).toBe(canon(compiled));
      // No json_valid check surfaces as a constraint: it belongs to the json type.
      expect(read.constraints).toEqual({});

      const invalid = "INSERT INTO docs (id, doc, docb) VALUES (1, 'not json', '{}')";
      await expect(built.query(invalid)).rejects.toThrow(/json_valid|CONSTRAINT/i);
      // The introspected IR rendered into another database validates JSON too.
      const copy = await fresh();
      expect(canon(await applyAndIntrospect(copy, read))).toBe(canon(compiled));
      await expect(copy.query(invalid)).rejects.toThrow(/json_valid|CONSTRAINT/i);
      await copy.query(`INSERT INTO docs (id, doc, docb) VALUES (1, '{"a": 1}', '[]')`);
    });
  });
}

/** ClickHouse models spelled the ways introspection used to read differently. */
function clickhouseModels(options: { boolType: boolean }) {
  const events = table(
    'events',
    {
      id: col.ch('UInt64'),
      d: col.ch('Date'),
      kind: col.ch('UInt8'),
      flag: col.boolean().default(true),
      off: col.boolean().notNull().default(false),
      ...(options.boolType ? { native_flag: col.ch('Bool').default(true) } : {}),
    },
    // No parentheses on the engine; every key clause a parenthesized string.
    { backendTable: { engine: 'MergeTree', orderBy: '(id, d)', primaryKey: '(id)', partitionBy: '(toYYYYMM(d), kind)', sampleBy: '(id)' } },
  );
  const totals = table('totals', { id: col.ch('UInt64'), c: col.ch('UInt64') }, { backendTable: { engine: 'SummingMergeTree', orderBy: ['id'] } });
  const daily = materializedView('daily_mv', {
    engine: 'SummingMergeTree',
    orderBy: '(d)',
    partitionBy: '(d)',
    query: sql`SELECT d, count() AS c FROM events GROUP BY d`,
    columns: { d: col.ch('Date'), c: col.ch('UInt64') },
  });
  return [events, totals, daily];
}

function expectClickHouseSpellings(compiled: SchemaIR): void {
  expect(compiled.tables.events!.backend_table_spec).toMatchObject({ engine: 'MergeTree()', order_by: 'id, d', primary_key: 'id', partition_by: 'toYYYYMM(d), kind', sample_by: 'id' } satisfies Partial<ChTableSpec>);
  expect((compiled.tables.totals!.backend_table_spec as ChTableSpec).engine).toBe('SummingMergeTree()');
  expect(compiled.tables.daily_mv!.backend_table_spec).toMatchObject({ engine: 'SummingMergeTree()', order_by: 'd', partition_by: 'd' } satisfies Partial<ChMaterializedViewSpec>);
  expect(compiled.tables.events!.columns.flag).toMatchObject({ type: 'integer', ch_column: { native_type: 'UInt8' }, default: { kind: 'literal', value: 1 } });
  expect(compiled.tables.events!.columns.off!.default).toEqual({ kind: 'literal', value: 0 });
}

describe('clickhouse key spellings compile alike', () => {
  it('gives the same spec for parenthesized strings, bare lists and arrays', () => {
    const spec = (backendTable: Record<string, unknown>) =>
      compileModels([table('t', { a: col.ch('UInt64'), b: col.ch('Date') }, { backendTable: { engine: 'MergeTree()', ...backendTable } })], { dialect: 'clickhouse' }).tables.t!.backend_table_spec;
    const arrays = spec({ orderBy: ['a', 'b'], primaryKey: ['a'] });
    expect(spec({ orderBy: '(a, b)', primaryKey: '(a)' })).toEqual(arrays);
    expect(spec({ orderBy: 'a,   b', primaryKey: 'a' })).toEqual(arrays);
    expect(spec({ orderBy: ['(a)', 'b'], primaryKey: ['a'] })).toEqual(arrays);
  });
});

describe.skipIf(!ch.reachable)('clickhouse 18.16 over HTTP: compiled models equal introspection', () => {
  const fresh = useFreshConnections('clickhouse');

  it('adds () to engines, reads key clauses as compiled, and stores boolean defaults as 1/0', async () => {
    const compiled = compileModels(clickhouseModels({ boolType: false }), { dialect: 'clickhouse' });
    expectClickHouseSpellings(compiled);
    expect(canon(await applyAndIntrospect(await fresh(), compiled))).toBe(canon(compiled));
  });
});

describe('clickhouse current server via chdb: compiled models equal introspection', () => {
  let conn: Connection;
  beforeAll(async () => {
    conn = await connectTo('clickhouse', 'chdb://:memory:');
  });
  afterAll(async () => {
    await conn?.close();
  });

  it('adds () to engines, reads key clauses as compiled, stores boolean defaults as 1/0 and keeps Bool defaults true', async () => {
    const compiled = compileModels(clickhouseModels({ boolType: true }), { dialect: 'clickhouse' });
    expectClickHouseSpellings(compiled);
    expect(compiled.tables.events!.columns.native_flag).toMatchObject({ type: 'boolean', default: { kind: 'literal', value: true } });
    // chdb runs one engine per process: work in a database of our own, selected with USE.
    const db = randomName();
    await execAll(conn, [`CREATE DATABASE ${db}`, `USE ${db}`]);
    expect(canon(await applyAndIntrospect(conn, compiled))).toBe(canon(compiled));
  });
});
