import { existsSync } from 'node:fs';
import { describe, it } from 'vitest';
import { roundTrip } from './round-trip.js';

const hasChdb = existsSync(new URL('../../node_modules/chdb/package.json', import.meta.url));
if (!hasChdb) console.warn('\n!!! SKIPPING chdb round trip: the chdb package is not installed\n');

/** What the 18.16 server lacks and current ClickHouse (chdb, in process) has: TTL, projections, skip indexes, LowCardinality, Decimal, dictionaries. */
const SCHEMA = `
CREATE TABLE events (
  id UInt64,
  ts DateTime,
  day Date,
  user_id Int64,
  name String,
  kind LowCardinality(String),
  status Enum8('new' = 1, 'done' = 2),
  score Nullable(Float64),
  amount Decimal(18, 4),
  flag UInt8 DEFAULT 1,
  INDEX idx_name name TYPE bloom_filter(0.01) GRANULARITY 4,
  PROJECTION p_user (SELECT user_id, count() GROUP BY user_id)
) ENGINE = MergeTree() PARTITION BY toYYYYMM(day) ORDER BY (day, id) TTL ts + toIntervalDay(30) SETTINGS index_granularity = 8192;
CREATE TABLE totals (day Date, n UInt64) ENGINE = SummingMergeTree() ORDER BY day;
CREATE MATERIALIZED VIEW totals_mv TO totals AS SELECT day, count() AS n FROM events GROUP BY day;
CREATE TABLE countries (code String, name String) ENGINE = MergeTree() ORDER BY code;
CREATE DICTIONARY country_names (code String, name String) PRIMARY KEY code SOURCE(CLICKHOUSE(TABLE 'countries')) LAYOUT(COMPLEX_KEY_HASHED()) LIFETIME(MIN 0 MAX 300);
`;

describe.skipIf(!hasChdb)('clickhouse via chdb (current ClickHouse in process): the schema commands round trip', () => {
  it('round-trips TTL, projections, skip indexes, LowCardinality, Decimal, a materialized view and a dictionary', async () => {
    await roundTrip({ type: 'clickhouse', url: 'chdb:///data', emptyUrl: 'chdb:///data', schema: SCHEMA, objects: ['countries', 'country_names', 'events', 'totals', 'totals_mv'], flags: ['--clickhouse-engines'] });
  }, 240_000);
});
