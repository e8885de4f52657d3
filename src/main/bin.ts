#!/usr/bin/env node
/**
 * The `mtool` executable: the only place that ends the process. Everything else returns exit
 * codes (src/main/cli.ts).
 *
 * The command line runs from the CLI bundle's script chunks with V8's code cache
 * (src/main/startup/script-chunks.ts); from tsc's output, as ES modules.
 *
 * Signals: the first SIGINT / SIGTERM / SIGHUP (terminal closed, SSH session dropped) aborts the
 * running command's signal and runs its cleanups (a `migrate` releases its lock there), then exits
 * 130 / 143 / 129. A second signal exits at once, naming any migration lock it leaves held.
 * SIGQUIT keeps Node's default (exit at once, core dump): the way out when cleanup itself hangs.
 */
import { fstatSync, statSync } from 'node:fs';
import { FdOutput } from './startup/fd-output.js';
import { importChunk } from './startup/script-chunks.js';

/** How long a signalled process waits, after its cleanups, for the command to print its outcome. */
const REPORT_GRACE_MS = 500;

const stdout = new FdOutput(1);
const stderr = new FdOutput(2);

function exit(code: number): void {
  // Let output a stream took over reach its reader before the process ends.
  stdout.flush(() => stderr.flush(() => process.exit(code)));
}

/** A SIGHUP came: the terminal may be gone (also when a later signal ends the process). */
let hungUp = false;

/**
 * End the process after `signal` with `code`. After SIGHUP with a terminal on stdio, Node 20's
 * own exit aborts (SIGABRT) restoring the settings of a terminal that has gone away
 * (nodejs/node#51519): the process then dies of the signal itself, which a shell reports as 129
 * all the same. `atOnce`: without waiting for buffered output (a second signal).
 */
function exitAfter(signal: string, code: number, atOnce = false): void {
  hungUp ||= signal === 'SIGHUP';
  const end = (): void => {
    if (hungUp && [0, 1, 2].some(onTerminal)) {
      process.removeAllListeners('SIGHUP');
      process.kill(process.pid, 'SIGHUP');
      // Not reached where the default action ends the process.
      setTimeout(() => process.exit(code), 100);
      return;
    }
    process.exit(code);
  };
  if (atOnce) end();
  else stdout.flush(() => stderr.flush(end));
}

/**
 * Whether `fd` is a terminal, also one that hung up (isatty() then says no): a character device
 * other than /dev/null (which a spawned process often gets as stdin).
 */
function onTerminal(fd: number): boolean {
  try {
    const stat = fstatSync(fd);
    return stat.isCharacterDevice() && stat.rdev !== statSync('/dev/null').rdev;
  } catch {
    return false;
  }
}

async function main(argv: string[]): Promise<void> {
  // A bare `mtool --version` needs nothing but the version: answer it before loading the command
  // line, its command table and its logger (start-up target: within 1.5x of `node -e 0`).
  if (argv.length === 1 && argv[0] === '--version') {
    const { versionText } = await import('../version.js');
    stdout.write(versionText(false));
    return exit(0);
  }
  // RunContext through cli.js: one chunk of the bundle instead of two more.
  const { runCli, RunContext, SIGNAL_EXIT_CODES } = await importChunk<typeof import('./cli.js')>(new URL('./cli.js', import.meta.url));
  const run = new RunContext();
  let stopping = false;
  let command: Promise<number> | undefined;
  for (const signal of Object.keys(SIGNAL_EXIT_CODES) as (keyof typeof SIGNAL_EXIT_CODES)[]) {
    process.on(signal, () => {
      if (stopping) {
        run.forcedExit(signal, stderr);
        return exitAfter(signal, SIGNAL_EXIT_CODES[signal], true);
      }
      stopping = true;
      hungUp ||= signal === 'SIGHUP';
      run.stop(signal, stderr);
      // After the cleanups, give the command a moment to report how it ended (the migration it
      // rolled back) before the process exits: counted from their end, since they may wait for the
      // server to stop the running statement (a ClickHouse KILL QUERY) for longer than that moment.
      void run
        .cleanup()
        .then(() => Promise.race([command, new Promise((resolve) => setTimeout(resolve, REPORT_GRACE_MS).unref())]))
        .catch(() => undefined)
        .finally(() => exitAfter(signal, SIGNAL_EXIT_CODES[signal]));
    });
  }
  command = runCli(argv, { stdout, stderr, cwd: process.cwd(), env: process.env, run });
  const code = await command;
  if (!stopping) exit(code);
}

await main(process.argv.slice(2));
