#!/usr/bin/env node
/**
 * The `mtool` executable: the only place that ends the process. Everything else returns exit
 * codes (src/main/cli.ts).
 *
 * Signals: the first SIGINT / SIGTERM aborts the running command's signal and runs its cleanups
 * (a `migrate` releases its lock there), then exits 130 / 143. A second signal exits at once.
 */
import { runCli } from './cli.js';
import { RunContext } from './run-context.js';

const run = new RunContext();
const SIGNAL_EXIT = { SIGINT: 130, SIGTERM: 143 } as const;
let stopping = false;

function exit(code: number): void {
  // Let buffered output reach pipes before the process ends.
  process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
}

for (const signal of Object.keys(SIGNAL_EXIT) as (keyof typeof SIGNAL_EXIT)[]) {
  process.on(signal, () => {
    if (stopping) process.exit(SIGNAL_EXIT[signal]);
    stopping = true;
    process.stderr.write(`\nmtool: ${signal === 'SIGINT' ? 'interrupted' : 'terminated'}; cleaning up (send again to exit at once)\n`);
    run.abort(signal);
    void run.cleanup().finally(() => exit(SIGNAL_EXIT[signal]));
  });
}

const code = await runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  cwd: process.cwd(),
  env: process.env,
  run,
});
if (!stopping) exit(code);
