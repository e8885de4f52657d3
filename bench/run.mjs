#!/usr/bin/env node
// Runs every benchmark in bench/ one after another (they would disturb each other in parallel)
// and ends with one line per bench: its name and whether its PASS/FAIL lines all passed.
// Usage: npm run bench            (all)
//        npm run bench -- splitter startup   (some, by file name without .mjs)
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const ALL = ['startup', 'splitter', 'directory-parse', 'introspect', 'export-models', 'migrate-peers'];
const chosen = process.argv.slice(2).length > 0 ? process.argv.slice(2) : ALL;

// The whole build: several benches run the CLI bundle (dist/cli), which tsc alone does not refresh.
const build = spawnSync('npm', ['run', 'build'], { cwd: dirname(here), stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);

const summary = [];
for (const name of chosen) {
  const file = join(here, `${name}.mjs`);
  if (!existsSync(file)) {
    summary.push(`${name}: no such bench (known: ${ALL.join(', ')})`);
    continue;
  }
  process.stdout.write(`\n=== ${name} ===\n`);
  const run = spawnSync(process.execPath, [file], { cwd: dirname(here), encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  process.stdout.write(run.stdout ?? '');
  const verdicts = (run.stdout ?? '').split('\n').filter((l) => /\b(PASS|FAIL)\b/.test(l));
  const failed = run.status !== 0 || verdicts.some((l) => /\bFAIL\b/.test(l));
  summary.push(`${name}: ${failed ? 'FAIL' : 'PASS'} (${verdicts.length} target lines, exit ${run.status})`);
}
process.stdout.write(`\n=== summary ===\n${summary.join('\n')}\n`);
process.exitCode = summary.some((l) => !/: PASS/.test(l)) ? 1 : 0;
