import type Sade from 'sade';
import { ERROR_CODES, isMtoolError, MtoolError, type ErrorCode } from '../errors.js';
import { VERSION, versionText } from '../version.js';
import { COMMANDS } from './commands/index.js';
import type { CommandContext, CommandDescriptor, CommandInput, CommandResult, GlobalOptions, OptionSpec, OptionValues } from './commands/command.js';
import type { LoadedConfig } from './config/types.js';
import { configureLogging, LOG_LEVELS, logAlways, logger, loggingSettings, parseLogLevel, registerSecrets, scrubLogText, usePino } from './log.js';
import { renderResult } from './output.js';
import { RunContext, SIGNAL_EXIT_CODES } from './run-context.js';
import { bundledPino } from './startup/bundled-pino.js';

export { RunContext, SIGNAL_EXIT_CODES };

// Run from the CLI bundle, log through the pino bundled with it (loaded on the first record).
if (bundledPino) usePino(bundledPino);

/**
 * The command line: `mtool [GLOBAL_OPTIONS] COMMAND [ARGS] [OPTIONS]`.
 *
 * sade parses it: one sade program built from the command descriptors (global options with
 * `prog.option`, each command with `command/describe/option/example/action`), run with
 * `parse(argv, { lazy: true, unknown, boolean, string })` so that the action (which turns sade's
 * values into a `CommandInput`) runs here and an unknown flag throws a usage error (exit 2)
 * instead of sade printing and calling `process.exit(1)`. Before sade sees argv, `locateCommand`
 * checks the command name against the descriptors and `arrangeOptions` puts the tokens in a form
 * sade cannot misread (see there why). Help is rendered here from the same descriptors: sade's
 * `help()` writes with console.log, past the streams of `CliIo`, and its usage lines would show
 * every argument as optional (they are declared so to sade, see `sadeUsage`).
 */

/** Where the CLI writes; `bin.ts` passes the process streams, tests their own buffers. */
export interface CliIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Created by the caller so it can run cleanups on signals. */
  run?: RunContext;
}

export const GLOBAL_OPTIONS: readonly OptionSpec[] = [
  { name: 'dev', type: 'boolean', description: 'use devDatabaseUrl and devDatabaseType of the selected database' },
  { name: 'strict-translation', type: 'boolean', description: 'fail on unsupported or lossy dev-mode sqlite translation' },
  { name: 'debug', type: 'boolean', description: 'DEBUG-level logging and stack traces on errors' },
  { name: 'debug-level', type: 'string', value: '<level>', description: 'trace, debug, info, warning, error, critical or 5/10/20/30/40/50; wins over --debug' },
  { name: 'json', short: 'j', type: 'boolean', description: 'JSON output for display commands and JSON log lines' },
  { name: 'disable-skip', type: 'boolean', description: 'make databases marked skipIfMissing fail normally' },
  { name: 'help', short: 'h', type: 'boolean', description: 'show help (for a command: mtool <command> --help)' },
  { name: 'version', type: 'boolean', description: 'show the mtool version' },
];

/** Hints printed under `error:` per code, where a next step is generic enough to state. */
const HINTS: Partial<Record<ErrorCode, string>> = {
  MTOOL_CONFIG: 'fix mtool.config.ts (or the module MTOOL_CONFIG_MODULE names) and run the command again; `mtool config` shows what loads',
  MTOOL_LOCKED: 'if no other migration is running, release the lock with `mtool unlock`',
  MTOOL_CHECKSUM_MISMATCH: 'restore the file to its applied state and add a new migration for changes; see `mtool history`',
  MTOOL_INTERNAL: 'this is a bug in mtool; please report it with the output of --debug',
};

function optionLabel(option: OptionSpec): string {
  const long = `--${option.name}${option.type === 'string' ? ` ${option.value ?? '<value>'}` : ''}`;
  return option.short ? `-${option.short}, ${long}` : long;
}

function columns(rows: [string, string][]): string {
  const width = Math.max(0, ...rows.map(([left]) => left.length)) + 2;
  return rows.map(([left, right]) => `  ${left.padEnd(width)}${right}`).join('\n');
}

