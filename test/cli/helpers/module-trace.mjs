// `node --import ./module-trace.mjs ...`: registers the tracing resolve hook, and records
// CommonJS loads too (pino, drivers) by wrapping Module._load, which ESM hooks do not see, and the
// vendor files of the CLI bundle (dist/cli/vendor-<name>-<hash>.cjs: pg, mysql2, pino) and its
// script chunks (dist/cli/*.js but the entries), which src/main/startup/vendor.ts and
// src/main/startup/script-chunks.ts read and compile themselves.
import fs, { appendFileSync } from 'node:fs';
import { register, createRequire, syncBuiltinESMExports } from 'node:module';

register('./module-trace-hooks.mjs', import.meta.url);
const Module = createRequire(import.meta.url)('node:module');
const original = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  const filename = original.call(this, request, ...rest);
  if (process.env.MTOOL_MODULE_TRACE) appendFileSync(process.env.MTOOL_MODULE_TRACE, `${filename}\n`);
  return filename;
};
const readFileSync = fs.readFileSync;
fs.readFileSync = function (path, ...rest) {
  if (process.env.MTOOL_MODULE_TRACE && /[\\/]vendor-[^\\/]+\.cjs$|[\\/]dist[\\/]cli[\\/][^\\/]+\.js$/.test(String(path))) appendFileSync(process.env.MTOOL_MODULE_TRACE, `${path}\n`);
  return readFileSync.call(this, path, ...rest);
};
syncBuiltinESMExports();
