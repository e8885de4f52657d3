import type { DatabaseType, Quoting } from '../../dialects/types.js';
import { MtoolError } from '../../errors.js';
import type { DatabaseSession } from '../engine/database-session.js';
import { toIsoUtc } from '../engine/tracking-store.js';
import { canonicalJson, sha256Hex } from '../../schema/canonical-json.js';
import { MODEL_STATE_TABLE } from '../fixed-tables.js';
import type { ModelStateEntry } from './model-state-file.js';

/** One stored row. */
export interface StoredModelState {
  databaseName: string;
  /** Checksum of the schema (as in `.mtool/model_state.json`). */
  checksum: string;
  entry: ModelStateEntry;
  /** `canonicalJson(entry.schema)`, which the checksum was verified against (for `putModelStateEntry`). */
  schemaText: string;
  /** ISO 8601 UTC, as far as the column's precision keeps it. */
  updatedAt: string;
}

/**
 * `CREATE TABLE` of the model state table. `state` holds the entry of `.mtool/model_state.json`
 * as compact JSON; restoring re-serializes it canonically, so the file bytes come back identical.
 * ClickHouse has no unique keys or in-place updates: a ReplacingMergeTree keyed by database name,
 * versioned by `version` (epoch milliseconds); readers take the highest version.
 */
function createTable(type: DatabaseType, q: Quoting): string {
  const t = q.ident(MODEL_STATE_TABLE);
  switch (type) {
    case 'postgresql':
      return `CREATE TABLE IF NOT EXISTS ${t} (database_name varchar(255) PRIMARY KEY, checksum char(64) NOT NULL, state text NOT NULL, updated_at timestamptz NOT NULL)`;
    case 'mysql':
    case 'mariadb':
      return `CREATE TABLE IF NOT EXISTS ${t} (database_name varchar(255) NOT NULL PRIMARY KEY, checksum char(64) NOT NULL, state longtext NOT NULL, updated_at datetime(6) NOT NULL) DEFAULT CHARSET=utf8mb4`;
    case 'sqlite':
      return `CREATE TABLE IF NOT EXISTS ${t} (database_name TEXT PRIMARY KEY, checksum TEXT NOT NULL, state TEXT NOT NULL, updated_at TEXT NOT NULL)`;
    case 'clickhouse':
      return `CREATE TABLE IF NOT EXISTS ${t} (database_name String, checksum String, state String, updated_at DateTime, version UInt64) ENGINE = ReplacingMergeTree(version) ORDER BY database_name`;
  }
}

function upsert(type: DatabaseType, q: Quoting, row: { name: string; checksum: string; state: string; at: string; version: number }): string {
  const t = q.ident(MODEL_STATE_TABLE);
  const values = `${q.literal(row.name)}, ${q.literal(row.checksum)}, ${q.literal(row.state)}, ${row.at}`;
  switch (type) {
    case 'postgresql':
    case 'sqlite':
      return `INSERT INTO ${t} (database_name, checksum, state, updated_at) VALUES (${values}) ON CONFLICT (database_name) DO UPDATE SET checksum = excluded.checksum, state = excluded.state, updated_at = excluded.updated_at`;
    case 'mysql':
    case 'mariadb':
      return `INSERT INTO ${t} (database_name, checksum, state, updated_at) VALUES (${values}) ON DUPLICATE KEY UPDATE checksum = VALUES(checksum), state = VALUES(state), updated_at = VALUES(updated_at)`;
    case 'clickhouse':
      return `INSERT INTO ${t} (database_name, checksum, state, updated_at, version) VALUES (${values}, ${row.version})`;
  }
}

/**
 * Store one database's model state entry in its own database (creating the table when missing).
 * @example await storeModelState(session, entry)
 */
export async function storeModelState(session: DatabaseSession, entry: ModelStateEntry): Promise<void> {
  const { conn, dialect } = session;
  const tracking = await dialect.tracking();
  await session.store.ensureTable(MODEL_STATE_TABLE, [createTable(conn.type, dialect.quote)]);
  const now = new Date();
  await conn.query(
    upsert(conn.type, dialect.quote, {
      name: session.entry.name,
      checksum: entry.checksum,
      // Key order does not matter here: recover-model-state writes the file canonically again.
      state: JSON.stringify(entry),
      at: tracking.timestamp(dialect.quote, now),
      version: now.getTime(),
    }),
  );
}

/**
 * The model state stored in the database for `session.entry`, or undefined when none was stored
 * (no table or no row). A row whose JSON or checksum is damaged is an `MTOOL_SNAPSHOT` error.
 */
export async function loadModelState(session: DatabaseSession): Promise<StoredModelState | undefined> {
  const { conn, dialect, entry } = session;
  if (!(await session.store.tableExists(MODEL_STATE_TABLE))) return undefined;
  const q = dialect.quote;
  const order = conn.type === 'clickhouse' ? ' ORDER BY version DESC LIMIT 1' : '';
  const result = await conn.query(`SELECT database_name, checksum, state, updated_at FROM ${q.ident(MODEL_STATE_TABLE)} WHERE database_name = ${q.literal(entry.name)}${order}`);
  const row = result.rows[0];
  if (!row) return undefined;
  const where = `the model state stored in database '${entry.name}' (table ${MODEL_STATE_TABLE})`;
  let parsed: ModelStateEntry;
  try {
    parsed = JSON.parse(String(row.state)) as ModelStateEntry;
  } catch (error) {
    throw new MtoolError('MTOOL_SNAPSHOT', `${where} is not valid JSON; run \`mtool export-models --database ${entry.name}\` to store it again`, { database: entry.name, cause: error });
  }
  const checksum = String(row.checksum).trim();
  const schemaText = parsed?.schema ? canonicalJson(parsed.schema) : undefined;
  if (schemaText === undefined || sha256Hex(schemaText) !== checksum || parsed.checksum !== checksum) {
    throw new MtoolError('MTOOL_SNAPSHOT', `${where} does not match its checksum; run \`mtool export-models --database ${entry.name}\` to store it again`, { database: entry.name });
  }
  return { databaseName: entry.name, checksum, entry: parsed, schemaText, updatedAt: toIsoUtc(row.updated_at) };
}
