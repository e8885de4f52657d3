import { readFileSync } from 'node:fs';

/**
 * mtool's version, read from the package manifest next to `src/` or `dist/` so it is stated in one
 * place. Read once, synchronously: it is a few hundred bytes and `--version` must stay fast.
 */
export const VERSION: string = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

/** What `mtool --version` prints: `mtool X.Y.Z`, or a JSON document under `--json`. */
export function versionText(json: boolean): string {
  return json ? `${JSON.stringify({ name: 'mtool', version: VERSION, node: process.versions.node }, null, 2)}\n` : `mtool ${VERSION}\n`;
}
