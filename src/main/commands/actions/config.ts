import { relative, sep } from 'node:path';
import { formatRecord } from '../../output.js';
import type { CommandContext, CommandResult } from '../command.js';
import { fullView } from './database-view.js';
import { announceWarnings } from '../../config/load-config.js';

/** `mtool config`: where the configuration came from and every field of every database. */
export async function showConfig(ctx: CommandContext): Promise<CommandResult> {
  const config = await ctx.loadConfig();
  announceWarnings(config);
  const files = config.source.files.map((f) => relative(config.root, f).split(sep).join('/'));
  const data = {
    root: config.root,
    source: { kind: config.source.kind, files },
    dev: config.dev,
    databases: config.databases.map((entry) => fullView(entry, config)),
  };
  return {
    data,
    text: () =>
      [
        formatRecord({ root: data.root, source: `${data.source.kind} (${files.join(', ') || 'no file'})`, dev: data.dev }),
        ...data.databases.map((db) => `\n[${String(db.database_name)}]\n${formatRecord(db)}`),
      ].join('\n'),
  };
}
