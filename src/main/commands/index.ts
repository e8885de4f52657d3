import type { CommandDescriptor } from './command.js';
import {
  configCommand,
  databaseListCommand,
  initCommand,
  newCommand,
  seedCommand,
  settingsShowCommand,
  versionCommand,
} from './project-commands.js';
import { migrateCommand } from './migrate.js';
import { rollbackCommand } from './rollback.js';
import { downgradeCommand } from './downgrade.js';
import { statusCommand } from './status.js';
import { historyCommand } from './history.js';
import { lockStatusCommand } from './lock-status.js';
import { unlockCommand } from './unlock.js';
import { checkDbCommand } from './check-db.js';
import { snapshotCommand } from './snapshot.js';
import { generateModelsCommand } from './generate-models.js';
import { exportModelsCommand } from './export-models.js';
import { recoverModelStateCommand } from './recover-model-state.js';

/** Every core command, in the order `mtool --help` lists them. Add one line per new command. */
export const COMMANDS: readonly CommandDescriptor[] = [
  initCommand,
  newCommand,
  migrateCommand,
  rollbackCommand,
  downgradeCommand,
  statusCommand,
  historyCommand,
  lockStatusCommand,
  unlockCommand,
  checkDbCommand,
  snapshotCommand,
  generateModelsCommand,
  exportModelsCommand,
  recoverModelStateCommand,
  settingsShowCommand,
  databaseListCommand,
  configCommand,
  versionCommand,
  seedCommand,
];