function usageLine(command: CommandDescriptor): string {
  const args = (command.args ?? []).map((a) => {
    const name = a.variadic ? `${a.name}...` : a.name;
    return a.required ? `<${name}>` : `[${name}]`;
  });
  return ['mtool [global options]', command.name, ...args, command.options?.length ? '[options]' : ''].filter(Boolean).join(' ');
}

/** `mtool <command> --help`. */
export function commandHelp(command: CommandDescriptor): string {
  const own = new Set((command.options ?? []).map((o) => o.name));
  const parts = [`Usage: ${usageLine(command)}`, '', command.description];
  if (command.args?.length) parts.push('', 'Arguments:', columns(command.args.map((a) => [a.name, a.description])));
  if (command.options?.length) parts.push('', 'Options:', columns(command.options.map((o) => [optionLabel(o), o.description])));
  const globals = GLOBAL_OPTIONS.filter((o) => !own.has(o.name));
  parts.push('', 'Global options:', columns(globals.map((o) => [optionLabel(o), o.description])));
  parts.push('', 'Examples:', ...command.examples.map((e) => `  ${e}`));
  return `${parts.join('\n')}\n`;
}

const firstSentence = (text: string): string => text.split(/(?<=\.)\s/)[0]!;

/** The commands a first word starts (`settings` → `settings show`); none for a command's own name. */
function groupMembers(word: string): CommandDescriptor[] {
  return COMMANDS.filter((c) => c.name.startsWith(`${word} `));
}

/** `mtool <group> --help` for a word that only starts commands (`settings`, `database`). */
export function groupHelp(group: string): string {
  const members = groupMembers(group);
  return `${[
    `Usage: mtool [global options] ${group} <command> [arguments] [options]`,
    '',
    'Commands:',
    columns(members.map((c) => [c.name, firstSentence(c.description)])),
    '',
    `Run \`mtool ${members.length === 1 ? members[0]!.name : `${group} <command>`} --help\` for its arguments, options and examples.`,
  ].join('\n')}\n`;
}

/** `mtool --help`. */
export function generalHelp(): string {
  return `${[
    'mtool: SQL-first database schema migrations',
    '',
    'Usage: mtool [global options] <command> [arguments] [options]',
    '',
    'Commands:',
    columns(COMMANDS.map((c) => [c.name, firstSentence(c.description)])),
    '',
    'Global options (before or after the command):',
    columns(GLOBAL_OPTIONS.map((o) => [optionLabel(o), o.description])),
    '',
    'Run `mtool <command> --help` for its arguments, options and examples.',
  ].join('\n')}\n`;
}

function usageError(message: string, command?: CommandDescriptor): MtoolError {
  const where = command ? `usage: ${usageLine(command)}\nrun \`mtool ${command.name} --help\` for details` : 'run `mtool --help` for the list of commands';
  return Object.assign(new MtoolError('MTOOL_USAGE', message), { hint: where });
}

/** `given` names no command; `members`: the commands its first word starts, suggested. */
function unknownCommand(given: string, members: readonly CommandDescriptor[]): MtoolError {
  const suggestion = members.length > 0 ? `; did you mean: ${members.map((c) => c.name).join(', ')}` : '';
  return usageError(`unknown command '${given}'${suggestion}`);
}

function unknownOption(flag: string, command: CommandDescriptor | undefined): MtoolError {
  return usageError(`Unknown option '${flag}'`, command);
}

/**
 * Whether an option token before the command name is followed by its value. The command is not
 * known yet, so this asks every option any command or the global list declares (globals first).
 */
function takesValue(token: string): boolean {
  const all = [...GLOBAL_OPTIONS, ...COMMANDS.flatMap((c) => c.options ?? [])];
  if (token.startsWith('--')) return all.find((o) => o.name === token.slice(2))?.type === 'string';
  // A short group: a string option takes the rest of the group, or the next token when it is last.
  for (let j = 1; j < token.length; j++) {
    if (all.find((o) => o.short === token[j])?.type === 'string') return j === token.length - 1;
  }
  return false;
}

interface Located {
  command: CommandDescriptor | undefined;
  /** The first word when it only starts commands (`settings` of `settings show`) and no command followed it. */
  group?: string;
  /** argv without the command-name words. */
  rest: string[];
}

