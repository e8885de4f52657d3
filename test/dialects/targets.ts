/**
 * Every way mtool reaches a database, as the shared dialect suite loops over them:
 * PostgreSQL; `mysql` and `mariadb` both against the MariaDB server; SQLite on a file and in
 * memory; ClickHouse 18.16 over HTTP and a current ClickHouse in process (chdb).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DatabaseType } from '../../src/dialects/types.js';
import { createTestDatabase, serverStatus, type TestServer } from '../support/databases.js';

export interface OpenedTarget {
  url: string;
  root: string;
  cleanup(): Promise<void>;
}

export interface Target {
  label: string;
  type: DatabaseType;
  /** Server it needs, if any (checked before the suite runs). */
  server?: Exclude<TestServer, 'redis'>;
  /** Create a fresh, empty database for one describe block. */
  open(): Promise<OpenedTarget>;
}

function onServer(label: string, type: DatabaseType, server: Exclude<TestServer, 'redis'>): Target {
  return {
    label,
    type,
    server,
    async open() {
      const db = await createTestDatabase(server);
      return { url: db.url, root: tmpdir(), cleanup: () => db.drop() };
    },
  };
}

export const TARGETS: Target[] = [
  onServer('postgresql', 'postgresql', 'postgresql'),
  onServer('mysql (MariaDB server)', 'mysql', 'mysql'),
  onServer('mariadb', 'mariadb', 'mysql'),
  {
    label: 'sqlite file',
    type: 'sqlite',
    async open() {
      const root = await mkdtemp(join(tmpdir(), 'mtool-sqlite-'));
      return { url: 'sqlite:///test.db', root, cleanup: () => rm(root, { recursive: true, force: true }) };
    },
  },
  {
    label: 'sqlite :memory:',
    type: 'sqlite',
    async open() {
      return { url: 'sqlite:///:memory:', root: tmpdir(), cleanup: async () => undefined };
    },
  },
  onServer('clickhouse 18.16 over HTTP', 'clickhouse', 'clickhouse'),
  {
    label: 'clickhouse via chdb',
    type: 'clickhouse',
    async open() {
      const root = await mkdtemp(join(tmpdir(), 'mtool-chdb-'));
      return { url: 'chdb:///data', root, cleanup: () => rm(root, { recursive: true, force: true }) };
    },
  },
];

/** Whether a target can run here (its server answers); logs loudly and fails under CI=true otherwise. */
export async function available(target: Target): Promise<boolean> {
  return target.server ? (await serverStatus(target.server)).reachable : true;
}
