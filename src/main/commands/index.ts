import type { CommandDescriptor } from './command.js';
import { configCommand } from './config.js';
import { databaseListCommand } from './database-list.js';
import { initCommand } from './init.js';
import { newCommand } from './new.js';
import { seedCommand } from './seed.js';
import { settingsShowCommand } from './settings-show.js';
import { versionCommand } from './version.js';

/** Every core command, in the order `mtool --help` lists them. Add one line per new command. */
export const COMMANDS: readonly CommandDescriptor[] = [
  initCommand,
  newCommand,
  settingsShowCommand,
  databaseListCommand,
  configCommand,
  versionCommand,
  seedCommand,
];
