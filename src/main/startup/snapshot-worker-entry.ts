import { importChunk } from './script-chunks.js';

/**
 * The snapshot writer thread's entry in the CLI bundle (`dist/cli/snapshot-worker.js`, found by
 * src/main/snapshot/snapshot-thread.ts beside its chunk): runs the worker
 * (src/main/snapshot/snapshot-worker.ts, the bundle's script chunk `snapshot-worker-main.js`)
 * with V8's code cache, like the command line. Only the bundle uses this module: tsc's output
 * has the worker itself at dist/main/snapshot/.
 */
await importChunk(new URL('./snapshot-worker-main.js', import.meta.url));