/**
 * Find the command name (one or two words) among the leading positional tokens, and check it
 * against the descriptors here: sade's own "Invalid command" path prints and exits 1.
 */
function locateCommand(argv: readonly string[]): Located {
  const positions: number[] = [];
  for (let i = 0; i < argv.length && positions.length < 2; i++) {
    const token = argv[i];
    if (token === '--') break;
    if (token.startsWith('-') && token !== '-') {
      if (!token.includes('=') && takesValue(token)) i++;
      continue;
    }
    positions.push(i);
  }
  if (positions.length === 0) return { command: undefined, rest: [...argv] };
  const words = positions.map((p) => argv[p]);
  const two = positions.length === 2 ? COMMANDS.find((c) => c.name === `${words[0]} ${words[1]}`) : undefined;
  const one = COMMANDS.find((c) => c.name === words[0]);
  const command = two ?? one;
  if (!command) {
    const members = groupMembers(words[0]!);
    // `mtool settings --help`: the group's commands (without --help it is refused in parseCommandLine).
    if (members.length > 0 && words[1] === undefined) return { command: undefined, group: words[0], rest: argv.filter((_t, i) => i !== positions[0]) };
    throw unknownCommand(members.length > 0 ? `${words[0]} ${words[1]}` : words[0]!, members);
  }
  const used = new Set(positions.slice(0, two ? 2 : 1));
  return { command, rest: argv.filter((_t, i) => !used.has(i)) };
}

/** The command's own options plus the global ones it does not redefine. */
function effectiveOptions(command: CommandDescriptor | undefined): OptionSpec[] {
  const own = command?.options ?? [];
  return [...own, ...GLOBAL_OPTIONS.filter((g) => !own.some((o) => o.name === g.name || (g.short && o.short === g.short)))];
}

/** mtool's own flags: answered before sade runs (sade's help and version print with console). */
function isMtoolFlag(spec: OptionSpec, command: CommandDescriptor | undefined): 'help' | 'version' | undefined {
  if (command?.options?.includes(spec)) return undefined;
  return spec.name === 'help' || spec.name === 'version' ? spec.name : undefined;
}

/**
 * Names sade's first parse (`mri(argv, { alias: { h: 'help', v: 'version' } })` in sade's
 * `parse`) takes for its own help and version wherever they appear, with no way to turn that off.
 * No token sade sees may carry them; a command's own option of that name (`new --version`) goes
 * to sade under the key below.
 */
const SADE_RESERVED = new Set(['h', 'v', 'help', 'version']);
const RESERVED_KEY_PREFIX = 'mtool-own-';

/**
 * Whether an unknown long option may go to sade for its strict check. Not: sade's reserved names,
 * the internal keys, and names of Object.prototype members (`--constructor`, `--no-toString`):
 * mri looks option names up in plain objects, and those names crash it with a TypeError.
 */
function safeForSade(name: string): boolean {
  const base = name.replace(/^no-/, '');
  return /^[A-Za-z0-9][\w-]*$/.test(name) && !SADE_RESERVED.has(base) && !base.startsWith(RESERVED_KEY_PREFIX) && !(base in Object.prototype);
}

/** The key an option has inside sade and mri. */
function sadeKey(name: string): string {
  return SADE_RESERVED.has(name) ? `${RESERVED_KEY_PREFIX}${name}` : name;
}

interface Arranged {
  /**
   * What sade parses after the command words: known options spelled `--key` (boolean) or
   * `--key=value` (string), unknown long options as given (sade's strict check reports them),
   * then `--` and the positional arguments.
   */
  tokens: string[];
  /** The known options' values as read here; sade's parse is authoritative when there is a command. */
  values: OptionValues;
  /** Positional arguments (from `--` on, everything). */
  positionals: string[];
  help: boolean;
  version: boolean;
}

