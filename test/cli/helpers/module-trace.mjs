// `node --import ./module-trace.mjs ...`: registers the tracing resolve hook, and records
// CommonJS loads too (pino, drivers) by wrapping Module._load, which ESM hooks do not see.
import { register, createRequire } from 'node:module';
import { appendFileSync } from 'node:fs';

register('./module-trace-hooks.mjs', import.meta.url);
const Module = createRequire(import.meta.url)('node:module');
const original = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  const filename = original.call(this, request, ...rest);
  if (process.env.MTOOL_MODULE_TRACE) appendFileSync(process.env.MTOOL_MODULE_TRACE, `${filename}\n`);
  return filename;
};
