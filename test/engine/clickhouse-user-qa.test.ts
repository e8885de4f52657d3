import { describe, expect, it } from 'vitest';
import { parseClickHouseError } from '../../src/dialects/clickhouse/clickhouse-error.js';
import { TEST_URLS, withDatabase } from '../support/databases.js';
import { TestProject, explain, migration, projectPerTest } from './support/project.js';
import { start, waitFor } from './support/running.js';
import { TARGETS, queryOnce, targetReachable } from './support/targets.js';

/**
 * ClickHouse as its users write migrations for it: what a failing or interrupted statement on the
 * 18.16 server tells them, and what a chdb project prints on every command.
 */
const clickhouse = TARGETS.find((t) => t.type === 'clickhouse')!;
const reachable = await targetReachable(clickhouse);
const serverVersion = reachable ? String((await queryOnce(clickhouse, withDatabase(TEST_URLS.clickhouse, 'default'), 'SELECT version() AS v'))[0]!.v) : '';

describe('errors of the server network and file library on ClickHouse 18.x', () => {
  it('parses them as server errors, with their code and message', () => {
    const refused = 'Poco::Exception. Code: 1000, e.code() = 111, e.displayText() = Connection refused, e.what() = Connection refused';
    expect(parseClickHouseError(refused)).toEqual({ serverCode: 1000, serverType: undefined, message: 'Connection refused' });
    const missing = 'Poco::Exception. Code: 1000, e.code() = 2, e.displayText() = File not found: /var/lib/clickhouse/data/db/e/202401_1_1_0_3/a%20converting.mrk, e.what() = File not found';
    expect(parseClickHouseError(missing)?.message).toBe('File not found: /var/lib/clickhouse/data/db/e/202401_1_1_0_3/a%20converting.mrk');
    const broken = 'Poco::Exception. Code: 1000, e.code() = 32, e.displayText() = I/O error: Broken pipe, e.what() = I/O error';
    expect(parseClickHouseError(broken)).toEqual({ serverCode: 1000, serverType: undefined, message: 'I/O error: Broken pipe' });
  });
});

