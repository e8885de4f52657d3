import { afterEach, describe, expect, it } from 'vitest';
import { TestProject, explain, migration } from './support/project.js';
import { start, waitFor } from './support/running.js';
import { TARGETS, provision, targetReachable, type ProvisionedDatabase } from './support/targets.js';

/**
 * ClickHouse runs `ALTER TABLE ... UPDATE / DELETE` (mutations) in the background: the statement
 * returns before the table is rewritten. A migration waits for the mutations its statement
 * started, so the statements after it see the result and a failing mutation fails the migration
 * instead of being recorded. Against the 18.16 server over HTTP (asynchronous mutations, no
 * failure reason, no KILL MUTATION) and a current ClickHouse in process (chdb, whose default
 * `mutations_sync = 1` the migrations turn off to get the servers' default behaviour).
 */
const clickhouse = TARGETS.find((t) => t.type === 'clickhouse')!;
const reachable = await targetReachable(clickhouse);

const table = migration(["CREATE TABLE t (id UInt32, v String) ENGINE = MergeTree ORDER BY id", "INSERT INTO t VALUES (1, 'a'), (2, 'b')"], ['DROP TABLE t']);
// Half a second per block: the statement after it would read the rows unchanged without the wait.
const slowUpdate = "ALTER TABLE t UPDATE v = concat('z', toString(sleep(0.5))) WHERE 1";
// Fails the migration when any row is not rewritten yet.
const seesUpdate = "SELECT throwIf(countIf(v != 'z0') > 0) FROM t";
const failingUpdate = 'ALTER TABLE t UPDATE v = toString(throwIf(id = 2)) WHERE 1';

interface Setup {
  label: string;
  skip: boolean;
  project(): Promise<TestProject>;
  /** Statements that make this server's mutations asynchronous, as a server's are by default. */
  asynchronous: string[];
}

let db: ProvisionedDatabase | undefined;
let project: TestProject | undefined;
afterEach(async () => {
  await project?.dispose();
  await db?.drop();
  project = undefined;
  db = undefined;
});

const SETUPS: Setup[] = [
  {
    label: 'clickhouse 18.16 over HTTP',
    skip: !reachable,
    async project() {
      db = await provision(clickhouse);
      return TestProject.create([{ name: 'app', type: 'clickhouse', url: db.url }]);
    },
    asynchronous: [],
  },
  {
    label: 'current clickhouse in process (chdb)',
    skip: false,
    project: () => TestProject.create([{ name: 'app', type: 'clickhouse', url: 'chdb:///chdata' }]),
    asynchronous: ['SET mutations_sync = 0'],
  },
];

for (const setup of SETUPS) {
  describe.skipIf(setup.skip)(`mutations on ${setup.label}`, () => {
    it('the statement after an ALTER TABLE ... UPDATE sees its rows rewritten, and none is left running', async () => {
      project = await setup.project();
      await project.write('app__0001_t.sql', table);
      await project.write('app__0002_update.sql', migration([...setup.asynchronous, slowUpdate, seesUpdate]));
      const result = await project.run(['migrate', '--perf']);
      expect(result.code, explain(result)).toBe(0);
      expect(result.stderr).toMatch(/perf \d[\d.]* (ms|s) app__0002_update\.sql:\d+ \(the server's work it left running\)/);
      const { data } = await project.json(['status']);
      expect(data.databases.app.pending_migrations).toBe(0);
    });
  });
}

describe('a mutation that fails on a current server (chdb)', () => {
  it('fails its migration with the server\'s reason and the KILL MUTATION that ends it; nothing is recorded', async () => {
    project = await SETUPS[1]!.project();
    await project.write('app__0001_t.sql', table);
    await project.write('app__0002_bad.sql', migration([...SETUPS[1]!.asynchronous, failingUpdate]));
    const result = await project.run(['migrate']);
    expect(result.code, explain(result)).toBe(1);
    expect(result.stderr).toMatch(
      /app__0002_bad\.sql:3: mutation (mutation_\d+\.txt) of default\.t \(UPDATE v = toString\(throwIf\(id = 2\)\) WHERE 1\) failed on the server: .*throwIf.*; it stays queued, retried, and holds up the table's later mutations until it is killed: KILL MUTATION WHERE database = 'default' AND table = 't' AND mutation_id = '\1'/,
    );
    expect(result.stderr).toMatch(/statements of migration app__0002_bad\.sql that already ran: .*line 3: ALTER TABLE t UPDATE/);
    const { data } = await project.json(['status']);
    expect(data.databases.app.migrations.map((m: { state: string }) => m.state)).toEqual(['applied', 'pending']);
  });
});

describe.skipIf(!reachable)('a mutation that fails on clickhouse 18.16 (which does not say so)', () => {
  it('is waited for, saying what for every 10 s, until Ctrl-C; the migration is not recorded and the lock is released', async () => {
    project = await SETUPS[0]!.project();
    await project.write('app__0001_t.sql', table);
    await project.write('app__0002_bad.sql', migration([failingUpdate]));
    const run = start(project, ['migrate']);
    await waitFor('the wait to say what it waits for', () => /waiting 1\d s for mutation/.test(run.stderr()), 30_000);
    expect(run.stderr()).toMatch(
      /app__0002_bad\.sql:2: waiting 1\d s for mutation mutation_\d+\.txt of \w+\.t \(UPDATE v = toString\(throwIf\(id = 2\)\) WHERE 1\): 1 part to do; this server does not report a mutation's failure: .*Ctrl-C stops the run \(the migration is then not recorded\)/,
    );
    run.child.kill('SIGINT');
    expect((await run.exit).code, run.stderr()).toBe(130);
    const { data } = await project.json(['status']);
    expect(data.databases.app.migrations.map((m: { state: string }) => m.state)).toEqual(['applied', 'pending']);
    expect(data.databases.app.lock_active).toBe(false);
  }, 60_000);
});
