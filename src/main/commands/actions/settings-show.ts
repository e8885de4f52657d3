import { selectDatabases } from '../../config/load-config.js';
import { formatRecord } from '../../output.js';
import type { CommandContext, CommandInput, CommandResult } from '../command.js';
import { settingsView } from './database-view.js';

/** `mtool settings show [name] [--all]`: the spec's settings fields per database. */
export async function settingsShow(ctx: CommandContext, input: CommandInput): Promise<CommandResult> {
  const config = await ctx.loadConfig();
  const name = input.args.name as string | undefined;
  const entries = selectDatabases(config, { database: name, all: input.options.all === true, named: 'a database name' });
  const databases = entries.map((entry) => settingsView(entry, config));
  return {
    data: { databases },
    text: () => databases.map((db) => `[${String(db.database_name)}]\n${formatRecord(db)}`).join('\n\n'),
  };
}