/**
 * The pre-pass between argv and sade. Why it exists:
 * - global options may come before the command name (`mtool --json status`), but mri decides
 *   arity by the next token, not by type, and would read `status` as the value of `--json`;
 *   here they are moved behind the command words, with their values, knowing each option's arity;
 * - sade reads `-h`, `-v`, `--help` and `--version` anywhere as its own help/version (printed
 *   with console), while `-v` is `--verbose` for migrate and `new` has its own `--version`;
 *   short options are spelled out as long ones here and mtool's help/version are taken out;
 * - mri gives short groups no GNU meaning (`-c3` is two flags) and turns a word that follows a
 *   boolean flag into a number (`--json 0001` -> 1); spelling values with `=` and putting the
 *   positionals after `--` leaves mri nothing to guess.
 * Tokens it cannot hand to sade safely are rejected here with the same usage error sade's
 * `unknown` callback raises. For a pass-through command (`seed`) every option it does not know
 * is forwarded as a positional argument, unparsed, for the plugin.
 */
function arrangeOptions(rest: readonly string[], command: CommandDescriptor | undefined): Arranged {
  const specs = effectiveOptions(command);
  const options: string[] = [];
  const positionals: string[] = [];
  const values: OptionValues = {};
  let help = false;
  let version = false;

  const emit = (spec: OptionSpec, value?: string): void => {
    const flag = isMtoolFlag(spec, command);
    if (flag === 'help') help = true;
    else if (flag === 'version') version = true;
    else options.push(value === undefined ? `--${sadeKey(spec.name)}` : `--${sadeKey(spec.name)}=${value}`);
    values[spec.name] = value ?? true;
  };
  const valueOf = (spec: OptionSpec, given: string, inline: string | undefined, next: string | undefined): { value: string; used: boolean } => {
    if (inline !== undefined && inline !== '') return { value: inline, used: false };
    // A negative number is a value (for the option to judge), not an option: no option is a digit.
    if (inline === undefined && next !== undefined && (!next.startsWith('-') || /^-\d/.test(next))) return { value: next, used: true };
    const placeholder = spec.value ?? '<value>';
    throw usageError(`option '${given}' needs a value: ${given} ${placeholder} (a value starting with '-' goes as --${spec.name}=<value>)`, command);
  };

  for (let i = 0; i < rest.length; i++) {
    const token = rest[i];
    if (token === '--') {
      positionals.push(...rest.slice(i + 1));
      break;
    }
    if (!token.startsWith('-') || token === '-') {
      positionals.push(token);
      continue;
    }
    if (token.startsWith('--')) {
      const eq = token.indexOf('=');
      const name = token.slice(2, eq < 0 ? undefined : eq);
      const inline = eq < 0 ? undefined : token.slice(eq + 1);
      const spec = specs.find((o) => o.name === name);
      if (spec?.type === 'boolean') {
        if (inline !== undefined) throw usageError(`option '--${name}' takes no value`, command);
        emit(spec);
      } else if (spec) {
        const { value, used } = valueOf(spec, `--${name}`, inline, rest[i + 1]);
        if (used) i++;
        emit(spec, value);
      } else if (command?.passThrough) {
        positionals.push(token);
      } else if (command && safeForSade(name)) {
        options.push(token); // sade's strict parse reports it through `unknown`
      } else {
        throw unknownOption(`--${name}`, command);
      }
      continue;
    }
    // A group of short options: GNU style, so a string option takes the rest of the group
    // (`-c3`, `-d=app`) or else the next token.
    for (let j = 1; j < token.length; j++) {
      const letter = token[j];
      const spec = specs.find((o) => o.short === letter);
      if (!spec) {
        if (command?.passThrough) {
          positionals.push(`-${token.slice(j)}`);
          break;
        }
        if (!command || !/^[A-Za-z0-9]$/.test(letter) || SADE_RESERVED.has(letter)) throw unknownOption(`-${letter}`, command);
        options.push(`-${letter}`); // sade's strict parse reports it through `unknown`
        continue;
      }
      if (spec.type === 'boolean') {
        emit(spec);
        continue;
      }
      const attached = token.slice(j + 1).replace(/^=/, '');
      const { value, used } = valueOf(spec, `-${letter}`, attached === '' ? undefined : attached, rest[i + 1]);
      if (used) i++;
      emit(spec, value);
      break;
    }
  }
  return { tokens: positionals.length > 0 ? [...options, '--', ...positionals] : options, values, positionals, help, version };
}

