import { relative, sep } from 'node:path';
import { selectDatabases } from '../../config/load-config.js';
import { createMigrationScaffold, parseMigrationType } from '../../migrations/scaffold.js';
import type { CommandContext, CommandInput, CommandResult } from '../command.js';

/** `mtool new <description> [--database] [--version NNNN] [--type]`. */
export async function newMigration(ctx: CommandContext, input: CommandInput): Promise<CommandResult> {
  const config = await ctx.loadConfig();
  const [entry] = selectDatabases(config, { database: input.options.database as string | undefined, all: false });
  const created = await createMigrationScaffold({
    dir: entry.migrationsDir,
    database: entry.name,
    description: String(input.args.description),
    kind: parseMigrationType(input.options.type as string | undefined),
    version: input.options.version as string | undefined,
  });
  const path = relative(config.root, created.path).split(sep).join('/');
  ctx.log.child({ db_name: entry.name, db_type: entry.type }).debug(`created migration ${path}`);
  const data = { database_name: entry.name, filename: created.filename, path, kind: created.kind, version: created.version ?? null };
  return { data, text: () => `created ${path}` };
}
