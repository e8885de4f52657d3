/**
 * The tables mtool keeps under fixed names (spec: not configurable), in a module of their own: the
 * configuration's check that `migrationTable`/`seedTable` take neither name runs at every
 * command's start, which must not load the engine's tracking or model-state code for two strings.
 */

/** The migration lock's table. */
export const LOCK_TABLE = 'mtool_lock';

/** Each database's model state, one row per database name (spec: "Model state is also stored in the database"). */
export const MODEL_STATE_TABLE = '_mtool_model_state';