/** sade's usage of a command: every argument optional, so sade's "Insufficient arguments!" exit cannot happen; counts are checked in `commandInput`. */
function sadeUsage(command: CommandDescriptor): string {
  return [command.name, ...(command.args ?? []).map((a) => `[${a.name}]`)].join(' ');
}

/** sade's flag string: `-d, --database`. No value placeholder: sade would take `<name>` for the long name. */
function sadeFlag(spec: OptionSpec): string {
  const long = `--${sadeKey(spec.name)}`;
  return spec.short && !SADE_RESERVED.has(spec.short) ? `-${spec.short}, ${long}` : long;
}

/** mri's result, the last argument sade passes to an action: option values by key, `_` the rest. */
interface ParsedFlags {
  _: (string | number)[];
  [key: string]: unknown;
}

/** What a command's sade action receives: its declared arguments in order, then mri's result. */
type SadeArgs = [...(string | undefined)[], ParsedFlags];

/**
 * The sade program of the given commands, built from the same descriptors as help (parsing needs
 * only the one `locateCommand` found: ~1.5 ms less than all of them). A new one per run: sade's
 * `parse` merges the command's aliases and defaults into the shared global ones, so a program is
 * used once.
 */
function buildProgram(sade: typeof Sade, commands: readonly CommandDescriptor[]): Sade.Sade {
  const prog = sade('mtool').version(VERSION);
  for (const spec of GLOBAL_OPTIONS) if (!isMtoolFlag(spec, undefined)) prog.option(sadeFlag(spec), spec.description);
  for (const command of commands) {
    prog.command(sadeUsage(command)).describe(command.description);
    for (const spec of command.options ?? []) prog.option(sadeFlag(spec), spec.description);
    for (const example of command.examples) prog.example(example.replace(/^mtool /, ''));
    prog.action((...args: SadeArgs) => commandInput(command, args));
  }
  return prog;
}

interface Parsed {
  values: OptionValues;
  /** Builds the command's input; checks choices and argument counts. */
  input(): CommandInput;
}

/**
 * Parse the arranged tokens with sade. Nothing in sade prints or exits for them: see
 * `arrangeOptions`. sade is imported here, not at the top: `mtool --version` and `mtool --help`
 * never reach a parser, and start-up time counts (bench/startup.mjs).
 */
async function parseWithSade(command: CommandDescriptor, tokens: readonly string[]): Promise<Parsed> {
  const { default: sade } = await import('sade');
  const specs = effectiveOptions(command).filter((s) => !isMtoolFlag(s, command));
  const keys = (type: OptionSpec['type']) => specs.filter((s) => s.type === type).map((s) => sadeKey(s.name));
  const parsed = buildProgram(sade, [command]).parse(['node', 'mtool', ...command.name.split(' '), ...tokens], {
    lazy: true,
    boolean: keys('boolean'),
    string: keys('string'),
    unknown: command.passThrough
      ? undefined
      : (flag: string) => {
          throw unknownOption(flag, command);
        },
  });
  if (parsed.name !== command.name) throw new MtoolError('MTOOL_INTERNAL', `the parser chose command '${parsed.name}' for '${command.name}'`);
  const vals = parsed.args[parsed.args.length - 1] as unknown as ParsedFlags;
  const values: OptionValues = {};
  for (const spec of specs) values[spec.name] = optionValue(spec, vals[sadeKey(spec.name)], command);
  return { values, input: () => parsed.handler(...parsed.args) as CommandInput };
}

/** mri's value of one option as mtool's: last one wins unless repeatable, strings stay strings. */
function optionValue(spec: OptionSpec, raw: unknown, command: CommandDescriptor): OptionValues[string] {
  if (raw === undefined) return undefined;
  const all = Array.isArray(raw) ? raw : [raw];
  if (spec.type === 'boolean') return all[all.length - 1] === true;
  // A string option can only be false here when written `--no-<name>`.
  const bad = all.find((v) => typeof v !== 'string' || v === '');
  if (bad !== undefined) throw usageError(`option '--${spec.name}' needs a value: --${spec.name} ${spec.value ?? '<value>'}`, command);
  return spec.multiple ? (all as string[]) : (all[all.length - 1] as string);
}

