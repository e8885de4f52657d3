// Pieces every bench shares: the built code it measures, and a seeded generator so each run
// builds the same input.
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Import modules of the built code (paths relative to the repository, e.g. 'dist/parser/x.js'),
 * merged into one namespace. Benches measure what `npm run build` made (`npm run bench` builds
 * first); a missing file is an error saying so, never a silent rebuild.
 */
export async function importBuilt(...paths) {
  const merged = {};
  for (const path of paths) {
    const file = `${root}${path}`;
    if (!existsSync(file)) throw new Error(`${path} is missing: run \`npm run build\` first`);
    Object.assign(merged, await import(pathToFileURL(file).href));
  }
  return merged;
}

/** mulberry32: a small seeded generator of numbers in [0, 1). */
export function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
