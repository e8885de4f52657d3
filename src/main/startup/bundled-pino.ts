/**
 * pino's copy inside the CLI bundle (scripts/bundle-cli.mjs), for the logger to use instead of
 * resolving pino and its ~40 files from node_modules (src/main/log.ts `usePino`).
 *
 * esbuild bundles the package named in a `require('pino')` call and replaces the call with the
 * function that initialises its bundled copy on first use, so pino still loads only when the
 * first record is written. Outside the bundle (tsc's ES modules in dist/, the tests' source)
 * there is no `require`, and the loader is undefined: the logger then requires pino from
 * node_modules itself.
 */
export const bundledPino: (() => typeof import('pino')) | undefined =
  typeof require === 'function' ? () => require('pino') as typeof import('pino') : undefined;
