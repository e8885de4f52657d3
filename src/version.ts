import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

interface Manifest {
  name?: string;
  version?: string;
  exports?: Record<string, unknown>;
}

/** The manifest found, its name checked. */
type MtoolManifest = Manifest & { name: 'mtool' };

let found: { root: string; manifest: MtoolManifest } | undefined;

/**
 * mtool's package folder and manifest, found by walking up from this module to the first
 * `package.json` named `mtool`. A fixed `../` would break: this code runs from `src/` (tests),
 * from tsc's `dist/` and from the CLI bundle in `dist/cli/`, at different depths.
 * @throws Error when no such manifest lies above this module (a broken installation).
 */
export function mtoolPackage(): { root: string; manifest: MtoolManifest } {
  if (found) return found;
  const start = dirname(fileURLToPath(import.meta.url));
  for (let dir = start; ; dir = dirname(dir)) {
    let text: string | undefined;
    try {
      text = readFileSync(join(dir, 'package.json'), 'utf8');
    } catch {
      // No manifest at this level: keep walking up.
    }
    if (text !== undefined) {
      const manifest = JSON.parse(text) as Manifest;
      if (manifest.name === 'mtool') return (found = { root: dir, manifest: manifest as MtoolManifest });
    }
    if (dirname(dir) === dir) throw new Error(`mtool: no package.json named mtool above ${start}; reinstall mtool`);
  }
}

/**
 * mtool's version, read from its package manifest so it is stated in one place. Read once,
 * synchronously: it is a few hundred bytes and `--version` must stay fast.
 */
export const VERSION: string = String(mtoolPackage().manifest.version);

/** What `mtool --version` prints: `mtool X.Y.Z`, or a JSON document under `--json`. */
export function versionText(json: boolean): string {
  return json ? `${JSON.stringify({ name: 'mtool', version: VERSION, node: process.versions.node }, null, 2)}\n` : `mtool ${VERSION}\n`;
}
