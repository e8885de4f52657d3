import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MtoolError } from '../../errors.js';
import { importDriver } from '../import-driver.js';
import type { QueryResult } from '../types.js';
import { ChdbFolderBusyError, otherHolderOf } from './chdb-folder.js';
import type { ChdbTarget } from './chdb-url.js';
import { askToStop, SentStatement, stopStatement, type SideQuery, type StopOptions } from './stop-statement.js';
import { rowsFromJson, type ClickHouseTransport } from './transport.js';

type ChdbModule = typeof import('chdb');
type ChdbSession = InstanceType<ChdbModule['Session']>;

/**
 * libchdb binds one data folder per process: sessions on the same folder coexist, a session
 * on another folder would close theirs. So the open folder is tracked here, with how many
 * connections use it; opening a different folder while it is in use is refused.
 */
interface Slot {
  /** The folder as asked for (`:memory:` or an absolute path). */
  readonly key: string;
  /** The folder on disk. */
  readonly dir: string;
  readonly temporary: boolean;
  users: number;
}
let slot: Slot | undefined;
/** Serialises slot changes: two connects racing must not both create a temporary folder. */
let slotLock: Promise<unknown> = Promise.resolve();

/**
 * Open an in-process ClickHouse session with the `chdb` package (a current ClickHouse
 * engine: new error format, Bool, no server to run). JSON output keeps 64-bit integers quoted,
 * as the HTTP transport does, so both give the same row shapes.
 */
export async function openChdbTransport(target: ChdbTarget): Promise<{ transport: ClickHouseTransport; version: string }> {
  const chdb = await importDriver('chdb', 'clickhouse (chdb://)', () => import('chdb'));
  const dir = await acquire(chdb, target.path);
  let session: ChdbSession;
  try {
    session = await openSession(chdb, dir, target.path === ':memory:');
  } catch (e) {
    await release(chdb);
    throw e;
  }
  const transport = new ChdbTransport(chdb, session, dir);
  try {
    await transport.exec(QUOTE_64BIT);
    const probe = await transport.exec('SELECT version() AS version');
    return { transport, version: String(probe.rows[0]?.version ?? '') };
  } catch (e) {
    await transport.close();
    throw e;
  }
}

/**
 * A session on `dir`, refused with {@link ChdbFolderBusyError} when another process's engine
 * holds the folder: asked first, so the engine's raw lock error never reaches stderr, and again
 * after a failure, for a process that took the folder in between.
 */
async function openSession(chdb: ChdbModule, dir: string, temporary: boolean): Promise<ChdbSession> {
  // A temporary folder is this process's own.
  const holder = temporary ? undefined : await otherHolderOf(dir);
  if (holder !== undefined) throw new ChdbFolderBusyError(dir, holder);
  try {
    return new chdb.Session(dir);
  } catch (e) {
    const late = temporary ? undefined : await otherHolderOf(dir);
    throw late === undefined ? e : new ChdbFolderBusyError(dir, late);
  }
}

function locked<T>(work: () => Promise<T>): Promise<T> {
  const run = slotLock.then(work, work);
  slotLock = run.catch(() => undefined);
  return run;
}

function acquire(chdb: ChdbModule, path: string): Promise<string> {
  return locked(async () => {
    if (slot && slot.key !== path) {
      if (slot.users > 0) {
        throw new MtoolError(
          'MTOOL_CONNECTION',
          `clickhouse (chdb://): chdb holds one data folder per process and '${slot.key}' is in use; close its connections before opening '${path}'`,
        );
      }
      await chdb.drainPending();
      if (slot.temporary) await rm(slot.dir, { recursive: true, force: true });
      slot = undefined;
    }
    if (!slot) {
      const temporary = path === ':memory:';
      slot = { key: path, dir: temporary ? await mkdtemp(join(tmpdir(), 'mtool-chdb-')) : path, temporary, users: 0 };
    }
    slot.users += 1;
    return slot.dir;
  });
}

function release(chdb: ChdbModule): Promise<void> {
  return locked(async () => {
    if (!slot) return;
    slot.users -= 1;
    if (slot.users > 0) return;
    // Like SQLite's :memory:, a temporary folder goes with its last connection.
    const done = slot;
    slot = undefined;
    await chdb.drainPending();
    if (done.temporary) await rm(done.dir, { recursive: true, force: true });
  });
}

/** Each session's first statement: 64-bit integers quoted in JSON, as the HTTP transport has them. */
const QUOTE_64BIT = 'SET output_format_json_quote_64bit_integers = 1';

/**
 * Stopping a statement in process: `KILL QUERY` from a second session on the same folder (sessions
 * on one folder share the engine and its process list). ASYNC: chdb keeps a killed statement's
 * process-list entry until its session's next statement, so a SYNC KILL would wait for that;
 * the statement's answer (QUERY_WAS_CANCELLED, or its result if it ended first) says it is over.
 * An answer is never lost in process, and a statement ends at the latest with this process.
 */
const STOP: Omit<StopOptions, 'what'> = { sync: false, processList: false };

class ChdbTransport implements ClickHouseTransport {
  readonly #chdb: ChdbModule;
  #session: ChdbSession | undefined;
  /** The data folder, for a new session on it. */
  readonly #dir: string;
  /**
   * The last statement sent. chdb has no query_id to give a statement: a second session finds it
   * in system.processes by the MD5 of its text, which the engine keeps as it was sent.
   */
  #last: SentStatement | undefined;

  constructor(chdb: ChdbModule, session: ChdbSession, dir: string) {
    this.#chdb = chdb;
    this.#session = session;
    this.#dir = dir;
  }

  /** A new session on the same folder (opened in well under a millisecond once the engine runs), the old one closed. */
  async renewSession(): Promise<void> {
    const old = this.#session;
    if (!old) return;
    const fresh = new this.#chdb.Session(this.#dir);
    try {
      await fresh.queryAsync(QUOTE_64BIT, { format: 'JSON' });
    } catch (e) {
      fresh.close();
      throw e;
    }
    this.#session = fresh;
    old.close();
  }

  async exec(sql: string): Promise<QueryResult> {
    if (!this.#session) throw new MtoolError('MTOOL_INTERNAL', 'clickhouse (chdb://): query on a closed connection');
    const result = this.#session.queryAsync(sql, { format: 'JSON' });
    const match = (): string => `hex(MD5(query)) = '${createHash('md5').update(sql, 'utf8').digest('hex').toUpperCase()}'`;
    this.#last = new SentStatement(match, result, () => true);
    return { rows: rowsFromJson((await result).text()), rowCount: 0 };
  }

  async cancel(): Promise<void> {
    const last = this.#last;
    if (!last || last.settled) return;
    await this.#aside((side) => askToStop(side, last, { ...STOP, what: 'the running statement' }));
  }

  async terminate(): Promise<void> {
    const last = this.#last;
    if (!last || last.settled) return;
    await this.#aside((side) => stopStatement(side, last, { ...STOP, what: 'the running statement' }));
  }

  /** Run `act` with a second session on the folder, closed after. */
  async #aside(act: (side: SideQuery) => Promise<void>): Promise<void> {
    const session = new this.#chdb.Session(this.#dir);
    try {
      await act(async (sql, signal) => ({ rows: rowsFromJson((await session.queryAsync(sql, { format: 'JSON', signal })).text()), rowCount: 0 }));
    } finally {
      session.close();
    }
  }

  async close(): Promise<void> {
    const session = this.#session;
    if (!session) return;
    this.#session = undefined;
    session.close();
    await release(this.#chdb);
  }
}
