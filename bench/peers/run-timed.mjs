// Runs one command as a child process and measures its wall time from spawn to exit: what a user
// waits for, Node or Go start-up included. Output is captured (not shown) so the terminal's speed
// never enters the number.
import { spawn } from 'node:child_process';
import { openSync, closeSync } from 'node:fs';

/**
 * The command run by bash, which then prints the CPU time of its children (`times`, second line:
 * user and system) on stderr: Node cannot read a child's resource usage itself. Costs bash's
 * start-up (a few ms) on the wall time of every command measured this way.
 */
const WITH_CPU = ['-c', '"$@"; status=$?; times >&2; exit $status', 'bash'];
const TIMES_LINE = /(?:^|\n)(\d+)m([\d.]+)s (\d+)m([\d.]+)s\n?$/;

/**
 * @typedef {{ cmd: string, args: string[], cwd: string, env?: Record<string,string>, stdinFile?: string }} Command
 * @param {Command} command
 * @param {number} [timeoutMs] kill the child (SIGKILL; with `cpu`, its whole process group) after this long
 * @param {{ cpu?: boolean, env?: Record<string, string | undefined> }} [options] `cpu`: also measure the CPU time (user + system) of the
 *   command and its children, in `cpuMs`; `env`: the environment the command's own `env` adds to
 *   (default: the bench's; see bench/lib/env.mjs)
 * @returns {Promise<{ ms: number, cpuMs?: number, code: number|null, stdout: string, stderr: string, timedOut: boolean }>}
 */
export function runTimed(command, timeoutMs, options = {}) {
  return new Promise((resolve, reject) => {
    const stdin = command.stdinFile ? openSync(command.stdinFile, 'r') : 'ignore';
    const [cmd, args] = options.cpu ? ['bash', [...WITH_CPU, command.cmd, ...command.args]] : [command.cmd, command.args];
    const start = process.hrtime.bigint();
    const child = spawn(cmd, args, {
      cwd: command.cwd,
      env: { ...(options.env ?? process.env), ...command.env },
      stdio: [stdin, 'pipe', 'pipe'],
      // Under bash, a timeout must kill the command too, not only bash: give them a group of their own.
      detached: options.cpu === true,
    });
    let timedOut = false;
    const timer = timeoutMs
      ? setTimeout(() => {
          timedOut = true;
          if (options.cpu) process.kill(-child.pid, 'SIGKILL');
          else child.kill('SIGKILL');
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
      let stderr = Buffer.concat(err).toString();
      let cpuMs;
      const times = options.cpu ? TIMES_LINE.exec(stderr) : null;
      if (times) {
        cpuMs = (Number(times[1]) * 60 + Number(times[2]) + Number(times[3]) * 60 + Number(times[4])) * 1000;
        // `times` prints the shell's own line, then its children's: drop both.
        const lines = stderr.slice(0, times.index).split('\n');
        stderr = lines.slice(0, -1).join('\n');
      }
      resolve({ ms, cpuMs, code, stdout: Buffer.concat(out).toString(), stderr, timedOut });
    });
  });
}

/** Runs a command and throws with the tail of its output when it exits non-zero. */
export async function runChecked(command, what, timeoutMs, options = {}) {
  const result = await runTimed(command, timeoutMs, options);
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
