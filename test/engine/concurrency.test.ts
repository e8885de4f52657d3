import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMtool, type CliResult } from '../support/cli.js';
import { TestProject, explain, migration } from './support/project.js';
import { TARGETS, provision, targetReachable, type ProvisionedDatabase } from './support/targets.js';

const pg = TARGETS.find((t) => t.id === 'postgresql')!;
const reachable = await targetReachable(pg);
const PROCESSES = 16;

describe.skipIf(!reachable)('16 concurrent `mtool migrate` processes on one PostgreSQL database', () => {
  let db: ProvisionedDatabase;
  let project: TestProject;

  beforeAll(async () => {
    db = await provision(pg);
    project = await TestProject.create([{ name: 'app', type: 'postgresql', url: db.url }]);
    // Long enough that every process has started before the winner finishes.
    await project.write('app__0001_slow.sql', migration(['CREATE TABLE a (id integer primary key)', 'SELECT pg_sleep(8)'], ['DROP TABLE a']));
    await project.write('app__0002_next.sql', migration(['CREATE TABLE b (id integer primary key)'], ['DROP TABLE b']));
  });
  afterAll(async () => {
    await project?.dispose();
    await db?.drop();
  });

  it('exactly one applies each migration, the others fail at once with the lock error, nothing is recorded twice', async () => {
    const runs: Promise<CliResult>[] = [];
    for (let i = 0; i < PROCESSES; i++) runs.push(runMtool(['migrate'], { cwd: project.dir, timeoutMs: 90_000 }));
    const results = await Promise.all(runs);

    const winners = results.filter((r) => r.code === 0);
    const losers = results.filter((r) => r.code !== 0);
    expect(winners, results.map(explain).join('\n=====\n')).toHaveLength(1);
    expect(winners[0].stdout).toMatch(/applied 2 migrations/);
    expect(losers).toHaveLength(PROCESSES - 1);
    for (const loser of losers) {
      expect(loser.code, explain(loser)).toBe(1);
      expect(loser.stderr).toContain('Another migration may be running');
      expect(loser.stderr).toContain('mtool unlock');
    }

    const history = await project.json(['history']);
    const names = history.data.databases.app.migrations.map((m: { filename: string }) => m.filename);
    expect(names).toEqual(['app__0001_slow.sql', 'app__0002_next.sql']);
    const lock = await project.run(['lock-status']);
    expect(lock.stdout.trim()).toBe('Migration lock: INACTIVE');
  }, 120_000);
});

