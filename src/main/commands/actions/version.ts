import { VERSION } from '../../../version.js';
import type { CommandResult } from '../command.js';

/** `mtool version`. */
export async function showVersion(): Promise<CommandResult> {
  const data = { name: 'mtool', version: VERSION, node: process.versions.node };
  return { data, text: () => `mtool ${VERSION} (node ${data.node})` };
}
