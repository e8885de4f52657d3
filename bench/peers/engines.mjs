// The three database engines the peer bench runs on: how to make a fresh database, drop it,
// and count what a tool left behind (so a tool that "succeeds" without applying is caught);
// for the servers, how many times they have flushed to disk so far (`syncs`), which tells a
// tool's durable work apart from this VM's noisy disk: a count does not move with the disk's speed.
// Admin work uses the Node drivers mtool already depends on; it is never inside a timed span.
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const PG_URL = process.env.MTOOL_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const MYSQL_URL = process.env.MTOOL_TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/';

/** Replace the database part of a server URL. */
function withDatabase(serverUrl, database) {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url;
}

/** @typedef {{ engine: string, name: string, url: URL, file?: string }} FreshDb */

export const postgresql = {
  id: 'postgresql',
  label: 'PostgreSQL',
  async create(name) {
    await pgAdmin(`CREATE DATABASE ${name}`);
    return { engine: 'postgresql', name, url: withDatabase(PG_URL, name) };
  },
  async drop(db) {
    await pgAdmin(`DROP DATABASE IF EXISTS ${db.name} WITH (FORCE)`);
  },
  async count(db, trackingTable) {
    const pg = (await import('pg')).default;
    const client = new pg.Client({ connectionString: db.url.href });
    await client.connect();
    try {
      const tables = await client.query(
        "SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = 'public' AND table_name LIKE 't\\_%'",
      );
      const tracked = trackingTable ? await client.query(`SELECT count(*)::int AS n FROM ${trackingTable}`) : undefined;
      return { tables: tables.rows[0].n, tracked: tracked?.rows[0].n };
    } finally {
      await client.end();
    }
  },
  /** Untimed, before a timed run: the server writes out what earlier runs left in memory. */
  async settle() {
    await pgAdmin('CHECKPOINT');
    syncDisk();
  },
  /** WAL flushes to disk so far, server-wide (pg_stat_wal, PostgreSQL 14 and later; undefined before). */
  async syncs() {
    try {
      const [row] = await pgAdmin('SELECT wal_sync::bigint::text AS n FROM pg_stat_wal');
      return Number(row.n);
    } catch {
      return undefined;
    }
  },
  server: () => new URL(PG_URL),
};

/** Run `sql` on the server's maintenance database; its rows. */
async function pgAdmin(sql) {
  const pg = (await import('pg')).default;
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}

export const mariadb = {
  id: 'mariadb',
  label: 'MariaDB',
  async create(name) {
    await mysqlAdmin(undefined, `CREATE DATABASE ${name}`);
    return { engine: 'mariadb', name, url: withDatabase(MYSQL_URL, name) };
  },
  async drop(db) {
    await mysqlAdmin(undefined, `DROP DATABASE IF EXISTS ${db.name}`);
  },
  async count(db, trackingTable) {
    const tables = await mysqlAdmin(
      db.name,
      "SELECT count(*) AS n FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name LIKE 't\\_%'",
    );
    const tracked = trackingTable ? await mysqlAdmin(db.name, `SELECT count(*) AS n FROM ${trackingTable}`) : undefined;
    return { tables: Number(tables[0].n), tracked: tracked === undefined ? undefined : Number(tracked[0].n) };
  },
  /**
   * Untimed, before a timed run: InnoDB flushes the pages earlier runs dirtied (it does so in the
   * background at its own pace, which a run that follows would otherwise share the disk with).
   */
  async settle() {
    const until = Date.now() + 20_000;
    const saved = await mysqlAdmin(undefined, 'SELECT @@innodb_max_dirty_pages_pct AS pct, @@innodb_max_dirty_pages_pct_lwm AS lwm');
    await mysqlAdmin(undefined, 'SET GLOBAL innodb_max_dirty_pages_pct_lwm = 0.001, GLOBAL innodb_max_dirty_pages_pct = 0');
    try {
      for (;;) {
        if ((await serverStatus('INNODB_BUFFER_POOL_PAGES_DIRTY')) === 0 || Date.now() > until) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    } finally {
      await mysqlAdmin(undefined, `SET GLOBAL innodb_max_dirty_pages_pct = ${Number(saved[0].pct)}, GLOBAL innodb_max_dirty_pages_pct_lwm = ${Number(saved[0].lwm)}`);
    }
    syncDisk();
  },
  /** InnoDB's fsync calls so far, server-wide (redo log and data files). */
  async syncs() {
    return serverStatus('INNODB_DATA_FSYNCS');
  },
  server: () => new URL(MYSQL_URL),
};

/** A server status counter (information_schema.GLOBAL_STATUS), undefined when the server has none of that name. */
async function serverStatus(name) {
  const [row] = await mysqlAdmin(undefined, `SELECT VARIABLE_VALUE AS n FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = '${name}'`);
  return row ? Number(row.n) : undefined;
}

/** mysql2's connection options for the MariaDB server (MTOOL_TEST_MYSQL_URL), without a database. */
export function mysqlConnectionOptions() {
  const url = new URL(MYSQL_URL);
  return {
    host: url.hostname,
    port: Number(url.port || 3306),
    user: decodeURIComponent(url.username || 'root'),
    password: decodeURIComponent(url.password),
  };
}

async function mysqlAdmin(database, sql) {
  const mysql = await import('mysql2/promise');
  const conn = await mysql.createConnection({ ...mysqlConnectionOptions(), database });
  try {
    const [rows] = await conn.query(sql);
    return rows;
  } finally {
    await conn.end();
  }
}

/** SQLite databases are files under `root`; "fresh" means a path that does not exist yet. */
export function sqlite(root) {
  const dir = join(root, 'sqlite');
  return {
    id: 'sqlite',
    label: 'SQLite',
    async create(name) {
      mkdirSync(dir, { recursive: true });
      const file = join(dir, `${name}.db`);
      rmSync(file, { force: true });
      return { engine: 'sqlite', name, url: new URL(`file://${file}`), file };
    },
    async drop(db) {
      for (const suffix of ['', '-journal', '-wal', '-shm']) rmSync(db.file + suffix, { force: true });
    },
    /** Untimed, before a timed run: the disk writes out what earlier runs left in the page cache. */
    async settle() {
      syncDisk();
    },
    async count(db, trackingTable) {
      const Database = (await import('better-sqlite3')).default;
      const conn = new Database(db.file, { readonly: true });
      try {
        const tables = conn
          .prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name LIKE 't\\_%' ESCAPE '\\'")
          .get();
        const tracked = trackingTable ? conn.prepare(`SELECT count(*) AS n FROM ${trackingTable}`).get() : undefined;
        return { tables: tables.n, tracked: tracked?.n };
      } finally {
        conn.close();
      }
    },
  };
}

/**
 * Flush the page cache to disk (the snapshot files, the databases' own files): a run must not
 * share the disk with the writeback of the run before it (file creation slows down a lot here
 * while ext4 writes back and discards).
 */
function syncDisk() {
  spawnSync('sync');
}
