/**
 * Plain objects used as maps keyed by database names (the IR's `tables`, `enums`, `columns`,
 * `column_sorting`; model column maps). A table, column or enum may be called `__proto__`,
 * `constructor` or `toString`, which plain objects treat specially:
 * - `map['__proto__'] = value` sets the object's prototype instead of adding a member, so the
 *   entry silently vanishes (and `Object.assign` does the same for a source that has one);
 * - `map['constructor']` on a map without that key finds `Object.prototype.constructor`.
 *
 * The maps stay plain objects (not `Object.create(null)`, not `Map`): JSON.parse gives plain
 * objects with an own `__proto__` member, snapshots and the model state file are written with
 * JSON.stringify, and callers and tests compare them as such. Writing through {@link setEntry} and
 * looking up through {@link getEntry} / {@link hasEntry} makes them safe for every name.
 */

const PROTO = '__proto__';

/**
 * `map[key] = value` as an own, enumerable member whatever the key (a `__proto__` key is defined,
 * not assigned, so it does not change the prototype). Returns `value`.
 * @example setEntry(table.columns, '__proto__', column); Object.keys(table.columns) // [..., '__proto__']
 */
export function setEntry<T>(map: Record<string, T>, key: string, value: T): T {
  // Only `__proto__` takes the slow path: other keys assign as before (same speed, same key order).
  if (key === PROTO) Object.defineProperty(map, key, { value, enumerable: true, writable: true, configurable: true });
  else map[key] = value;
  return value;
}

/** Whether `map` has its own member `key` (`constructor`, `toString` ... are not members unless set). */
export function hasEntry(map: object, key: string): boolean {
  return Object.hasOwn(map, key);
}

/**
 * `map[key]` when `map` has its own member `key`, else undefined (never a member of
 * `Object.prototype`).
 * @example getEntry(ir.tables, 'constructor') // undefined unless a table is called that
 */
export function getEntry<T>(map: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(map, key) ? map[key] : undefined;
}

/** `Object.assign(target, source)` through {@link setEntry}: a `__proto__` entry is copied as a member. Returns `target`. */
export function assignEntries<T>(target: Record<string, T>, source: Readonly<Record<string, T>>): Record<string, T> {
  for (const key of Object.keys(source)) setEntry(target, key, source[key] as T);
  return target;
}
