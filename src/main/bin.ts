#!/usr/bin/env node
/**
 * The `mtool` executable: the only place that ends the process. Everything else returns exit
 * codes (src/main/cli.ts).
 *
 * The command line runs from the CLI bundle's script chunks with V8's code cache
 * (src/main/startup/script-chunks.ts); from tsc's output, as ES modules.
 *
 * Signals: the first SIGINT / SIGTERM aborts the running command's signal and runs its cleanups
 * (a `migrate` releases its lock there), then exits 130 / 143. A second signal exits at once.
 */
import { FdOutput } from './startup/fd-output.js';
import { importChunk } from './startup/script-chunks.js';

const SIGNAL_EXIT = { SIGINT: 130, SIGTERM: 143 } as const;
/** How long a signalled process waits, after its cleanups, for the command to print its outcome. */
const REPORT_GRACE_MS = 500;

const stdout = new FdOutput(1);
const stderr = new FdOutput(2);

function exit(code: number): void {
  // Let output a stream took over reach its reader before the process ends.
  stdout.flush(() => stderr.flush(() => process.exit(code)));
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
  const { runCli, RunContext } = await importChunk<typeof import('./cli.js')>(new URL('./cli.js', import.meta.url));
  const run = new RunContext();
  let stopping = false;
  let command: Promise<number> | undefined;
  for (const signal of Object.keys(SIGNAL_EXIT) as (keyof typeof SIGNAL_EXIT)[]) {
    process.on(signal, () => {
      if (stopping) process.exit(SIGNAL_EXIT[signal]);
      stopping = true;
      stderr.write(`\nmtool: ${signal === 'SIGINT' ? 'interrupted' : 'terminated'}; cleaning up (send again to exit at once)\n`);
      run.abort(signal);
      // After the cleanups, give the command a moment to report how it ended (the migration it
      // rolled back) before the process exits.
      const reported = Promise.race([command, new Promise((resolve) => setTimeout(resolve, REPORT_GRACE_MS).unref())]);
      void run
        .cleanup()
        .then(() => reported)
        .finally(() => exit(SIGNAL_EXIT[signal]));
    });
  }
  command = runCli(argv, { stdout, stderr, cwd: process.cwd(), env: process.env, run });
  const code = await command;
  if (!stopping) exit(code);
}

await main(process.argv.slice(2));
