import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { canonicalJson, sha256Hex } from '../../src/schema/canonical-json.js';

describe('canonicalJson gives the same bytes for the same content', () => {
  it('sorts keys at every depth, keeps array order, drops undefined, ends with a newline', () => {
    const text = canonicalJson({ b: 1, a: { d: [3, 1, 2], c: undefined, b: null } });
    expect(text).toBe('{\n  "a": {\n    "b": null,\n    "d": [\n      3,\n      1,\n      2\n    ]\n  },\n  "b": 1\n}\n');
  });

  it('sorts integer-like keys as text, not numerically', () => {
    expect(canonicalJson({ '9': 1, '10': 2, a: 3 })).toBe('{\n  "10": 2,\n  "9": 1,\n  "a": 3\n}\n');
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
