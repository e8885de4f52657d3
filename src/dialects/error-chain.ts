/** Walk an error and its `cause` chain, yielding each object (driver errors sit under MtoolError.cause). */
export function* errorChain(error: unknown): Generator<Record<string, unknown>> {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && typeof current === 'object' && current !== null; depth++) {
    yield current as Record<string, unknown>;
    current = (current as { cause?: unknown }).cause;
  }
}

/** True when any error in the chain has one of the given values in `code`, `errno`, `sqlState` or `serverCode`. */
export function chainHasCode(error: unknown, codes: readonly (string | number)[]): boolean {
  for (const e of errorChain(error)) {
    for (const key of ['code', 'errno', 'sqlState', 'sqlstate', 'serverCode']) {
      const value = e[key];
      if ((typeof value === 'string' || typeof value === 'number') && codes.includes(value)) return true;
    }
  }
  return false;
}
