/**
 * Names that are members of `Object.prototype` (`__proto__`, `constructor`, `toString`) as
 * table, column, enum and index-column names, in the code that builds and merges schema maps
 * without a database: models and compileModels, canonical JSON, version 1 snapshots, the snapshot
 * window's merge and the snapshot writer's map text, and the code generator's literals. The live
 * paths (introspection, check-db, snapshot files, generate-models) are in
 * test/commands-schema/proto-names.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { emit, propertyKey, valueOf } from '../../src/main/codegen/ts-literal.js';
import { MapText } from '../../src/main/snapshot/map-text.js';
import { mergeTables } from '../../src/main/snapshot/schema-window.js';
import { normalizeV1Schema } from '../../src/main/snapshot/snapshot-v1.js';
import { canonicalJson } from '../../src/schema/canonical-json.js';
import { col, compileModels, index, pgEnum, table, type SchemaIR, type TableIR } from '../../src/schema/index.js';

/** A minimal table IR called `name` with the given columns. */
function tableIr(name: string, columns: string[]): TableIR {
  const ir: TableIR = { name, object_type: 'table', columns: {}, primary_key: [], comment: null, backend_table_spec: { backend: 'sqlite' } };
  columns.forEach((c, position) =>
    Object.defineProperty(ir.columns, c, { value: { name: c, position, type: 'integer', nullable: true, primary_key: false, default: null, comment: null }, enumerable: true, writable: true, configurable: true }),
  );
  return ir;
}

/** A schema holding these tables (keys set as members, whatever they are called). */
function schemaOf(...tables: TableIR[]): SchemaIR {
  return { tables: Object.fromEntries(tables.map((t) => [t.name, t])), enums: {}, indexes: {}, constraints: {} };
}

describe('models named like Object.prototype members', () => {
  const proto = pgEnum('__proto__', ['a', 'b']);
  const ctor = pgEnum('constructor', ['x']);
  // Computed key: `{ __proto__: ... }` in a literal sets its prototype (this is how generated models write it).
  const t = table('__proto__', { id: col.integer().primaryKey(), ['__proto__']: col.enum(proto), constructor: col.enum(ctor), toString: col.integer() }, { indexes: [index('__proto__').desc('__proto__')] });

  it('keep such a column as a member of the model, not as its prototype', () => {
    expect(Object.getPrototypeOf(t)).toBe(Object.prototype);
    expect(Object.keys(t)).toEqual(['id', '__proto__', 'constructor', 'toString']);
  });

  it('compile to an IR holding each table, column, enum and sorted index column', () => {
    const ir = compileModels([proto, ctor, t], { dialect: 'postgresql' });
    expect(Object.keys(ir.tables)).toEqual(['__proto__']);
    expect(Object.keys(ir.enums).sort()).toEqual(['__proto__', 'constructor']);
    const table = Object.getOwnPropertyDescriptor(ir.tables, '__proto__')!.value as TableIR;
    expect(Object.keys(table.columns)).toEqual(['id', '__proto__', 'constructor', 'toString']);
    expect(Object.keys(Object.values(ir.indexes)[0]!.column_sorting)).toEqual(['__proto__']);
  });

  it('write canonical JSON that parses back to the same text', () => {
    const text = canonicalJson(compileModels([proto, ctor, t], { dialect: 'postgresql' }));
    expect(text).toContain('"__proto__": {');
    expect(canonicalJson(JSON.parse(text))).toBe(text);
  });
});

describe('snapshot maps with a table called __proto__ or constructor', () => {
  it('a version 1 snapshot keeps them when normalized', () => {
    const v1 = JSON.parse('{"tables":{"__proto__":{"columns":[{"name":"__proto__","type":"integer"}]}},"enums":{"__proto__":["a"]}}') as Record<string, unknown>;
    const ir = normalizeV1Schema(v1);
    expect(Object.keys(ir.tables)).toEqual(['__proto__']);
    expect(Object.keys(ir.enums)).toEqual(['__proto__']);
    expect(Object.keys((Object.getOwnPropertyDescriptor(ir.tables, '__proto__')!.value as TableIR).columns)).toEqual(['__proto__']);
  });

  it('the window merge keeps a table read again and one left untouched', () => {
    const previous = schemaOf(tableIr('__proto__', ['id']), tableIr('users', ['id']));
    const part = schemaOf(tableIr('__proto__', ['id', '__proto__']));
    const merged = mergeTables(previous, part, ['__proto__'], false);
    expect(Object.keys(merged.tables).sort()).toEqual(['__proto__', 'users']);
    expect(Object.keys((Object.getOwnPropertyDescriptor(merged.tables, '__proto__')!.value as TableIR).columns)).toEqual(['id', '__proto__']);
  });

  it('the writer drops the line of a table called constructor when a step removes it', () => {
    const text = new MapText(new WeakMap());
    text.prepareReset({ constructor: { name: 'constructor' }, users: { name: 'users' } })();
    text.prepare({}, ['constructor'])();
    expect(Buffer.concat(text.bytes()).toString()).not.toContain('constructor');
    expect(text.size).toBe(1);
  });
});

describe('generated model code with a member called __proto__', () => {
  it('writes it as a computed key, whose value is a member again', () => {
    expect(propertyKey('__proto__')).toBe("['__proto__']");
    expect(propertyKey('constructor')).toBe('constructor');
    const literal = Object.fromEntries([['__proto__', 1], ['id', 2]]);
    expect(emit(literal)).toBe("{ ['__proto__']: 1, id: 2 }");
    const value = valueOf(literal) as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.keys(value)).toEqual(['__proto__', 'id']);
    // The text evaluates to an object with the member.
    expect(Object.keys(new Function(`return ${emit(literal)};`)() as object)).toEqual(['__proto__', 'id']);
  });
});
