import { ALL_OPTION, DATABASE_OPTION, type CommandDescriptor } from './command.js';

export const recoverModelStateCommand: CommandDescriptor = {
  name: 'recover-model-state',
  description:
    "Restore the database's entry of the model state file from the copy export-models stored in the database (table _mtool_model_state), when the file is lost or stale. Other databases' entries are kept.",
  options: [
    { name: 'output', short: 'o', type: 'string', value: '<file>', description: 'model state file (default .mtool/model_state.json)' },
    DATABASE_OPTION,
    ALL_OPTION,
  ],
  examples: ['mtool recover-model-state', 'mtool recover-model-state --database app'],
  run: async (ctx, input) => (await import('../model-state/model-state-actions.js')).recoverModelStateAction(ctx, input),
};
