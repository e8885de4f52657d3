import { spawn, type ChildProcess } from 'node:child_process';
import { MTOOL_BIN } from '../../support/cli.js';
import type { TestProject } from './project.js';

/** Start `mtool <args>` in the project, its output collected, for a test that signals it while it runs. */
export function start(
  project: TestProject,
  args: string[],
  env?: Record<string, string>,
): { child: ChildProcess; stderr: () => string; stdout: () => string; exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }> } {
  const child = spawn(process.execPath, [MTOOL_BIN, ...args], { cwd: project.dir, stdio: ['ignore', 'pipe', 'pipe'], ...(env ? { env: { ...process.env, ...env } } : {}) });
  let err = '';
  let out = '';
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (err += c));
  child.stdout!.setEncoding('utf8').on('data', (c: string) => (out += c));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));
  return { child, stderr: () => err, stdout: () => out, exit };
}

/** Poll `check` every 50 ms until it holds; fails after `timeoutMs`. */
export async function waitFor(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}
