import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runMtool } from '../support/cli.js';
import { TestProject, explain, migration } from './support/project.js';

/**
 * A chdb folder is one engine's at a time, across processes too: a second mtool run on a folder
 * that a first one holds fails at once with one sentence saying so, and without the engine's raw
 * "Cannot lock file" line that libchdb would write to stderr from native code.
 */
let project: TestProject;
beforeAll(async () => {
  project = await TestProject.create([{ name: 'ch', type: 'clickhouse', url: 'chdb:///data' }]);
  // Slow enough that the second run starts while the first holds the folder.
  await project.write('ch__0001_slow.sql', migration(['SELECT sleep(2)', 'SELECT sleep(2)', 'SELECT sleep(2)']));
});
afterAll(() => project?.dispose());

/** The engine keeps a `status` file in its folder while it runs. */
async function waitForEngine(folder: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (await access(join(folder, 'status')).then(() => true, () => false)) return;
    await sleep(100);
  }
  throw new Error(`no engine started on ${folder} within 10 s`);
}

it('a second run on a folder in use says another process holds it, and nothing raw', async () => {
  const first = runMtool(['migrate'], { cwd: project.dir, timeoutMs: 60_000 });
  await waitForEngine(join(project.dir, 'data'));
  const second = await runMtool(['migrate'], { cwd: project.dir, timeoutMs: 30_000 });
  expect(second.code, explain(second)).toBe(1);
  expect(second.stderr).toMatch(
    new RegExp(`error: clickhouse \\(ch\\): the chdb folder '${join(project.dir, 'data').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}' is in use by another process \\(pid \\d+, likely another mtool run\\); wait for that run to finish or stop it, then run the command again`),
  );
  expect(second.stderr).not.toMatch(/Cannot lock file|Code: 76|Failed to create connection|chdb package loads/);
  const done = await first;
  expect(done.code, explain(done)).toBe(0);
}, 60_000);
