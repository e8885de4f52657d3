import { formatTable } from '../../output.js';
import type { CommandContext, CommandResult } from '../command.js';
import { listView } from './database-view.js';
import { announceWarnings } from '../../config/load-config.js';

/** `mtool database list`: every registered database, default first as configured. */
export async function databaseList(ctx: CommandContext): Promise<CommandResult> {
  const config = await ctx.loadConfig();
  announceWarnings(config);
  const databases = config.databases.map((entry) => listView(entry, config));
  return {
    data: { databases },
    text: () =>
      formatTable(
        databases.map((d) => ({ ...d, default: d.default ? 'yes' : '' })),
        ['database_name', 'database_type', 'default', 'database_url'],
        ['NAME', 'TYPE', 'DEFAULT', 'URL'],
      ),
  };
}
