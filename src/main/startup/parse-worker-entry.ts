import { importChunk } from './script-chunks.js';

/**
 * The worker-pool entry of the CLI bundle (`dist/cli/parse-worker.js`, found by
 * src/workers/parse-pool.ts beside its chunk): runs the worker (src/workers/parse-worker.ts, the
 * bundle's script chunk `parse-worker-main.js`) with V8's code cache, like the command line.
 * Only the bundle uses this module: tsc's output has the worker itself at dist/workers/.
 */
const worker = await importChunk<typeof import('../../workers/parse-worker.js')>(new URL('./parse-worker-main.js', import.meta.url));

export default worker.default;
