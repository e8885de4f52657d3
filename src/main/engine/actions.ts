import { disposeDialects } from '../../dialects/index.js';
import { MtoolError } from '../../errors.js';
import type { CommandContext, CommandInput, CommandResult, OptionValues } from '../commands/command.js';
import type { DatabaseEntry, LoadedConfig } from '../config/types.js';
import * as engine from './engine.js';
import { parseVersionOption } from './planner.js';
import * as render from './render.js';
import { exitCodeOf, failureToRaise, runOnDatabases, type DatabaseRun } from './run-many.js';
import { snapshotHooks } from './snapshot-hook.js';

/**
 * The command implementations behind `migrate`, `rollback`, `downgrade`, `status`, `history`,
 * `lock-status` and `unlock`: parse options, call the engine, return a result object. Loaded
 * lazily by the command descriptors in src/main/commands.
 */

const str = (options: OptionValues, name: string): string | undefined => {
  const value = options[name];
  return typeof value === 'string' ? value : undefined;
};
const flag = (options: OptionValues, name: string): boolean => options[name] === true;

function positiveInt(value: string | undefined, flagName: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value.trim()) || Number(value) < 1) {
    throw new MtoolError('MTOOL_USAGE', `${flagName} expects a positive whole number, got '${value}'`);
  }
  return Number(value);
}

function versionOf(options: OptionValues, name: string, flagName: string): string | undefined {
  const value = str(options, name);
  return value === undefined ? undefined : parseVersionOption(value, flagName);
}

/** The flags as the lock row's `command` column shows them: `migrate --to-version 0003`. */
function commandLine(name: string, options: OptionValues): string {
  const parts = [name];
  for (const [key, value] of Object.entries(options)) {
    if (value === undefined || value === false) continue;
    parts.push(value === true ? `--${key}` : `--${key} ${Array.isArray(value) ? value.join(',') : value}`);
  }
  return parts.join(' ');
}

async function targets(ctx: CommandContext, options: OptionValues, allowAll: boolean): Promise<{ config: LoadedConfig; entries: DatabaseEntry[]; all: boolean }> {
  const config = await ctx.loadConfig();
  const all = allowAll && flag(options, 'all');
  if (all && str(options, 'database') !== undefined) {
    throw new MtoolError('MTOOL_USAGE', '--all and --database cannot be combined: use one of them');
  }
  const { selectDatabases } = await import('../config/load-config.js');
  return { config, entries: selectDatabases(config, { database: str(options, 'database'), all }), all };
}

/**
 * A command's result over its databases: the JSON document, the text, the exit code, and on one
 * database (no `--all`) the error it failed with, written after the output.
 */
function runsResult<T>(runs: DatabaseRun<T>[], all: boolean, json: (runs: DatabaseRun<T>[]) => unknown, text: (runs: DatabaseRun<T>[], all: boolean) => string): CommandResult {
  const error = failureToRaise(runs, all);
  const failed = runs.find((r) => r.status === 'failed' && r.error === error);
  return { data: json(runs), text: () => text(runs, all), exitCode: exitCodeOf(runs), error, ...(failed ? failedOn(failed.entry) : {}) };
}

/** The database a failed command ran on, for the error's log record. */
function failedOn(entry: DatabaseEntry): Pick<CommandResult, 'errorDatabase'> {
  return { errorDatabase: { name: entry.name, type: entry.type } };
}

/** A command on one database that failed before it had anything to show: no output, then the error. */
function failedResult(run: DatabaseRun<unknown> & { status: 'failed' }): CommandResult {
  return { data: undefined, text: () => '', error: run.error, ...failedOn(run.entry) };
}

async function runEach<T>(ctx: CommandContext, entries: DatabaseEntry[], all: boolean, fn: (entry: DatabaseEntry) => Promise<T>): Promise<DatabaseRun<T>[]> {
  try {
    return await runOnDatabases(entries, { all, disableSkip: ctx.globals.disableSkip, log: ctx.log, signal: ctx.run.signal }, fn);
  } finally {
    await disposeDialects();
  }
}

