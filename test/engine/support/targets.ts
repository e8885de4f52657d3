import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Connection, DatabaseType } from '../../../src/dialects/types.js';
import { getDialect } from '../../../src/dialects/index.js';
import { connectTo, createTestDatabase, serverStatus, type TestServer } from '../../support/databases.js';

/**
 * The databases the engine's conformance suite runs against: every type mtool supports, each
 * on its real server (MariaDB serves both `mysql` and `mariadb`; ClickHouse is the old 18.16
 * server over HTTP).
 */
export interface EngineTarget {
  /** Name in test titles. */
  id: string;
  type: DatabaseType;
  server: Exclude<TestServer, 'redis'> | undefined;
  /** DDL of a small table in this dialect. */
  createTable(name: string): string;
  /** Rows in a table. */
  countSql(name: string): string;
  /** Insert one more row into a table made by {@link createTable}, numbering it after the existing ones. */
  insertNext(name: string, label: string): string;
}

const plainTable = (name: string) => `CREATE TABLE ${name} (id integer primary key, name varchar(50))`;
const count = (name: string) => `SELECT count(*) AS n FROM ${name}`;
const insertNext = (name: string, label: string) => `INSERT INTO ${name} (id, name) SELECT count(*) + 1, '${label}' FROM ${name}`;

export const TARGETS: readonly EngineTarget[] = [
  { id: 'postgresql', type: 'postgresql', server: 'postgresql', createTable: plainTable, countSql: count, insertNext },
  { id: 'mysql', type: 'mysql', server: 'mysql', createTable: plainTable, countSql: count, insertNext },
  { id: 'mariadb', type: 'mariadb', server: 'mysql', createTable: plainTable, countSql: count, insertNext },
  { id: 'sqlite', type: 'sqlite', server: undefined, createTable: plainTable, countSql: count, insertNext },
  {
    id: 'clickhouse-18.16',
    type: 'clickhouse',
    server: 'clickhouse',
    createTable: (name) => `CREATE TABLE ${name} (id UInt32, name String) ENGINE = MergeTree ORDER BY id`,
    countSql: count,
    insertNext: (name, label) => `INSERT INTO ${name} (id, name) SELECT toUInt32(count() + 1), '${label}' FROM ${name}`,
  },
];

/** Whether the target's server is up (skips loudly, or fails under CI=true, through serverStatus). */
export async function targetReachable(target: EngineTarget): Promise<boolean> {
  return target.server === undefined ? true : (await serverStatus(target.server)).reachable;
}

export interface ProvisionedDatabase {
  url: string;
  drop(): Promise<void>;
}

/** A fresh, empty database for one test: a random database on the server, or a SQLite file in a temp folder. */
export async function provision(target: EngineTarget): Promise<ProvisionedDatabase> {
  if (target.server === undefined) {
    const dir = await mkdtemp(join(tmpdir(), 'mtool-engine-sqlite-'));
    return { url: `sqlite:///${join(dir, 'db.sqlite3')}`, drop: () => rm(dir, { recursive: true, force: true }) };
  }
  const db = await createTestDatabase(target.server);
  return { url: db.url, drop: () => db.drop() };
}

/** Run one query on the database (a fresh connection, closed after). */
export async function queryOnce(target: EngineTarget, url: string, sql: string): Promise<Record<string, unknown>[]> {
  const conn = await connectTo(target.type, url);
  try {
    return (await conn.query(sql)).rows;
  } finally {
    await conn.close();
  }
}

/** Number of rows of a table. */
export async function rowCount(target: EngineTarget, url: string, table: string): Promise<number> {
  const rows = await queryOnce(target, url, target.countSql(table));
  return Number(Object.values(rows[0] ?? {})[0]);
}

/** Whether a table exists, asked the way the engine asks. */
export async function tableExists(type: DatabaseType, conn: Connection, table: string): Promise<boolean> {
  const dialect = getDialect(type);
  const tracking = await dialect.tracking();
  return (await conn.query(tracking.existingTables(dialect.quote, [table]))).rows.length > 0;
}

/** {@link tableExists} over a fresh connection. */
export async function tableExistsAt(target: EngineTarget, url: string, table: string): Promise<boolean> {
  const conn = await connectTo(target.type, url);
  try {
    return await tableExists(target.type, conn, table);
  } finally {
    await conn.close();
  }
}
