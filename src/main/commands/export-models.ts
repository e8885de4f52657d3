import { ALL_OPTION, DATABASE_OPTION, type CommandDescriptor } from './command.js';

export const exportModelsCommand: CommandDescriptor = {
  name: 'export-models',
  description:
    "Compile the database's models (modelPaths, modelTables) and write their state to the model state file (canonical JSON, meant to be committed); also store it in the database (table _mtool_model_state) for recover-model-state.",
  options: [
    { name: 'output', short: 'o', type: 'string', value: '<file>', description: 'model state file (default .mtool/model_state.json)' },
    DATABASE_OPTION,
    ALL_OPTION,
  ],
  examples: ['mtool export-models', 'mtool export-models --all', 'mtool export-models --database app --output state.json'],
  run: async (ctx, input) => (await import('../model-state/model-state-actions.js')).exportModelsAction(ctx, input),
};
