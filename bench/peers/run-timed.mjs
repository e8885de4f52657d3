// Runs one command as a child process and measures its wall time from spawn to exit: what a user
// waits for, Node or Go start-up included. Output is captured (not shown) so the terminal's speed
// never enters the number.
import { spawn } from 'node:child_process';
import { openSync, closeSync } from 'node:fs';

/**
 * @typedef {{ cmd: string, args: string[], cwd: string, env?: Record<string,string>, stdinFile?: string }} Command
 * @param {Command} command
 * @param {number} [timeoutMs] kill the child (SIGKILL, by its own pid) after this long
 * @returns {Promise<{ ms: number, code: number|null, stdout: string, stderr: string, timedOut: boolean }>}
 */
export function runTimed(command, timeoutMs) {
  return new Promise((resolve, reject) => {
    const stdin = command.stdinFile ? openSync(command.stdinFile, 'r') : 'ignore';
    const start = process.hrtime.bigint();
    const child = spawn(command.cmd, command.args, {
      cwd: command.cwd,
      env: { ...process.env, ...command.env },
      stdio: [stdin, 'pipe', 'pipe'],
    });
    let timedOut = false;
    const timer = timeoutMs
      ? setTimeout(() => {
          timedOut = true;
          child.kill('SIGKILL');
        }, timeoutMs)
      : undefined;
    const out = [];
    const err = [];
    child.stdout.on('data', (chunk) => out.push(chunk));
    child.stderr.on('data', (chunk) => err.push(chunk));
    child.on('error', (error) => {
      clearTimeout(timer);
      if (typeof stdin === 'number') closeSync(stdin);
      reject(error);
    });
    child.on('close', (code) => {
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      clearTimeout(timer);
      if (typeof stdin === 'number') closeSync(stdin);
      resolve({ ms, code, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString(), timedOut });
    });
  });
}

/** Runs a command and throws with the tail of its output when it exits non-zero. */
export async function runChecked(command, what, timeoutMs) {
  const result = await runTimed(command, timeoutMs);
  if (result.timedOut) throw new Error(`${what} timed out after ${(timeoutMs / 1000).toFixed(0)} s (killed)`);
  if (result.code !== 0) {
    const tail = (result.stderr || result.stdout).trim().split('\n').slice(-6).join('\n');
    throw new Error(`${what} exited ${result.code}: ${tail}`);
  }
  return result;
}

/** Median of a list of numbers. */
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
