/**
 * `mtool/seed`: how code seeds are declared. Definitions only: the engine that applies them lives
 * in the mtool-seeds plugin, which discovers subclasses of {@link Seed} through the `modelPaths` scan.
 *
 * @example
 * import { Seed } from 'mtool/seed';
 * import { users } from './models.js';
 *
 * export class AdminUser extends Seed {
 *   static override version = 'C0001';
 *   static override database = 'app';
 *   static override description = 'the first admin';
 *   static override model = users;
 *   static override rows = [{ id: 1, email: 'admin@example.com' }];
 * }
 */
import { MtoolError } from '../errors.js';
import { logger } from '../main/log.js';

/** What happens when a seeded row already exists (spec: `__seed_on_conflict__`). */
export type OnConflict = 'ignore' | 'update' | 'error';
export const ON_CONFLICT: readonly OnConflict[] = ['ignore', 'update', 'error'];

/** One row of a seed: column name → value. */
export type SeedRow = Record<string, unknown>;

/** Logic-based seeds receive the raw connection and a session bound to the same transaction. */
export type SeedFunction = (connection: unknown, session: unknown) => unknown | Promise<unknown>;

/**
 * Base class of code seeds. Subclasses set statics; an instance is never created.
 * A seed has `model` plus `rows`, or a static `forward` (and `reverse` to be reversible).
 */
export abstract class Seed {
  /** Immutable version in the `C` namespace: `C0001`, `C0002` ... Never changed or reused once released. */
  static version: string | undefined = undefined;
  /** Database name the seed belongs to. */
  static database = 'default';
  /** Label shown by `seed list`. */
  static description = '';
  static onConflict: OnConflict = 'ignore';
  /** Columns that identify an existing row; required with `onConflict: 'update'`. */
  static conflictColumns: readonly string[] | undefined = undefined;
  /** The model (`mtool/schema` table) the rows belong to. */
  static model: unknown = undefined;
  static rows: readonly SeedRow[] | undefined = undefined;
  static forward: SeedFunction | undefined = undefined;
  /** Without it the seed is irreversible. */
  static reverse: SeedFunction | undefined = undefined;
}

/** A seed as plain data, as the seeds plugin consumes it. */
export interface SeedDefinition {
  /** `C0001`; `undefined` for deprecated `seedData` seeds, which carry no immutable version. */
  version: string | undefined;
  database: string;
  description: string;
  onConflict: OnConflict;
  conflictColumns: readonly string[] | undefined;
  model: unknown;
  rows: readonly SeedRow[] | undefined;
  forward: SeedFunction | undefined;
  reverse: SeedFunction | undefined;
  /** Class name, or `seedData:<description>`: the seed's identifier in the tracking table. */
  identifier: string;
  deprecated: boolean;
}

function invalid(identifier: string, message: string): MtoolError {
  return new MtoolError('MTOOL_CONFIG', `seed ${identifier}: ${message}`);
}

function validate(def: SeedDefinition): SeedDefinition {
  const { identifier } = def;
  if (def.version !== undefined && !/^C\d{4}$/.test(def.version)) {
    throw invalid(identifier, `version '${def.version}' must be 'C' plus four digits, for example C0001`);
  }
  if (!def.deprecated && def.version === undefined) throw invalid(identifier, `set static version = 'C0001' (the next free C number)`);
  if (!ON_CONFLICT.includes(def.onConflict)) {
    throw invalid(identifier, `onConflict '${String(def.onConflict)}' must be one of ${ON_CONFLICT.join(', ')}`);
  }
  if (def.onConflict === 'update' && !def.conflictColumns?.length) {
    throw invalid(identifier, `onConflict 'update' needs conflictColumns (the columns that identify an existing row)`);
  }
  const rowBased = def.rows !== undefined;
  if (rowBased && def.model === undefined) throw invalid(identifier, 'rows need a model to insert into');
  if (!rowBased && typeof def.forward !== 'function') throw invalid(identifier, 'define rows (with model) or a static forward(connection, session)');
  if (def.rows?.some((row) => row === null || typeof row !== 'object' || Array.isArray(row))) {
    throw invalid(identifier, 'every row must be an object of column values');
  }
  return def;
}

/**
 * Read and validate a {@link Seed} subclass.
 * @throws MtoolError `MTOOL_CONFIG` naming the class: bad version, unknown onConflict,
 *   `update` without conflictColumns, neither rows nor forward.
 */
export function describeSeed(seed: typeof Seed): SeedDefinition {
  if (!(seed.prototype instanceof Seed)) throw new MtoolError('MTOOL_CONFIG', `${String(seed?.name)} does not extend Seed from mtool/seed`);
  return validate({
    version: seed.version,
    database: seed.database,
    description: seed.description,
    onConflict: seed.onConflict,
    conflictColumns: seed.conflictColumns,
    model: seed.model,
    rows: seed.rows,
    forward: seed.forward,
    reverse: seed.reverse,
    identifier: seed.name,
    deprecated: false,
  });
}

export interface SeedDataOptions {
  database?: string;
  description?: string;
  onConflict?: OnConflict;
  conflictColumns?: readonly string[];
  model: unknown;
  rows: readonly SeedRow[];
}

let seedDataWarned = false;

/**
 * The older form of a code seed, kept for compatibility. It has no immutable `C` version, so a
 * changed or reordered seed cannot be told apart from a new one: prefer `class X extends Seed`.
 * Warns once per process.
 * @deprecated use `class X extends Seed` with `static version = 'C0001'`.
 */
export function seedData(options: SeedDataOptions): SeedDefinition {
  if (!seedDataWarned) {
    seedDataWarned = true;
    logger.warn("seedData({...}) is deprecated and carries no immutable version: declare `class X extends Seed` with `static version = 'C0001'` instead");
  }
  const description = options.description ?? '';
  return validate({
    version: undefined,
    database: options.database ?? 'default',
    description,
    onConflict: options.onConflict ?? 'ignore',
    conflictColumns: options.conflictColumns,
    model: options.model,
    rows: options.rows,
    forward: undefined,
    reverse: undefined,
    identifier: `seedData:${description || 'unnamed'}`,
    deprecated: true,
  });
}
