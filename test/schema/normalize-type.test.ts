import { describe, expect, it } from 'vitest';
import { normalizeType } from '../../src/schema/normalize-type.js';

describe('normalizeType maps native types to the spec normalized set', () => {
  it.each([
    ['INT', 'mysql', { type: 'integer' }],
    ['int(11)', 'mariadb', { type: 'integer', native: 'int' }],
    ['INTEGER', 'sqlite', { type: 'integer', native: 'INTEGER' }],
    ['int4', 'postgresql', { type: 'integer' }],
    ['TINYINT', 'mysql', { type: 'integer' }],
    ['smallint', 'postgresql', { type: 'integer' }],
    ['BIGINT', 'postgresql', { type: 'biginteger', native: 'bigint' }],
    ['int8', 'postgresql', { type: 'biginteger' }],
    ['bigint(20) unsigned', 'mysql', { type: 'biginteger', unsigned: true, native: 'bigint unsigned' }],
    ['VARCHAR(255)', 'mysql', { type: 'varchar', length: 255, native: 'varchar(255)' }],
    ['character varying(40)', 'postgresql', { type: 'varchar', length: 40 }],
    ['character varying', 'postgresql', { type: 'varchar' }],
    ['TEXT', 'sqlite', { type: 'text' }],
    ['longtext', 'mariadb', { type: 'text' }],
    ['CLOB', 'sqlite', { type: 'text' }],
    ['BOOLEAN', 'postgresql', { type: 'boolean' }],
    ['bool', 'postgresql', { type: 'boolean' }],
    ['tinyint(1)', 'mysql', { type: 'boolean', native: 'tinyint(1)' }],
    ['timestamp without time zone', 'postgresql', { type: 'timestamp', timezone: false }],
    ['timestamp(3) with time zone', 'postgresql', { type: 'timestamp', timezone: true, precision: 3 }],
    ['DATETIME', 'mysql', { type: 'timestamp', timezone: false }],
    ['timestamp', 'mariadb', { type: 'timestamp', timezone: true }],
    ['NUMERIC(10, 2)', 'postgresql', { type: 'numeric', precision: 10, scale: 2, native: 'numeric(10,2)' }],
    ['decimal(8,3)', 'mysql', { type: 'numeric', precision: 8, scale: 3 }],
    ['numeric', 'postgresql', { type: 'numeric' }],
    ['FLOAT', 'mysql', { type: 'float' }],
    ['REAL', 'sqlite', { type: 'float' }],
    ['double precision', 'postgresql', { type: 'float' }],
    ['DOUBLE', 'mariadb', { type: 'float' }],
    ['bytea', 'postgresql', { type: 'bytes' }],
    ['BLOB', 'sqlite', { type: 'bytes' }],
    ['binary(16)', 'mysql', { type: 'bytes', length: 16 }],
    ['uuid', 'postgresql', { type: 'uuid' }],
    ["enum('a','it''s', 'b, c')", 'mysql', { type: 'enum', enum_values: ['a', "it's", 'b, c'], native: "enum('a','it''s','b, c')" }],
  ] as const)('%s on %s', (native, dialect, expected) => {
    expect(normalizeType(native, dialect)).toMatchObject(expected);
  });

  it('keeps unknown types as raw canonical text', () => {
    expect(normalizeType('tsvector', 'postgresql')).toEqual({ type: 'tsvector', raw: true, native: 'tsvector' });
    expect(normalizeType('JSONB', 'postgresql')).toEqual({ type: 'jsonb', raw: true, native: 'jsonb' });
    expect(normalizeType('integer[]', 'postgresql')).toMatchObject({ type: 'integer[]', raw: true });
    expect(normalizeType('character(10)', 'postgresql')).toMatchObject({ type: 'character(10)', raw: true });
    expect(normalizeType('json', 'mysql')).toMatchObject({ type: 'json', raw: true });
  });

  it('recognizes PostgreSQL named enums only when told their names', () => {
    expect(normalizeType('user_status', 'postgresql', { enums: ['user_status'] })).toEqual({ type: 'enum', native: 'user_status' });
    expect(normalizeType('user_status', 'postgresql')).toMatchObject({ raw: true });
  });

  it.each([
    ['Int32', { type: 'integer', nullable: false, low_cardinality: false }],
    ['Int64', { type: 'biginteger' }],
    ['UInt8', { type: 'integer', unsigned: true }],
    ['UInt32', { type: 'biginteger', unsigned: true }],
    ['String', { type: 'text' }],
    ['Nullable(String)', { type: 'text', nullable: true, low_cardinality: false }],
    ['LowCardinality(String)', { type: 'text', nullable: false, low_cardinality: true }],
    ['LowCardinality(Nullable(String))', { type: 'text', nullable: true, low_cardinality: true, native: 'LowCardinality(Nullable(String))' }],
    ['Float64', { type: 'float' }],
    ['Decimal(18, 4)', { type: 'numeric', precision: 18, scale: 4 }],
    ['Decimal64(4)', { type: 'numeric', precision: 18, scale: 4 }],
    ['DateTime', { type: 'timestamp', timezone: false }],
    ["DateTime('UTC')", { type: 'timestamp', timezone: true }],
    ["DateTime64(3, 'UTC')", { type: 'timestamp', timezone: true, precision: 3 }],
    ['UUID', { type: 'uuid' }],
    ["Enum8('a' = 1, 'b' = 2)", { type: 'enum', enum_values: ['a', 'b'] }],
    ['Date', { type: 'Date', raw: true }],
    ['UInt64', { type: 'UInt64', raw: true }],
    ['Array(String)', { type: 'Array(String)', raw: true }],
    ['FixedString(16)', { type: 'FixedString(16)', raw: true }],
  ] as const)('ClickHouse %s', (native, expected) => {
    expect(normalizeType(native, 'clickhouse')).toMatchObject(expected);
  });
});

describe('normalizeType remembers what it normalized', () => {
  it('gives the same answer again, as a copy the caller may change', () => {
    const first = normalizeType("enum('a','b')", 'mysql');
    first.enum_values!.push('changed');
    first.type = 'text';
    const again = normalizeType("enum('a','b')", 'mysql');
    expect(again).toEqual({ type: 'enum', enum_values: ['a', 'b'], native: "enum('a','b')" });
    expect(again).not.toBe(normalizeType("enum('a','b')", 'mysql'));
  });

  it('keeps dialects and enum names apart', () => {
    expect(normalizeType('mood', 'postgresql', { enums: ['mood'] })).toMatchObject({ type: 'enum', native: 'mood' });
    expect(normalizeType('mood', 'postgresql')).toMatchObject({ type: 'mood', raw: true });
    expect(normalizeType('mood', 'postgresql', { enums: ['mood'] })).toMatchObject({ type: 'enum' });
    expect(normalizeType('text', 'sqlite').native).toBe('TEXT');
    expect(normalizeType('text', 'postgresql').native).toBe('text');
  });
});
