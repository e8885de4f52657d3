import { afterAll, beforeAll, describe, it } from 'vitest';
import { createTestDatabase, serverStatus, type TestDatabase } from '../support/databases.js';
import { roundTrip } from './round-trip.js';

const ch = await serverStatus('clickhouse');

/** What the ClickHouse 18.16 server supports: MergeTree family, Nullable, Enum8, partitions, a TO materialized view. */
const SCHEMA = `
CREATE TABLE events (
  id UInt64,
  ts DateTime,
  day Date,
  user_id Int64,
  name String,
  status Enum8('new' = 1, 'done' = 2),
  score Nullable(Float64),
  small Int16 DEFAULT -1,
  ratio Float32,
  flag UInt8 DEFAULT 1,
  label String DEFAULT 'none'
) ENGINE = MergeTree() PARTITION BY toYYYYMM(day) ORDER BY (day, id) SETTINGS index_granularity = 8192;
CREATE TABLE totals (day Date, n UInt64) ENGINE = SummingMergeTree() ORDER BY day;
CREATE MATERIALIZED VIEW totals_mv TO totals AS SELECT day, count() AS n FROM events GROUP BY day;
`;

describe.skipIf(!ch.reachable)('clickhouse (18.16 over HTTP): migrate, generate-models, tsc, export-models, check-db --out sql, recover-model-state', () => {
  const dbs: TestDatabase[] = [];
  beforeAll(async () => {
    for (let i = 0; i < 2; i++) dbs.push(await createTestDatabase('clickhouse'));
  });
  afterAll(async () => {
    for (const db of dbs) await db.drop();
  });

  it('round-trips MergeTree tables and a materialized view with --clickhouse-engines', async () => {
    await roundTrip({ type: 'clickhouse', url: dbs[0]!.url, emptyUrl: dbs[1]!.url, schema: SCHEMA, objects: ['events', 'totals', 'totals_mv'], flags: ['--clickhouse-engines'] });
  }, 180_000);
});