describe.skipIf(!reachable)('a ClickHouse 18.16 user migrating over HTTP', () => {
  const app = projectPerTest(clickhouse);

  it('a statement the server fails with a library error (url() refused) fails its migration as a statement, not as a lost connection', async () => {
    const project = await app.create();
    await project.write(
      'app__0001_rates.sql',
      migration(
        ['CREATE TABLE rates (code String, rate Float64) ENGINE = MergeTree ORDER BY code', "INSERT INTO rates SELECT * FROM url('http://127.0.0.1:1/rates.csv', CSV, 'code String, rate Float64')"],
        ['DROP TABLE rates'],
      ),
    );
    const result = await project.run(['migrate']);
    expect(result.code, explain(result)).toBe(1);
    expect(result.stderr).toContain('error: app__0001_rates.sql:3: clickhouse (app): Connection refused — statements of migration app__0001_rates.sql that already ran: line 2: CREATE TABLE rates');
    expect(result.stderr).not.toMatch(/does not look like ClickHouse|connection was lost|KILL QUERY/);
    const { data } = await project.json(['status']);
    expect(data.databases.app.lock_active).toBe(false);
    expect(data.databases.app.migrations.map((m: { state: string }) => m.state)).toEqual(['pending']);
  }, 60_000);

  it.skipIf(!serverVersion.startsWith('18.'))('syntax of a later release (TTL) is refused with the server version named', async () => {
    const project = await app.create();
    await project.write('app__0001_visits.sql', migration(['CREATE TABLE visits (ts DateTime, code String) ENGINE = MergeTree PARTITION BY toYYYYMM(ts) ORDER BY ts TTL ts + INTERVAL 1 YEAR'], ['DROP TABLE visits']));
    const result = await project.run(['migrate']);
    expect(result.code, explain(result)).toBe(1);
    expect(result.stderr).toMatch(/error: app__0001_visits\.sql:2: clickhouse \(app\): Syntax error: .*TTL ts/);
    expect(result.stderr).toContain(`the server is ClickHouse ${serverVersion}: SQL that later releases added`);
    expect(result.stderr).toContain('no statement of migration app__0001_visits.sql had run; the tracking table is unchanged');
  }, 60_000);

  it('a statement over max_query_size gets its own hint, not the server version one', async () => {
    const project = await app.create();
    const ids = Array.from({ length: 60_000 }, (_, i) => i).join(',');
    await project.write('app__0001_t.sql', migration([clickhouse.createTable('t')], ['DROP TABLE t']));
    await project.write('app__0002_purge.sql', migration([`ALTER TABLE t DELETE WHERE id IN (${ids})`], ['SELECT 1']));
    const result = await project.run(['migrate']);
    expect(result.code, explain(result)).toBe(1);
    expect(result.stderr).toContain("The statement is longer than the server's max_query_size");
    expect(result.stderr).not.toContain('SQL that later releases added');
  }, 60_000);

  it('a misnamed file in the folder fails migrate and rollback with its name and leaves the lock free', async () => {
    const project = await app.create();
    await project.write('app__0001_t.sql', migration([clickhouse.createTable('t')], ['DROP TABLE t']));
    expect((await project.run(['migrate'])).code).toBe(0);
    await project.write('app__0002_bad name.sql', migration(['SELECT 1']));
    // The file error comes while the tracking table is read on the session: the lock's release must wait for that read.
    for (let i = 0; i < 3; i++) {
      for (const command of ['migrate', 'rollback']) {
        const result = await project.run([command]);
        expect(result.code, explain(result)).toBe(2);
        expect(result.stderr).toContain("error: app__0002_bad name.sql: the description 'bad name' may hold only");
        expect(result.stderr, explain(result)).not.toMatch(/could not release|concurrent client/);
        const lock = await project.run(['lock-status']);
        expect(lock.stdout.split('\n')[0], `${command}: ${explain(result)}`).toBe('Migration lock: INACTIVE');
      }
    }
  }, 90_000);

  it('history lists repeatables applied within one second (ClickHouse keeps whole seconds) in the order they ran', async () => {
    const project = await app.create();
    await project.write('app__0001_t.sql', migration([clickhouse.createTable('t')], ['DROP TABLE t']));
    await project.write('ROC__01_views.sql', migration(['DROP TABLE IF EXISTS t_view', 'CREATE VIEW t_view AS SELECT id FROM t']));
    await project.write('RA__02_optimize.sql', migration(['OPTIMIZE TABLE t FINAL']));
    const result = await project.run(['migrate']);
    expect(result.code, explain(result)).toBe(0);
    expect(result.stdout.indexOf('ROC__01_views.sql'), result.stdout).toBeLessThan(result.stdout.indexOf('RA__02_optimize.sql'));
    const { data } = await project.json(['history']);
    expect(data.databases.app.migrations.map((m: { filename: string }) => m.filename)).toEqual(['app__0001_t.sql', 'ROC__01_views.sql', 'RA__02_optimize.sql']);
  }, 60_000);

  it('Ctrl-C while the server takes over a second to stop the statement still reports what of the migration ran', async () => {
    const project = await app.create();
    await project.write('app__0001_first.sql', migration([clickhouse.createTable('first_t')], ['DROP TABLE first_t']));
    // Stopped only between blocks of 2 s: the run's cleanup waits that long for the server.
    await project.write('app__0002_long.sql', migration(['CREATE TABLE partial_t (n UInt64) ENGINE = MergeTree ORDER BY n', 'INSERT INTO partial_t SELECT number FROM numbers(4) WHERE sleep(2) = 0 SETTINGS max_block_size = 1'], ['DROP TABLE partial_t']));
    const run = start(project, ['migrate', '--verbose']);
    await waitFor('the long migration to start', () => run.stderr().includes('applying app__0002_long.sql'));
    await new Promise((r) => setTimeout(r, 700));
    run.child.kill('SIGINT');
    const exit = await run.exit;
    const output = `--- stdout\n${run.stdout()}\n--- stderr\n${run.stderr()}`;
    expect(exit.code, output).toBe(130);
    expect(run.stdout(), output).toContain('app (clickhouse): applied 1 migration before the failure, now at version 0001');
    expect(run.stderr(), output).toMatch(/error: app__0002_long\.sql:3: clickhouse \(app\): .*statements of migration app__0002_long\.sql that already ran: line 2: CREATE TABLE partial_t/);
    const { data } = await project.json(['status']);
    expect(data.databases.app.lock_active).toBe(false);
    expect(data.databases.app.migrations.map((m: { state: string }) => m.state)).toEqual(['applied', 'pending']);
  }, 60_000);
});

