import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { canonicalJson, canonicalJsonCompact, sha256Hex } from '../../src/schema/canonical-json.js';

describe('canonicalJson gives the same bytes for the same content', () => {
  it('sorts keys at every depth, keeps array order, drops undefined, ends with a newline', () => {
    const text = canonicalJson({ b: 1, a: { d: [3, 1, 2], c: undefined, b: null } });
    expect(text).toBe('{\n  "a": {\n    "b": null,\n    "d": [\n      3,\n      1,\n      2\n    ]\n  },\n  "b": 1\n}\n');
  });

  it('sorts integer-like keys as text, not numerically', () => {
    expect(canonicalJson({ '9': 1, '10': 2, a: 3 })).toBe('{\n  "10": 2,\n  "9": 1,\n  "a": 3\n}\n');
  });

  it('sorts integer-like keys as text at any depth, and leaves keys that are not array indices alone', () => {
    expect(canonicalJson({ z: { '9': 1, '10': 2 }, a: [{ '2': 0, '11': 1 }] })).toBe(
      '{\n  "a": [\n    {\n      "11": 1,\n      "2": 0\n    }\n  ],\n  "z": {\n    "10": 2,\n    "9": 1\n  }\n}\n',
    );
    expect(canonicalJson({ b: 1, '4294967295': 2, '01': 3 })).toBe('{\n  "01": 3,\n  "4294967295": 2,\n  "b": 1\n}\n');
  });

  it('writes what a plain recursive writer with sorted keys writes, for keys that look like numbers too', () => {
    const reference = (v: unknown, indent = ''): string => {
      if (v === null || typeof v !== 'object') return JSON.stringify(v);
      const inner = `${indent}  `;
      if (Array.isArray(v)) return v.length === 0 ? '[]' : `[\n${v.map((x) => `${inner}${reference(x, inner)}`).join(',\n')}\n${indent}]`;
      const keys = Object.keys(v).sort();
      return keys.length === 0 ? '{}' : `{\n${keys.map((k) => `${inner}${JSON.stringify(k)}: ${reference((v as Record<string, unknown>)[k], inner)}`).join(',\n')}\n${indent}}`;
    };
    // `__proto__` and `constructor` included: tables and columns may be called that (the copy keeps an own `__proto__` key).
    const key = fc.oneof(fc.string(), fc.nat().map(String), fc.constantFrom('0', '01', '4294967294', '4294967295', '-1', '1.5', '__proto__', 'constructor'));
    const { tree } = fc.letrec((tie) => ({
      tree: fc.oneof({ depthSize: 'small' }, fc.jsonValue({ maxDepth: 0 }), fc.array(tie('tree'), { maxLength: 3 }), fc.dictionary(key, tie('tree'), { maxKeys: 5 })),
    }));
    fc.assert(
      fc.property(tree, (value) => {
        const plain = JSON.parse(JSON.stringify(value)) as unknown;
        expect(canonicalJson(plain)).toBe(`${reference(plain)}\n`);
      }),
    );
  });

  it('canonicalJsonCompact is the same content on one line: what canonicalJson writes, whitespace of layout removed', () => {
    expect(canonicalJsonCompact({ b: 1, a: { '10': [3, 1], '9': 'x y', c: undefined } })).toBe('{"a":{"10":[3,1],"9":"x y"},"b":1}');
    const reference = (v: unknown): string => {
      if (v === null || typeof v !== 'object') return JSON.stringify(v);
      if (Array.isArray(v)) return `[${v.map(reference).join(',')}]`;
      const record = v as Record<string, unknown>;
      return `{${Object.keys(record).sort().map((k) => `${JSON.stringify(k)}:${reference(record[k])}`).join(',')}}`;
    };
    const key = fc.oneof(fc.string(), fc.nat().map(String)).filter((k) => k !== '__proto__');
    const { tree } = fc.letrec((tie) => ({
      tree: fc.oneof({ depthSize: 'small' }, fc.jsonValue({ maxDepth: 0 }), fc.array(tie('tree'), { maxLength: 3 }), fc.dictionary(key, tie('tree'), { maxKeys: 5 })),
    }));
    fc.assert(
      fc.property(tree, (value) => {
        const plain = JSON.parse(JSON.stringify(value)) as unknown;
        const compact = canonicalJsonCompact(plain);
        expect(compact).not.toContain('\n');
        // Same content, same key order: re-indenting the compact text gives the canonical text.
        expect(canonicalJson(JSON.parse(compact))).toBe(canonicalJson(plain));
        expect(compact).toBe(reference(plain));
      }),
    );
  });

  it('writes a part whose text is known from that text, at its depth, with the same bytes', () => {
    const schema = { tables: { '10': { b: [1, { c: 'x\ny' }] }, '9': {} }, empty: [] };
    const value = { databases: { app: { schema, checksum: 'c' }, list: [schema] }, format_version: 1 };
    const known = new Map<object, string>([[schema, canonicalJson(schema)]]);
    expect(canonicalJson(value, known)).toBe(canonicalJson(value));
    expect(canonicalJson(schema, known)).toBe(known.get(schema));
    // The known text is used as given (the caller vouches for it), not recomputed.
    expect(canonicalJson({ a: schema }, new Map([[schema, '"stale"\n']]))).toBe('{\n  "a": "stale"\n}\n');
  });

  it('keeps a __proto__ key as a member', () => {
    const value = JSON.parse('{"b": 1, "__proto__": {"x": null}}') as unknown;
    expect(canonicalJson(value)).toBe('{\n  "__proto__": {\n    "x": null\n  },\n  "b": 1\n}\n');
    expect(canonicalJsonCompact(value)).toBe('{"__proto__":{"x":null},"b":1}');
    // With an array-index key the copy is written by hand: the same member.
    expect(canonicalJsonCompact(JSON.parse('{"2": 1, "__proto__": 3}'))).toBe('{"2":1,"__proto__":3}');
  });

  it('matches JSON.stringify layout and round-trips', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = canonicalJson(value);
        expect(canonicalJson(JSON.parse(text))).toBe(text);
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(value)));
      }),
    );
  });

  it('is independent of key insertion order', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (dict) => {
        const reversed = Object.fromEntries(Object.entries(dict).reverse());
        expect(canonicalJson(reversed)).toBe(canonicalJson(dict));
      }),
    );
  });

  it('refuses values JSON cannot represent faithfully', () => {
    expect(() => canonicalJson({ a: Number.NaN })).toThrow(/\$\.a is NaN/);
    expect(() => canonicalJson({ a: 1n })).toThrow(/bigint/);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => canonicalJson(cyclic)).toThrow(/refers back/);
  });

  it('hashes with SHA-256 hex', () => {
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});
