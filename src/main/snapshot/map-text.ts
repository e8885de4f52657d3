import { getEntry } from '../../schema/name-map.js';
import { LAYOUT, snapshotEntryLine } from './snapshot-text.js';

/**
 * The text of one map of a snapshot (`tables`, `indexes` ...) as snapshotText lays it out, kept
 * up to date entry by entry: a batch's snapshots differ from one to the next by the few objects a
 * migration touched, so the writer patches the text where they sort instead of sorting and laying
 * out the whole map for every file (which grew with the square of the batch).
 *
 * Layout of {@link #text}: each entry's line followed by `,\n`, in key order (code unit order, as
 * `Array.prototype.sort` and canonical JSON sort); {@link bytes} drops the last separator.
 */
export class MapText {
  #keys: string[] = [];
  #values: unknown[] = [];
  /** End offset in {@link #text} of each entry's segment (line + separator). */
  #ends: number[] = [];
  #text = Buffer.allocUnsafe(0);
  #size = 0;
  /** Per object: its line, while its key is the same (objects are never mutated by the caller). */
  readonly #lines: WeakMap<object, { key: string; line: Buffer }>;

  constructor(lines: WeakMap<object, { key: string; line: Buffer }>) {
    this.#lines = lines;
  }

  get size(): number {
    return this.#keys.length;
  }

  /** Whether the text already is `map`'s: the same keys holding the same objects (else see {@link prepareReset}). */
  holds(map: Record<string, unknown>): boolean {
    let count = 0;
    for (const key in map) {
      if (map[key] === undefined) continue;
      const at = this.#find(key);
      if (at < 0 || this.#values[at] !== map[key]) return false;
      count++;
    }
    return count === this.#keys.length;
  }

  /**
   * Prepare setting these entries and removing the `removed` keys (a key both removed and set
   * ends up set); the returned function applies it. The new lines are laid out here, so a value
   * JSON cannot represent throws before anything changed (the writer prepares every map of a
   * step, then applies them all).
   */
  prepare(set: Record<string, unknown>, removed: Iterable<string>): () => void {
    const changes: [string, unknown, Buffer][] = [];
    for (const key in set) if (set[key] !== undefined) changes.push([key, set[key], this.#segment(key, set[key])]);
    // Own members only: a removed table called `constructor` is no member of `set` even though `set.constructor` is defined.
    const gone = [...removed].filter((key) => getEntry(set, key) === undefined);
    return () => {
      for (const key of gone) this.#remove(key);
      for (const [key, value, segment] of changes) this.#put(key, value, segment);
    };
  }

  /** Replace everything by `map` (lines of objects seen before are reused), prepared like {@link prepare}. */
  prepareReset(map: Record<string, unknown>): () => void {
    const keys = Object.keys(map)
      .filter((k) => map[k] !== undefined)
      .sort();
    const segments = keys.map((k) => this.#segment(k, map[k]));
    return () => {
      this.#keys = keys;
      this.#values = keys.map((k) => map[k]);
      this.#ends = [];
      let size = 0;
      for (const s of segments) this.#ends.push((size += s.length));
      this.#text = Buffer.allocUnsafe(size);
      this.#size = 0;
      for (const s of segments) this.#size += s.copy(this.#text, this.#size);
    };
  }

  /** The object under `key`, if any. */
  get(key: string): unknown {
    const at = this.#find(key);
    return at < 0 ? undefined : this.#values[at];
  }

  /** Keys of the entries whose object has `field` equal to one of `values` (indexes and constraints by table). */
  keysWhere(field: string, values: ReadonlySet<string>): string[] {
    const out: string[] = [];
    for (let i = 0; i < this.#keys.length; i++) {
      const v = this.#values[i] as Record<string, unknown> | null;
      if (v !== null && typeof v === 'object' && values.has(v[field] as string)) out.push(this.#keys[i]!);
    }
    return out;
  }

  /** The map member's text: `{}`, or `{\n` + the lines joined by `,\n` + `\n  }`. */
  bytes(): Buffer[] {
    if (this.#keys.length === 0) return [EMPTY];
    return [OPEN, this.#text.subarray(0, this.#size - SEPARATOR.length), CLOSE];
  }

  #segment(key: string, value: unknown): Buffer {
    if (typeof value !== 'object' || value === null) return Buffer.from(`${snapshotEntryLine(key, value)}${LAYOUT.separator}`, 'utf8');
    const kept = this.#lines.get(value);
    if (kept?.key === key) return kept.line;
    const line = Buffer.from(`${snapshotEntryLine(key, value)}${LAYOUT.separator}`, 'utf8');
    this.#lines.set(value, { key, line });
    return line;
  }

  /**
   * Lay out the lines of `map`'s objects that have none yet, changing nothing else: a later
   * {@link prepare} or {@link prepareReset} holding them reuses them.
   */
  warm(map: Record<string, unknown>): void {
    for (const key in map) {
      const value = map[key];
      if (typeof value === 'object' && value !== null) this.#segment(key, value);
    }
  }

  /** Index of `key`, or `-(insertion point) - 1`. */
  #find(key: string): number {
    let lo = 0;
    let hi = this.#keys.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const k = this.#keys[mid]!;
      if (k === key) return mid;
      if (k < key) lo = mid + 1;
      else hi = mid - 1;
    }
    return -lo - 1;
  }

  #start(at: number): number {
    return at === 0 ? 0 : this.#ends[at - 1]!;
  }

  #remove(key: string): void {
    const at = this.#find(key);
    if (at < 0) return;
    this.#splice(at, this.#ends[at]! - this.#start(at), EMPTY_SEGMENT);
    this.#keys.splice(at, 1);
    this.#values.splice(at, 1);
    this.#ends.splice(at, 1);
  }

  #put(key: string, value: unknown, segment: Buffer): void {
    let at = this.#find(key);
    if (at >= 0) {
      if (this.#values[at] === value) return;
      this.#splice(at, this.#ends[at]! - this.#start(at), segment);
      this.#values[at] = value;
      this.#ends[at] = this.#start(at) + segment.length;
      return;
    }
    at = -at - 1;
    this.#splice(at, 0, segment);
    this.#keys.splice(at, 0, key);
    this.#values.splice(at, 0, value);
    this.#ends.splice(at, 0, this.#start(at) + segment.length);
  }

  /** Replace `oldLength` bytes of the text where entry `at` starts by `segment`, moving what follows. */
  #splice(at: number, oldLength: number, segment: Buffer): void {
    const start = this.#start(at);
    const delta = segment.length - oldLength;
    const size = this.#size + delta;
    if (size > this.#text.length) {
      const grown = Buffer.allocUnsafe(Math.max(size, this.#text.length * 2, 4096));
      this.#text.copy(grown, 0, 0, this.#size);
      this.#text = grown;
    }
    this.#text.copyWithin(start + segment.length, start + oldLength, this.#size);
    segment.copy(this.#text, start);
    this.#size = size;
    if (delta !== 0) for (let i = at; i < this.#ends.length; i++) this.#ends[i]! += delta;
  }
}

const OPEN = Buffer.from(LAYOUT.open);
const CLOSE = Buffer.from(LAYOUT.mapClose);
const EMPTY = Buffer.from(LAYOUT.empty);
const SEPARATOR = Buffer.from(LAYOUT.separator);
const EMPTY_SEGMENT = Buffer.alloc(0);