describe('a chdb project', () => {
  it('a mutation that fails as its ALTER TABLE waits for it (chdb\'s default) is reported without the engine\'s stack trace', async () => {
    const project = await TestProject.create([{ name: 'app', type: 'clickhouse', url: 'chdb:///chdata' }]);
    try {
      await project.write('app__0001_t.sql', migration(["CREATE TABLE t (id UInt32, v String) ENGINE = MergeTree ORDER BY id", "INSERT INTO t VALUES (1, 'a'), (2, 'b')"], ['DROP TABLE t']));
      await project.write('app__0002_bad.sql', migration(['ALTER TABLE t UPDATE v = toString(throwIf(id = 2)) WHERE 1'], ['SELECT 1']));
      const result = await project.run(['migrate']);
      expect(result.code, explain(result)).toBe(1);
      expect(result.stderr).toMatch(/error: app__0002_bad\.sql:2: clickhouse \(app\): Exception happened during execution of mutation .*throwIf.* mutation can be killed with KILL MUTATION query — no statement/);
      expect(result.stderr).not.toMatch(/@ 0x[0-9a-f]+/);
    } finally {
      await project.dispose();
    }
  }, 60_000);

  it('a statement that starts with `#word` (no comment on ClickHouse, which chdb skips unrun) fails its migration instead of passing for applied', async () => {
    const project = await TestProject.create([{ name: 'app', type: 'clickhouse', url: 'chdb:///chdata' }]);
    try {
      await project.write('app__0001_t.sql', migration(['CREATE TABLE t (id UInt32) ENGINE = MergeTree ORDER BY id', '#drop it again\nDROP TABLE t'], ['SELECT 1']));
      const result = await project.run(['migrate']);
      expect(result.code, explain(result)).toBe(1);
      expect(result.stderr).toContain(
        "error: app__0001_t.sql:3: clickhouse (app): the statement starts with '#drop', which ClickHouse does not read as a comment ('#' begins one only before a space or '!')",
      );
      expect(result.stderr).toContain('that already ran: line 2: CREATE TABLE t');
      const { data } = await project.json(['status']);
      expect(data.databases.app.migrations.map((m: { state: string }) => m.state)).toEqual(['pending']);
    } finally {
      await project.dispose();
    }
  }, 60_000);

  it('runs its commands without a warning about a database its URL cannot name', async () => {
    const project = await TestProject.create([{ name: 'app', type: 'clickhouse', url: 'chdb:///chdata' }]);
    try {
      await project.write('app__0001_t.sql', migration(['CREATE TABLE t (id UInt32) ENGINE = MergeTree ORDER BY id'], ['DROP TABLE t']));
      for (const command of [['migrate'], ['status'], ['history']]) {
        const result = await project.run(command);
        expect(result.code, explain(result)).toBe(0);
        expect(result.stderr, explain(result)).not.toMatch(/WARNING|names no database/);
      }
    } finally {
      await project.dispose();
    }
  }, 60_000);
});
