import { parseArgs, type ParseArgsConfig } from 'node:util';
import { ERROR_CODES, isMtoolError, MtoolError, type ErrorCode } from '../errors.js';
import { VERSION } from '../version.js';
import { COMMANDS } from './commands/index.js';
import type { CommandContext, CommandDescriptor, CommandInput, GlobalOptions, OptionSpec, OptionValues } from './commands/command.js';
import type { LoadedConfig } from './config/types.js';
import { configureLogging, LOG_LEVELS, logAlways, logger, loggingSettings, parseLogLevel, registerSecrets, scrubLogText } from './log.js';
import { renderResult } from './output.js';
import { RunContext } from './run-context.js';

/**
 * The command line: `mtool [GLOBAL_OPTIONS] COMMAND [ARGS] [OPTIONS]`.
 *
 * Parsing uses `node:util` parseArgs in strict mode rather than sade's parser: sade prints with
 * `console` and calls `process.exit(1)` on a bad command or flag, while mtool must exit 2 on usage
 * errors and only `bin.ts` may end the process; and global options must work on either side of
 * the command name, which needs the two-step parse below. Help text is rendered here from the
 * same descriptors.
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

/** `mtool --help`. */
export function generalHelp(): string {
  const firstSentence = (text: string) => text.split(/(?<=\.)\s/)[0];
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

/** Every option any command or the global list declares, to skip option values while looking for the command name. */
function takesValue(token: string): boolean {
  const name = token.replace(/^-+/, '');
  const all = [...GLOBAL_OPTIONS, ...COMMANDS.flatMap((c) => c.options ?? [])];
  const spec = token.startsWith('--') ? all.find((o) => o.name === name) : all.find((o) => o.short === name);
  return spec?.type === 'string';
}

interface Located {
  command: CommandDescriptor | undefined;
  /** argv without the command-name words. */
  rest: string[];
}

/** Find the command name (one or two words) among the leading positional tokens. */
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
    const group = COMMANDS.filter((c) => c.name.startsWith(`${words[0]} `)).map((c) => c.name);
    const given = group.length > 0 && words[1] !== undefined ? `${words[0]} ${words[1]}` : words[0];
    const suggestion = group.length > 0 ? `; did you mean: ${group.join(', ')}` : '';
    throw usageError(`unknown command '${given}'${suggestion}`);
  }
  const used = new Set(positions.slice(0, two ? 2 : 1));
  return { command, rest: argv.filter((_t, i) => !used.has(i)) };
}

type ParsedOptions = ParseArgsConfig['options'];

function parseOptions(specs: readonly OptionSpec[]): NonNullable<ParsedOptions> {
  const options: NonNullable<ParsedOptions> = {};
  for (const spec of specs) {
    options[spec.name] = { type: spec.type, ...(spec.short ? { short: spec.short } : {}), ...(spec.multiple ? { multiple: true } : {}) };
  }
  return options;
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
      throw usageError(`--debug-level '${globals.debugLevel}' is not a level; use trace, debug, info, warning, error, critical or 5, 10, 20, 30, 40, 50`);
    }
    level = parsed;
  }
  configureLogging({ level, json: globals.json || env.MTOOL_LOG_JSON === 'true' });
}

interface Invocation {
  command: CommandDescriptor | undefined;
  globals: GlobalOptions;
  help: boolean;
  version: boolean;
  input: CommandInput;
}

function parseInvocation(argv: readonly string[]): Invocation {
  const { command, rest } = locateCommand(argv);
  const own = command?.options ?? [];
  const specs = [...own, ...GLOBAL_OPTIONS.filter((g) => !own.some((o) => o.name === g.name || (g.short && o.short === g.short)))];
  let parsed: { values: OptionValues; positionals: string[] };
  try {
    parsed = parseArgs({ args: rest, options: parseOptions(specs), strict: !command?.passThrough, allowPositionals: true }) as typeof parsed;
  } catch (error) {
    throw usageError((error as Error).message.replace(/\. To specify a positional argument.*$/s, ''), command);
  }
  const { values, positionals } = parsed;
  const globals = readGlobals(values);
  const help = values.help === true;
  const version = !own.some((o) => o.name === 'version') && values.version === true;
  const options: OptionValues = {};
  for (const spec of own) options[spec.name] = values[spec.name];
  const input: CommandInput = { args: {}, options };
  if (!command || help) return { command, globals, help, version, input };

  if (!command.passThrough) {
    for (const spec of own) {
      const value = values[spec.name];
      if (spec.choices && typeof value === 'string' && !spec.choices.includes(value)) {
        throw usageError(`--${spec.name} '${value}' is not allowed; use one of: ${spec.choices.join(', ')}`, command);
      }
    }
  }
  const queue = [...positionals];
  for (const arg of command.args ?? []) {
    if (arg.variadic) {
      input.args[arg.name] = queue.splice(0);
    } else if (queue.length > 0) {
      input.args[arg.name] = queue.shift();
    } else if (arg.required) {
      throw usageError(`missing argument <${arg.name}>: ${arg.description}`, command);
    }
  }
  if (queue.length > 0) throw usageError(`unexpected argument '${queue[0]}'`, command);
  return { command, globals, help, version, input };
}

function writeError(io: CliIo, error: unknown, debug: boolean): number {
  const known = isMtoolError(error);
  const message = scrubLogText(error instanceof Error ? error.message : String(error));
  const hintValue = (error as { hint?: unknown } | undefined)?.hint;
  const hint = typeof hintValue === 'string' ? hintValue : known ? HINTS[error.code] : undefined;
  const stack = error instanceof Error && error.stack ? scrubLogText(error.stack) : undefined;
  const exitCode = known ? error.exitCode : 1;
  if (loggingSettings().json) {
    // Keep stderr one JSON object per line in JSON mode: the error is a log record too.
    logAlways('error', message, {
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
        const loaded = await loadConfig({ cwd: io.cwd, dev: globals.dev });
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
    const invocation = parseInvocation(argv);
    const { command, globals } = invocation;
    applyLogging(globals, io.env);
    // Stack traces follow the effective level, so --debug-level wins over --debug here too.
    debug = LOG_LEVELS[loggingSettings().level] <= LOG_LEVELS.debug;

    if (invocation.help) {
      io.stdout.write(command ? commandHelp(command) : generalHelp());
      return 0;
    }
    if (invocation.version) {
      io.stdout.write(globals.json ? `${JSON.stringify({ name: 'mtool', version: VERSION, node: process.versions.node }, null, 2)}\n` : `mtool ${VERSION}\n`);
      return 0;
    }
    if (!command) {
      io.stderr.write(generalHelp());
      return 2;
    }
    const result = await command.run(makeContext(io, globals, run), invocation.input);
    io.stdout.write(renderResult(result, globals.json));
    return result.exitCode ?? 0;
  } catch (error) {
    return writeError(io, error, debug);
  } finally {
    for (const failure of await run.cleanup()) {
      logger.warn('a cleanup step failed', { exception: failure instanceof Error ? failure : new Error(String(failure)) });
    }
  }
}