/** The action of every command in the sade program: maps sade's arguments to a `CommandInput`. */
function commandInput(command: CommandDescriptor, sadeArgs: SadeArgs): CommandInput {
  const vals = sadeArgs[sadeArgs.length - 1] as ParsedFlags;
  const options: OptionValues = {};
  for (const spec of command.options ?? []) options[spec.name] = optionValue(spec, vals[sadeKey(spec.name)], command);
  if (!command.passThrough) {
    for (const spec of command.options ?? []) {
      const value = options[spec.name];
      if (spec.choices && typeof value === 'string' && !spec.choices.includes(value)) {
        throw usageError(`--${spec.name} '${value}' is not allowed; use one of: ${spec.choices.join(', ')}`, command);
      }
    }
  }
  const extra = vals._.map(String);
  const args: CommandInput['args'] = {};
  (command.args ?? []).forEach((arg, index) => {
    const given = sadeArgs[index] as string | undefined;
    if (arg.variadic) args[arg.name] = [...(given === undefined ? [] : [String(given)]), ...extra.splice(0)];
    else if (given !== undefined) args[arg.name] = String(given);
    else if (arg.required) throw usageError(`missing argument <${arg.name}>: ${arg.description}`, command);
  });
  if (extra.length > 0) throw usageError(`unexpected argument '${extra[0]}'`, command);
  return { args, options };
}

function readGlobals(values: OptionValues): GlobalOptions {
  return {
    dev: values.dev === true,
    strictTranslation: values['strict-translation'] === true,
    debug: values.debug === true,
    debugLevel: typeof values['debug-level'] === 'string' ? values['debug-level'] : undefined,
    json: values.json === true,
    disableSkip: values['disable-skip'] === true,
  };
}

function applyLogging(globals: GlobalOptions, env: NodeJS.ProcessEnv): void {
  let level = globals.debug ? 'debug' : 'info';
  if (globals.debugLevel !== undefined) {
    const parsed = parseLogLevel(globals.debugLevel);
    if (parsed === undefined) {
      // The message names the levels: the general hint (the list of commands) would not help.
      throw new MtoolError('MTOOL_USAGE', `--debug-level '${globals.debugLevel}' is not a level; use trace, debug, info, warning, error, critical or 5, 10, 20, 30, 40, 50`, { hint: '' });
    }
    level = parsed;
  }
  configureLogging({ level, json: globals.json || env.MTOOL_LOG_JSON === 'true' });
}

/** One parsed command line. */
export interface CommandLine {
  /** Undefined for `mtool`, `mtool --help` and `mtool --version`. */
  command: CommandDescriptor | undefined;
  /** `mtool settings --help`: the word that starts several commands (see {@link groupHelp}). */
  group?: string;
  globals: GlobalOptions;
  help: boolean;
  version: boolean;
  /** The command's input, built (and its arguments checked) only when it is going to run. */
  input(): CommandInput;
}

/**
 * Parse argv (without `node` and the script) into the command, global options and the command's
 * input. Throws a usage `MtoolError` (exit 2) for bad input; never prints or exits.
 * @example const line = await parseCommandLine(['--json', 'settings', 'show', 'app']); line.input().args.name === 'app'
 */
export async function parseCommandLine(argv: readonly string[]): Promise<CommandLine> {
  const { command, group, rest } = locateCommand(argv);
  const { tokens, values, positionals, help, version } = arrangeOptions(rest, command);
  if (group !== undefined && !help) throw unknownCommand(group, groupMembers(group));
  if (!command) {
    // Nothing for sade to parse: only global options, all known (arrangeOptions rejects others).
    if (positionals.length > 0) throw usageError(`no command before '--' (found '${positionals[0]}' after it); the command name comes first`);
    return { command, ...(group !== undefined ? { group } : {}), globals: readGlobals(values), help, version, input: () => ({ args: {}, options: {} }) };
  }
  const parsed = await parseWithSade(command, tokens);
  return { command, globals: readGlobals(parsed.values), help, version, input: parsed.input };
}

/**
 * `signalExit`: the code a signal makes the process end with, which the record must report.
 * `database`: the one the command failed on ({@link CommandResult.errorDatabase}); else the
 * error's own `database`. The JSON record names it as every record about a database does.
 */
