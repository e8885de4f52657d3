import { createHash } from 'node:crypto';
import { MtoolError } from '../errors.js';

/**
 * The one serialization of IR, snapshots and model state, so the same content always gives the
 * same bytes (and the same checksum): object keys sorted by code point at every depth, array
 * order kept (arrays in the IR are ordered on purpose: index columns, enum values, key columns),
 * `undefined` members dropped, 2-space indent, trailing newline.
 *
 * `known` maps objects inside `value` to their own `canonicalJson` text, computed earlier (say,
 * for a checksum): those are written from that text instead of being serialized again. The caller
 * vouches that the objects did not change since.
 *
 * Throws `MTOOL_INTERNAL` for values JSON cannot represent faithfully (NaN, Infinity, bigint,
 * functions, symbols, cycles): those would make two equal schemas hash differently.
 * @example canonicalJson({ b: 1, a: [2, 1] }) // '{\n  "a": [\n    2,\n    1\n  ],\n  "b": 1\n}\n'
 */
export function canonicalJson(value: unknown, known?: ReadonlyMap<object, string>): string {
  const given = typeof value === 'object' && value !== null ? known?.get(value) : undefined;
  if (given !== undefined) return given;
  const copy = new Canonicalizer(new Set(), '$', known);
  const sorted = copy.value(value);
  // The copy holds its keys in sorted insertion order, which JSON.stringify keeps (natively, about
  // twice as fast as writing by hand on a 1000-table IR) unless a key is an array index ("2",
  // "10"): JS objects iterate those numerically first, so such a copy is written by hand, and so
  // is one holding known texts.
  return `${copy.handWritten ? write(sorted, '') : JSON.stringify(sorted, null, 2)}\n`;
}

/**
 * The same canonical content as `canonicalJson` on one line: keys sorted at every depth, no
 * whitespace, no trailing newline. Schema snapshots lay each table, enum, index and constraint out
 * this way (a line each), which halves their size against the indented form.
 * @example canonicalJsonCompact({ b: 1, a: [2, 1] }) // '{"a":[2,1],"b":1}'
 */
export function canonicalJsonCompact(value: unknown): string {
  const copy = new Canonicalizer();
  const sorted = copy.value(value);
  return copy.handWritten ? writeCompact(sorted) : JSON.stringify(sorted);
}

/** A part of a copy whose canonical text is known (see `canonicalJson`). */
class KnownText {
  constructor(readonly text: string) {}
}

/**
 * JSON.stringify(v, null, 2) layout, written by hand because JS objects iterate integer-like keys
 * ("2", "10") numerically first whatever the insertion order, which would break the key sort.
 */
function write(value: unknown, indent: string): string {
  if (value instanceof KnownText) {
    // Re-indent the known text to this depth: JSON strings hold no raw line breaks, so every one is layout.
    return value.text.slice(0, -1).replace(/\n/g, `\n${indent}`);
  }
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

/** `write` without layout, for copies with array-index keys (see `canonicalJsonCompact`). */
function writeCompact(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(writeCompact).join(',')}]`;
  const record = value as Record<string, unknown>;
  return `{${Object.keys(record)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${writeCompact(record[key])}`)
    .join(',')}}`;
}

/** SHA-256 of the UTF-8 bytes of `text`, lower-case hex. */
export function sha256Hex(text: string | Uint8Array): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * A deep copy of `value` with sorted keys and no `undefined`: what `canonicalJson` serializes.
 * `path` names `value` in error messages (`$.tables.users`).
 */
export function canonicalize(value: unknown, seen: Set<object> = new Set(), path = '$'): unknown {
  return new Canonicalizer(seen, path).value(value);
}

/** True for keys JS objects treat as array indices ("0" ... "4294967294"), which they iterate first. */
function isArrayIndex(key: string): boolean {
  const first = key.charCodeAt(0);
  return first >= 48 && first <= 57 && /^(?:0|[1-9]\d{0,9})$/.test(key) && Number(key) < 4294967295;
}

/** One canonical copy. The path of the value being copied is kept as a stack and spelled only for an error. */
class Canonicalizer {
  /** The copy needs the hand writer: an object has an array-index key, or a part is a known text (see `canonicalJson`). */
  handWritten = false;
  readonly #seen: Set<object>;
  readonly #root: string;
  readonly #known: ReadonlyMap<object, string> | undefined;
  readonly #path: (string | number)[] = [];

  constructor(seen: Set<object> = new Set(), root = '$', known?: ReadonlyMap<object, string>) {
    this.#seen = seen;
    this.#root = root;
    this.#known = known;
  }

  value(value: unknown): unknown {
    if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
    if (typeof value === 'number') {
      if (!Number.isFinite(value)) throw new MtoolError('MTOOL_INTERNAL', `canonical JSON: ${this.#where()} is ${value}, which JSON cannot represent`);
      return Object.is(value, -0) ? 0 : value;
    }
    if (value instanceof Date) return value.toISOString();
    if (typeof value !== 'object') {
      throw new MtoolError('MTOOL_INTERNAL', `canonical JSON: ${this.#where()} is a ${typeof value}, which JSON cannot represent`);
    }
    const text = this.#known?.get(value);
    if (text !== undefined) {
      this.handWritten = true;
      return new KnownText(text);
    }
    if (this.#seen.has(value)) throw new MtoolError('MTOOL_INTERNAL', `canonical JSON: ${this.#where()} refers back to itself`);
    this.#seen.add(value);
    try {
      if (Array.isArray(value)) {
        const out = new Array<unknown>(value.length);
        for (let i = 0; i < value.length; i++) {
          const item: unknown = value[i];
          this.#path.push(i);
          out[i] = item === undefined ? null : this.value(item);
          this.#path.pop();
        }
        return out;
      }
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(value).sort()) {
        const item = (value as Record<string, unknown>)[key];
        if (item === undefined) continue;
        if (!this.handWritten && isArrayIndex(key)) this.handWritten = true;
        this.#path.push(key);
        // Assigning `__proto__` (a table may have that name) would set the copy's prototype and
        // drop the member; it is defined as an own member like any other key. (A prototype-less
        // copy would avoid the test but halves JSON.stringify's speed: such objects are slow-mode.)
        if (key === '__proto__') Object.defineProperty(out, key, { value: this.value(item), enumerable: true, writable: true, configurable: true });
        else out[key] = this.value(item);
        this.#path.pop();
      }
      return out;
    } finally {
      this.#seen.delete(value);
    }
  }

  #where(): string {
    return this.#path.reduce<string>((path, part) => (typeof part === 'number' ? `${path}[${part}]` : `${path}.${part}`), this.#root);
  }
}
