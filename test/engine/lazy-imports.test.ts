import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MODULE_TRACE, loadedSources, runMtool } from '../support/cli.js';
import { TestProject, explain, migration } from './support/project.js';

/** DESIGN.md section 5: `mtool status` on SQLite loads no other driver, no worker pool, no metrics. */
const OTHERS = ['pg', 'pg-query-stream', 'mysql2', '@clickhouse/client', 'chdb', 'piscina', 'undici', 'prom-client'];

let project: TestProject;
let traceDir: string;
beforeAll(async () => {
  traceDir = await mkdtemp(join(tmpdir(), 'mtool-engine-trace-'));
  project = await TestProject.create([{ name: 'app', type: 'sqlite', url: 'sqlite:///app.db' }]);
  await project.write('app__0001_t.sql', migration(['CREATE TABLE t (id integer primary key)'], ['DROP TABLE t']));
  const result = await project.run(['migrate']);
  expect(result.code, explain(result)).toBe(0);
});
afterAll(async () => {
  await project?.dispose();
  await rm(traceDir, { recursive: true, force: true });
});

it.each([[['status']], [['migrate']], [['history']], [['lock-status']]])('mtool %j on SQLite loads better-sqlite3 and nothing heavier', async (args) => {
  const trace = join(traceDir, `${args.join('-')}.txt`);
  const result = await runMtool(args, { cwd: project.dir, nodeArgs: ['--import', MODULE_TRACE], env: { MTOOL_MODULE_TRACE: trace } });
  expect(result.code, explain(result)).toBe(0);
  const modules = (await readFile(trace, 'utf8')).split('\n').filter(Boolean);
  expect(modules.some((m) => m.includes('/node_modules/better-sqlite3/'))).toBe(true);
  // Packages load from node_modules, or from the CLI's vendored copy (dist/cli/vendor-<name>-<hash>.cjs).
  const loads = (name: string) => modules.some((m) => m.includes(`/node_modules/${name}/`) || m.includes(`/vendor-${name}-`));
  expect(OTHERS.filter(loads)).toEqual([]);
  // Nor mtool's own modules for other databases, rendering or introspection: the CLI is bundled,
  // so the loaded chunks' source maps say which source modules came in.
  const own = (await loadedSources(modules)).filter((m) => /^src\/dialects\/[a-z]+\/(driver|renderer|introspector)\.ts$/.test(m));
  expect(own).toEqual(['src/dialects/sqlite/driver.ts']);
});
