// The environment a bench runs the commands it measures in: its own, less what changes how Node
// itself starts rather than what a tool does. NODE_OPTIONS could load code or set flags for one
// tool and not another; NODE_EXTRA_CA_CERTS makes every Node process read and parse the named
// certificate file before any of its own code runs (this project's machines set it to the whole
// system bundle: `node -e 0` takes ~70 ms with it against ~25 ms without). Both are start-up costs
// of the machine, not of a tool; `--keep-env` keeps NODE_EXTRA_CA_CERTS, to see the numbers as
// this machine's shell would give them.

/** Variables a measured Node process starts without, unless kept. */
export const START_UP_VARIABLES = ['NODE_EXTRA_CA_CERTS'];

/**
 * @param {boolean} keep keep {@link START_UP_VARIABLES} (`--keep-env`)
 * @returns {Record<string, string | undefined>} the environment for a measured command
 */
export function measuredEnv(keep) {
  const env = { ...process.env, NODE_OPTIONS: '' };
  if (!keep) for (const name of START_UP_VARIABLES) delete env[name];
  return env;
}

/**
 * One footer line saying which start-up variables the measured commands ran without.
 * @param {boolean} keep
 */
export function envNote(keep) {
  const set = START_UP_VARIABLES.filter((name) => process.env[name] !== undefined);
  if (set.length === 0) return 'environment: no Node start-up variables set';
  return keep ? `environment: kept ${set.join(', ')} (--keep-env)` : `environment: measured commands ran without ${set.join(', ')} (--keep-env keeps it)`;
}
