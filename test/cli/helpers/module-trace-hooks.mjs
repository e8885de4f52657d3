// Loader hooks (run on the loader thread): append every resolved module URL to the file named by
// MTOOL_MODULE_TRACE, so a test can see what a command imported.
import { appendFileSync } from 'node:fs';

export async function resolve(specifier, context, nextResolve) {
  const result = await nextResolve(specifier, context);
  if (process.env.MTOOL_MODULE_TRACE) appendFileSync(process.env.MTOOL_MODULE_TRACE, `${result.url}\n`);
  return result;
}
