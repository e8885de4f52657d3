import { createHash } from 'node:crypto';
import { MtoolError } from '../errors.js';

/**
 * The one serialization of IR, snapshots and model state, so the same content always gives the
 * same bytes (and the same checksum): object keys sorted by code point at every depth, array
 * order kept (arrays in the IR are ordered on purpose: index columns, enum values, key columns),
 * `undefined` members dropped, 2-space indent, trailing newline.
 *
 * Throws `MTOOL_INTERNAL` for values JSON cannot represent faithfully (NaN, Infinity, bigint,
 * functions, symbols, cycles): those would make two equal schemas hash differently.
 * @example canonicalJson({ b: 1, a: [2, 1] }) // '{\n  "a": [\n    2,\n    1\n  ],\n  "b": 1\n}\n'
 */
export function canonicalJson(value: unknown): string {
  return `${write(canonicalize(value, new Set(), '$'), '')}\n`;
}

/**
 * JSON.stringify(v, null, 2) layout, written by hand because JS objects iterate integer-like keys
 * ("2", "10") numerically first whatever the insertion order, which would break the key sort.
 */
function write(value: unknown, indent: string): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return `[\n${value.map((item) => `${inner}${write(item, inner)}`).join(',\n')}\n${indent}]`;
  }
  const keys = Object.keys(value).sort();
  if (keys.length === 0) return '{}';
  const record = value as Record<string, unknown>;
  return `{\n${keys.map((key) => `${inner}${JSON.stringify(key)}: ${write(record[key], inner)}`).join(',\n')}\n${indent}}`;
}

/** SHA-256 of the UTF-8 bytes of `text`, lower-case hex. */
export function sha256Hex(text: string | Uint8Array): string {
  return createHash('sha256').update(text).digest('hex');
}

/** A deep copy of `value` with sorted keys and no `undefined`: what `canonicalJson` serializes. */
export function canonicalize(value: unknown, seen: Set<object> = new Set(), path = '$'): unknown {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new MtoolError('MTOOL_INTERNAL', `canonical JSON: ${path} is ${value}, which JSON cannot represent`);
    return Object.is(value, -0) ? 0 : value;
  }
  if (value instanceof Date) return value.toISOString();
  if (typeof value !== 'object') {
    throw new MtoolError('MTOOL_INTERNAL', `canonical JSON: ${path} is a ${typeof value}, which JSON cannot represent`);
  }
  if (seen.has(value)) throw new MtoolError('MTOOL_INTERNAL', `canonical JSON: ${path} refers back to itself`);
  seen.add(value);
  try {
    if (Array.isArray(value)) {
      return value.map((item, i) => (item === undefined ? null : canonicalize(item, seen, `${path}[${i}]`)));
    }
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const item = (value as Record<string, unknown>)[key];
      if (item === undefined) continue;
      out[key] = canonicalize(item, seen, `${path}.${key}`);
    }
    return out;
  } finally {
    seen.delete(value);
  }
}