function writeError(io: CliIo, error: unknown, debug: boolean, signalExit?: number, database?: CommandResult['errorDatabase']): number {
  const known = isMtoolError(error);
  const message = scrubLogText(error instanceof Error ? error.message : String(error));
  const hintValue = (error as { hint?: unknown } | undefined)?.hint;
  const hint = typeof hintValue === 'string' ? hintValue : known ? HINTS[error.code] : undefined;
  const stack = error instanceof Error && error.stack ? scrubLogText(error.stack) : undefined;
  const exitCode = signalExit ?? (known ? error.exitCode : 1);
  if (loggingSettings().json) {
    // Keep stderr one JSON object per line in JSON mode: the error is a log record too.
    logAlways('error', message, {
      db_name: database?.name ?? (known ? error.database : undefined),
      db_type: database?.type,
      code: known ? error.code : 'MTOOL_INTERNAL',
      exit_code: exitCode,
      hint: hint ? scrubLogText(hint) : undefined,
      exception: debug ? stack : undefined,
    });
    return exitCode;
  }
  io.stderr.write(`error: ${known ? message : `unexpected failure: ${message}`}\n`);
  if (hint) io.stderr.write(`hint: ${scrubLogText(hint)}\n`);
  if (debug && stack) io.stderr.write(`${stack}\n`);
  else if (!known) io.stderr.write(`(run again with --debug for the stack trace; ${ERROR_CODES.MTOOL_INTERNAL.meaning})\n`);
  return exitCode;
}

function makeContext(io: CliIo, globals: GlobalOptions, run: RunContext): CommandContext {
  let config: Promise<LoadedConfig> | undefined;
  return {
    cwd: io.cwd,
    env: io.env,
    globals,
    run,
    log: logger,
    loadConfig() {
      config ??= (async () => {
        const [{ loadConfig }, { urlSecrets }] = await Promise.all([import('./config/load-config.js'), import('../net/mask.js')]);
        const loaded = await loadConfig({ cwd: io.cwd, dev: globals.dev, env: io.env });
        for (const entry of loaded.databases) {
          for (const url of [entry.url, entry.configuredUrl, entry.urlAsync, entry.devUrl]) if (url) registerSecrets(urlSecrets(url));
        }
        return loaded;
      })();
      return config;
    },
  };
}

/**
 * Run one mtool invocation and return its exit code. Never exits the process and never throws:
 * every error becomes `error: ...` on stderr (or a JSON log record) and an exit code.
 * @example const code = await runCli(['settings', 'show', '--json'], { stdout: process.stdout, stderr: process.stderr, cwd: process.cwd(), env: process.env })
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const run = io.run ?? new RunContext();
  // Until options parse, only a literal --debug asks for stack traces.
  let debug = argv.includes('--debug');
  try {
    configureLogging({ level: 'info', json: io.env.MTOOL_LOG_JSON === 'true' || argv.includes('--json') || argv.includes('-j') });
    const invocation = await parseCommandLine(argv);
    const { command, globals } = invocation;
    applyLogging(globals, io.env);
    // Stack traces follow the effective level, so --debug-level wins over --debug here too.
    debug = LOG_LEVELS[loggingSettings().level] <= LOG_LEVELS.debug;

    if (invocation.help) {
      io.stdout.write(command ? commandHelp(command) : invocation.group !== undefined ? groupHelp(invocation.group) : generalHelp());
      return 0;
    }
    if (invocation.version) {
      io.stdout.write(versionText(globals.json));
      return 0;
    }
    if (!command) {
      io.stderr.write(generalHelp());
      return 2;
    }
    const result = await command.run(makeContext(io, globals, run), invocation.input());
    io.stdout.write(renderResult(result, globals.json));
    if (result.error !== undefined) return writeError(io, result.error, debug, run.exitCode, result.errorDatabase);
    return result.exitCode ?? 0;
  } catch (error) {
    return writeError(io, error, debug, run.exitCode);
  } finally {
    for (const failure of await run.cleanup()) {
      logger.warn('a cleanup step failed', { exception: failure instanceof Error ? failure : new Error(String(failure)) });
    }
  }
}
