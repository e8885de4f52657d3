import { isAbsolute, relative, resolve, sep } from 'node:path';
import { performance } from 'node:perf_hooks';
import { MtoolError } from '../../errors.js';
import type { CommandContext, CommandInput, CommandResult } from '../commands/command.js';
import { formatMs } from '../engine/format-ms.js';
import { compileDatabaseModels } from '../models/discover-models.js';
import { onDatabase, targetDatabase } from '../models/live-schema.js';
import { modelStateEntry, putModelStateEntry } from './model-state-file.js';
import { MODEL_STATE_TABLE } from '../fixed-tables.js';
import { loadModelState, storeModelState } from './model-state-table.js';

/** Default `--output` of both commands (spec: Model state file). */
export const MODEL_STATE_FILE = '.mtool/model_state.json';

function outputPath(root: string, value: unknown): { path: string; shown: string } {
  const given = typeof value === 'string' && value.trim() !== '' ? value : MODEL_STATE_FILE;
  const path = isAbsolute(given) ? given : resolve(root, given);
  const rel = relative(root, path);
  return { path, shown: rel.startsWith('..') || isAbsolute(rel) ? path : rel.split(sep).join('/') };
}

/**
 * `mtool export-models`: compile the models of the selected database(s), write their state into
 * the model state file (canonical JSON, other databases' entries kept), then store the same entry
 * in the database's `_mtool_model_state` table so `recover-model-state` can restore the file.
 * The file is what offline use needs: a database that cannot be reached only logs a warning.
 */
export async function exportModelsAction(ctx: CommandContext, input: CommandInput): Promise<CommandResult> {
  const { config, entries } = await targetDatabase(ctx, input.options, true);
  const out = outputPath(config.root, input.options.output);
  const results: { database: string; database_type: string; tables: number; checksum: string; stored: boolean }[] = [];
  for (const entry of entries) {
    const compiled = await compileDatabaseModels(config, entry, { log: ctx.log, strict: ctx.globals.strictTranslation });
    const { entry: state, schemaText } = modelStateEntry(entry.type, compiled.schema);
    const started = performance.now();
    await putModelStateEntry(out.path, entry.name, state, schemaText);
    const dbLog = ctx.log.child({ db_name: entry.name, db_type: entry.type });
    dbLog.info(`model state written to ${out.shown} in ${formatMs(performance.now() - started)}`);
    let stored = false;
    try {
      const t = performance.now();
      // It writes there: a SQLite database file is created, as before.
      await onDatabase(config, entry, ctx, (session) => storeModelState(session, state), { missingFile: 'create' });
      stored = true;
      dbLog.info(`model state stored in table ${MODEL_STATE_TABLE} in ${formatMs(performance.now() - t)}`);
    } catch (error) {
      dbLog.warn(`model state not stored in database '${entry.name}' (${(error as Error).message}); ${out.shown} is written, but recover-model-state cannot restore it until export-models reaches the database`, { error });
    }
    results.push({ database: entry.name, database_type: entry.type, tables: Object.keys(compiled.schema.tables).length, checksum: state.checksum, stored });
  }
  return {
    data: { output: out.shown, databases: results },
    text: () =>
      results
        .map((r) => `Model state of '${r.database}' (${r.tables} table${r.tables === 1 ? '' : 's'}, checksum ${r.checksum.slice(0, 12)}) written to ${out.shown}${r.stored ? ` and stored in ${MODEL_STATE_TABLE}` : '; NOT stored in the database (see warning)'}`)
        .join('\n'),
  };
}

/**
 * `mtool recover-model-state`: restore the selected database's entry of the model state file
 * from its `_mtool_model_state` row (written by `export-models`). The file's other entries stay.
 * @throws MtoolError MTOOL_NOT_FOUND when nothing was stored for the database.
 */
export async function recoverModelStateAction(ctx: CommandContext, input: CommandInput): Promise<CommandResult> {
  const { config, entries } = await targetDatabase(ctx, input.options, true);
  const out = outputPath(config.root, input.options.output);
  const results: { database: string; checksum: string; updated_at: string }[] = [];
  for (const entry of entries) {
    // A missing SQLite file holds no model state (said below), and is not created for asking.
    const stored = await onDatabase(config, entry, ctx, loadModelState, { missingFile: 'empty' });
    if (!stored) {
      throw new MtoolError('MTOOL_NOT_FOUND', `no model state is stored in database '${entry.name}' (table ${MODEL_STATE_TABLE}); run \`mtool export-models --database ${entry.name}\` first`, { database: entry.name });
    }
    await putModelStateEntry(out.path, entry.name, stored.entry, stored.schemaText);
    results.push({ database: entry.name, checksum: stored.checksum, updated_at: stored.updatedAt });
  }
  return {
    data: { output: out.shown, databases: results },
    text: () => results.map((r) => `Model state of '${r.database}' (checksum ${r.checksum.slice(0, 12)}, exported ${r.updated_at}) restored to ${out.shown}`).join('\n'),
  };
}
