import { loadVendor } from './vendor.js';

/**
 * The name of pino's bundle in dist/cli (`vendor-pino-<hash>.cjs`), which scripts/bundle-cli.mjs
 * writes into the CLI bundle in place of this identifier. Outside the bundle (tsc's output in
 * dist/, the tests' source) it is not defined.
 */
declare const MTOOL_VENDOR_PINO: string | undefined;

/**
 * pino's copy beside the CLI bundle, run with V8's code cache (src/main/startup/vendor.ts), for
 * the logger to use instead of resolving pino and its ~40 files from node_modules
 * (src/main/log.ts `usePino`); loaded when the first record is written. Undefined outside the
 * bundle: the logger then requires pino from node_modules itself.
 */
export const bundledPino: (() => typeof import('pino')) | undefined =
  typeof MTOOL_VENDOR_PINO === 'string' ? () => loadVendor(MTOOL_VENDOR_PINO) as typeof import('pino') : undefined;