/** `mtool migrate`. */
export async function migrateAction(ctx: CommandContext, input: CommandInput): Promise<CommandResult> {
  const o = input.options;
  const count = positiveInt(str(o, 'count'), '--count');
  const toVersion = versionOf(o, 'to-version', '--to-version');
  const baseline = flag(o, 'baseline');
  if (baseline && toVersion === undefined) {
    throw new MtoolError('MTOOL_USAGE', '--baseline needs --to-version <NNNN>: it records every pending migration up to that version as applied without running it');
  }
  const { config, entries, all } = await targets(ctx, o, true);
  const options: engine.MigrateOptions = {
    count,
    toVersion,
    baseline,
    dryRun: flag(o, 'dry-run'),
    deferSnapshots: flag(o, 'defer-snapshots'),
    verbose: flag(o, 'verbose'),
    perf: flag(o, 'perf'),
    commandLine: commandLine('migrate', o),
  };
  const hooks = snapshotHooks({ root: config.root, databases: config.databases, log: ctx.log });
  const runs = await runEach(ctx, entries, all, (entry) => engine.migrate(entry, { root: config.root, log: ctx.log, run: ctx.run }, { ...options, hooks }));
  return runsResult(runs, all, render.runJson, render.runText);
}

/** `mtool rollback` (and `downgrade`, which requires its target to be applied). */
async function revertAction(ctx: CommandContext, input: CommandInput, command: 'rollback' | 'downgrade'): Promise<CommandResult> {
  const o = input.options;
  let count: number | undefined;
  let toVersion: string | undefined;
  if (command === 'downgrade') {
    toVersion = versionOf(o, 'to', '--to');
    if (toVersion === undefined) throw new MtoolError('MTOOL_USAGE', 'downgrade needs --to <NNNN>: the version to go back to (it stays applied)');
  } else {
    count = positiveInt(str(o, 'count'), '--count');
    toVersion = versionOf(o, 'to-version', '--to-version');
    if (count !== undefined && toVersion !== undefined) {
      throw new MtoolError('MTOOL_USAGE', '--count and --to-version cannot be combined: roll back N migrations, or everything above a version');
    }
  }
  const { config, entries, all } = await targets(ctx, o, false);
  const runs = await runEach(ctx, entries, all, (entry) =>
    engine.rollback(entry, { root: config.root, log: ctx.log, run: ctx.run }, {
      count,
      toVersion,
      command,
      verbose: flag(o, 'verbose'),
      perf: flag(o, 'perf'),
      commandLine: commandLine(command, o),
    }),
  );
  return runsResult(runs, all, render.runJson, render.runText);
}

export const rollbackAction = (ctx: CommandContext, input: CommandInput) => revertAction(ctx, input, 'rollback');
export const downgradeAction = (ctx: CommandContext, input: CommandInput) => revertAction(ctx, input, 'downgrade');

/** `mtool status`. */
export async function statusAction(ctx: CommandContext, input: CommandInput): Promise<CommandResult> {
  const { config, entries, all } = await targets(ctx, input.options, true);
  const runs = await runEach(ctx, entries, all, (entry) => engine.status(entry, { root: config.root, log: ctx.log }));
  return runsResult(runs, all, render.statusJson, render.statusText);
}

/** `mtool history`. */
export async function historyAction(ctx: CommandContext, input: CommandInput): Promise<CommandResult> {
  const { config, entries, all } = await targets(ctx, input.options, true);
  const runs = await runEach(ctx, entries, all, (entry) => engine.history(entry, { root: config.root, log: ctx.log }));
  return runsResult(runs, all, render.historyJson, render.historyText);
}

/** `mtool lock-status`. */
export async function lockStatusAction(ctx: CommandContext, input: CommandInput): Promise<CommandResult> {
  const { config, entries } = await targets(ctx, input.options, false);
  const [run] = await runEach(ctx, entries, false, (entry) => engine.lockStatus(entry, { root: config.root, log: ctx.log }));
  if (run.status === 'failed') return failedResult(run);
  if (run.status !== 'ok') throw new MtoolError('MTOOL_INTERNAL', 'lock-status was skipped');
  return { data: render.lockStatusJson(run.value), text: () => render.lockStatusText(run.value) };
}

/** `mtool unlock`. */
export async function unlockAction(ctx: CommandContext, input: CommandInput): Promise<CommandResult> {
  const { config, entries } = await targets(ctx, input.options, false);
  const [run] = await runEach(ctx, entries, false, (entry) => engine.unlock(entry, { root: config.root, log: ctx.log }));
  if (run.status === 'failed') return failedResult(run);
  if (run.status !== 'ok') throw new MtoolError('MTOOL_INTERNAL', 'unlock was skipped');
  return { data: render.unlockJson(run.value), text: () => render.unlockText(run.value) };
}
