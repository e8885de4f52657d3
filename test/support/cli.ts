import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The built binary the end-to-end tests drive (`npm test` builds first). */
export const MTOOL_BIN = fileURLToPath(new URL('../../dist/main/bin.js', import.meta.url));
export const MODULE_TRACE = fileURLToPath(new URL('../cli/helpers/module-trace.mjs', import.meta.url));

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  cwd: string;
  env?: Record<string, string | undefined>;
  /** Extra node flags before the script, e.g. ['--import', MODULE_TRACE]. */
  nodeArgs?: string[];
  timeoutMs?: number;
}

/**
 * Run `node dist/main/bin.js ...args` in `cwd` with no stdin. The environment is the test's minus
 * MTOOL_* variables (so a developer's settings do not leak in), plus `env`.
 */
export function runMtool(args: readonly string[], options: CliOptions): Promise<CliResult> {
  const env: Record<string, string | undefined> = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('MTOOL_') && key !== 'DATABASE_URL') env[key] = value;
  Object.assign(env, options.env);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...(options.nodeArgs ?? []), MTOOL_BIN, ...args], {
      cwd: options.cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: options.timeoutMs ?? 30_000,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/** A fresh empty project folder; call `dispose()` in afterEach. */
export async function tempProject(prefix = 'mtool-cli-'): Promise<{ dir: string; dispose(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  return { dir, dispose: () => rm(dir, { recursive: true, force: true }) };
}
