import type { LoadedConfig } from '../config/types.js';
import type { Logger } from '../log.js';
import type { RunContext } from '../run-context.js';

/**
 * The contract of one CLI command. A descriptor file (`src/main/commands/<name>.ts`) holds only
 * this data plus a `run` that `await import`s the implementation, so `mtool --help` loads no
 * driver, worker pool or metrics module. Add a command: one file here, one line in `index.ts`.
 * (The project commands of issue 2 share `project-commands.ts`; see there why.)
 */

export interface OptionSpec {
  /** Long name without dashes: `database`. */
  name: string;
  /** One letter without dash: `d`. */
  short?: string;
  type: 'boolean' | 'string';
  /** Placeholder shown in help for string options: `<name>`. */
  value?: string;
  description: string;
  /** Repeatable string option: the value is an array. */
  multiple?: boolean;
  /** Allowed values of a string option (checked before the command runs). */
  choices?: readonly string[];
}

export interface ArgSpec {
  name: string;
  required: boolean;
  description: string;
  /** Takes every remaining positional argument. */
  variadic?: boolean;
}

/** Global options (spec: Global options), valid before and after the command name. */
export interface GlobalOptions {
  dev: boolean;
  strictTranslation: boolean;
  debug: boolean;
  debugLevel: string | undefined;
  json: boolean;
  disableSkip: boolean;
}

export type OptionValues = Record<string, string | boolean | string[] | undefined>;

export interface CommandInput {
  /** Positional arguments by ArgSpec name (variadic ones as arrays). */
  args: Record<string, string | string[] | undefined>;
  options: OptionValues;
}

/** What every command implementation receives. */
export interface CommandContext {
  cwd: string;
  env: NodeJS.ProcessEnv;
  globals: GlobalOptions;
  run: RunContext;
  log: Logger;
  /** Load the project configuration once (honours `--dev`); never connects. */
  loadConfig(): Promise<LoadedConfig>;
}

/**
 * A command's outcome: `data` is printed as one JSON document under `--json`, `text()` otherwise.
 * `exitCode` defaults to 0.
 */
export interface CommandResult {
  data: unknown;
  text(): string;
  exitCode?: number;
  /**
   * The user picked this command's output format explicitly (`check-db --out sql`): print
   * `text()` even under global `--json`, which such commands honour only when no format is given.
   */
  ownFormat?: boolean;
  /**
   * The command failed after producing this output (one database's run that stopped partway):
   * the output is printed, then the error is written as any other and gives the exit code.
   */
  error?: unknown;
  /** The database {@link error} concerns (a run on one database): its log record names it (`db_name`, `db_type`). */
  errorDatabase?: { name: string; type: string };
}

export interface CommandDescriptor {
  /** One or two words: `init`, `settings show`. */
  name: string;
  description: string;
  args?: readonly ArgSpec[];
  options?: readonly OptionSpec[];
  /** Full command lines shown under Examples in `--help`. At least one. */
  examples: readonly string[];
  /** Accept options this descriptor does not declare (for commands that forward to a plugin). */
  passThrough?: boolean;
  run(ctx: CommandContext, input: CommandInput): Promise<CommandResult>;
}

/** The `--database`/`-d` option shared by most commands. */
export const DATABASE_OPTION: OptionSpec = {
  name: 'database',
  short: 'd',
  type: 'string',
  value: '<name>',
  description: 'target database (the default database when omitted)',
};

/** The `--all`/`-a` option of commands that can target every database. */
export const ALL_OPTION: OptionSpec = {
  name: 'all',
  short: 'a',
  type: 'boolean',
  description: 'target every configured database',
};
