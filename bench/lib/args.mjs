// Command-line options of a bench: node's parseArgs, with `--help` printing the bench's usage
// (exit 0) and an unknown or malformed option printing it after the error (exit 2), never a stack trace.
import { parseArgs } from 'node:util';

/**
 * @param {string} name the bench's name, to prefix errors (`migrate-peers: ...`)
 * @param {string} usage what `--help` prints
 * @param {Record<string, import('node:util').ParseArgsOptionConfig>} options
 * @returns {Record<string, string | boolean>} the option values
 */
export function benchOptions(name, usage, options) {
  let values;
  try {
    ({ values } = parseArgs({ options: { ...options, help: { type: 'boolean', short: 'h', default: false } } }));
  } catch (error) {
    process.stderr.write(`${name}: ${error.message}\n${usage}\n`);
    process.exit(2);
  }
  if (values.help) {
    process.stdout.write(`${usage}\n`);
    process.exit(0);
  }
  return values;
}
