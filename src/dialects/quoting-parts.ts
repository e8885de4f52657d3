import { MtoolError } from '../errors.js';

/**
 * `Quoting.qualified` for every dialect: the non-empty parts, each quoted by the dialect's
 * `ident`, joined with dots (`"app"."users"`, `` `db`.`t` ``).
 */
export function qualifiedName(ident: (name: string) => string, parts: readonly (string | undefined)[]): string {
  return parts.filter((p): p is string => p !== undefined && p !== '').map(ident).join('.');
}

/** A Date as ISO-8601 UTC text (`2026-11-21T08:30:00.123Z`); an invalid Date has no literal in any dialect. */
export function isoUtc(value: Date): string {
  if (Number.isNaN(value.getTime())) throw new MtoolError('MTOOL_USAGE', 'cannot write an invalid Date as a SQL literal');
  return value.toISOString();
}
