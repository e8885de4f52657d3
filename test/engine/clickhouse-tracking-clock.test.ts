import { afterEach, describe, expect, it, vi } from 'vitest';
import { clickhouseDialect } from '../../src/dialects/clickhouse/dialect.js';
import type { Connection } from '../../src/dialects/types.js';
import { LockError } from '../../src/errors.js';
import { MigrationLock } from '../../src/main/engine/migration-lock.js';
import { TrackingStore } from '../../src/main/engine/tracking-store.js';
import type { MigrationRecord } from '../../src/main/engine/types.js';
import { connectTo, createTestDatabase, serverStatus, type TestDatabase } from '../support/databases.js';

/**
 * ClickHouse's tracking and lock tables keep each row's newest state as the one with the highest
 * `seq` (ReplacingMergeTree read with FINAL). Hosts' clocks differ: a change written from a host
 * whose clock is behind must still beat the state it changes, and a lock held from a host whose
 * clock is ahead must still hold. Each process here plays a host by its clock (only `Date` is
 * faked; the databases are real): against the 18.16 server over HTTP and a current ClickHouse in
 * process (chdb).
 */
const ch = await serverStatus('clickhouse');
const HOUR = 3_600_000;

const record: MigrationRecord = {
  filename: 'app__0001_a.sql',
  version: '0001',
  checksum: 'a'.repeat(64),
  type: 'versioned',
  description: 'a',
  appliedAt: '2026-11-21T08:30:00.000Z',
  executionMs: 12,
  appliedBy: 'me@host',
};

interface Host {
  conn: Connection;
  store: TrackingStore;
  lock: MigrationLock;
}

const ENGINES = [
  { label: 'clickhouse 18.16 over HTTP', skip: !ch.reachable, server: true },
  { label: 'clickhouse in process (chdb)', skip: false, server: false },
];

for (const engine of ENGINES) {
  describe.skipIf(engine.skip)(`tracking rows and the lock on ${engine.label}, with clocks that differ between hosts`, () => {
    let db: TestDatabase | undefined;
    let url = '';
    const conns: Connection[] = [];
    afterEach(async () => {
      vi.useRealTimers();
      for (const c of conns.splice(0)) await c.close();
      await db?.drop();
      db = undefined;
      url = '';
    });

    async function host(wrap: (conn: Connection) => Connection = (c) => c): Promise<Host> {
      if (!url) {
        if (engine.server) {
          db = await createTestDatabase('clickhouse');
          url = db.url;
        } else {
          url = 'chdb://:memory:';
        }
      }
      const raw = await connectTo('clickhouse', url, { databaseName: 'app' });
      conns.push(raw);
      const conn = wrap(raw);
      const store = new TrackingStore(conn, clickhouseDialect, await clickhouseDialect.tracking(), '_mtool_migrations');
      await store.ensureTables();
      return { conn, store, lock: new MigrationLock(conn, clickhouseDialect, store) };
    }

    /** From now on, this process's clock reads `offset` ms from the real time. */
    function clockOff(offset: number): void {
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(Date.now() + offset);
    }

    it('a rollback from a host whose clock is behind removes the record', async () => {
      const a = await host();
      await a.store.insert(record);
      clockOff(-HOUR);
      const b = await host();
      await b.conn.query(b.store.removeStatement(record));
      expect(await a.store.records()).toEqual([]);
    });

    it('a re-applied repeatable recorded from a host whose clock is behind shows its new checksum', async () => {
      const a = await host();
      const repeatable: MigrationRecord = { ...record, filename: 'RA__views.sql', version: null, type: 'repeatable_always' };
      await a.store.insert(repeatable);
      clockOff(-HOUR);
      const b = await host();
      await b.conn.query(b.store.updateStatement({ ...repeatable, checksum: 'b'.repeat(64) }));
      expect((await a.store.records()).map((r) => r.checksum)).toEqual(['b'.repeat(64)]);
    });

    it('unlock from a host whose clock is behind releases the lock', async () => {
      const a = await host();
      const holder = await a.lock.acquire('migrate');
      clockOff(-HOUR);
      const b = await host();
      expect((await b.lock.forceRelease())?.token).toBe(holder.token);
      expect(await b.lock.current()).toBeNull();
      expect(await a.lock.current()).toBeNull();
    });

    it('a lock held from a host whose clock is ahead stops a migrate from a host with the right clock', async () => {
      clockOff(HOUR);
      const a = await host();
      const holder = await a.lock.acquire('migrate');
      vi.useRealTimers();
      const b = await host();
      const error = await b.lock.acquire('migrate').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(LockError);
      expect(b.lock.held).toBeUndefined();
      expect((await b.lock.current())?.token).toBe(holder.token);
    });

    it('the holder releases its lock, and takes it again, whatever the clock of the host before it', async () => {
      clockOff(HOUR);
      const a = await host();
      await a.lock.acquire('migrate');
      await a.lock.release();
      vi.useRealTimers();
      const b = await host();
      await b.lock.acquire('migrate');
      expect((await a.lock.current())?.token).toBe(b.lock.held?.token);
      await b.lock.release();
      expect(await a.lock.current()).toBeNull();
    });

    it('an acquisition that fails after inserting its row leaves no live row behind', async () => {
      let inserted = false;
      // The read of the live rows after our insert fails (a network error, say): the row must go.
      const failing = (conn: Connection): Connection => ({
        ...conn,
        type: conn.type,
        databaseName: conn.databaseName,
        query: async (sql) => {
          if (/^INSERT INTO `mtool_lock`/.test(sql)) inserted = true;
          else if (inserted && /FROM `mtool_lock` FINAL/.test(sql)) throw new Error('the read failed');
          return conn.query(sql);
        },
        begin: () => conn.begin(),
        commit: () => conn.commit(),
        rollback: () => conn.rollback(),
        serverVersion: () => conn.serverVersion(),
        close: () => conn.close(),
      });
      const a = await host(failing);
      await expect(a.lock.acquire('migrate')).rejects.toThrow('the read failed');
      expect(a.lock.held).toBeUndefined();
      const b = await host();
      expect(await b.lock.current()).toBeNull();
      await b.lock.acquire('migrate');
      await b.lock.release();
    });
  });
}
