import { MtoolError } from '../../../errors.js';
import type { CommandContext, CommandInput, CommandResult } from '../command.js';

/**
 * Core's `seed`: the engine lives in the mtool-seeds plugin. Until the plugin is installed and
 * registers its own `seed ...` commands, every subcommand lands here (spec: Seed plugin missing).
 */
export async function seed(_ctx: CommandContext, input: CommandInput): Promise<CommandResult> {
  const words = (input.args.subcommand as string[] | undefined) ?? [];
  throw Object.assign(
    new MtoolError(
      'MTOOL_PLUGIN_MISSING',
      'seed commands need the mtool-seeds plugin: run `npm install mtool-seeds` in the project, then try again',
    ),
    { hint: `'${['mtool seed', ...words].join(' ')}' is provided by the official mtool-seeds plugin (create, apply, list, rollback, export)` },
  );
}
