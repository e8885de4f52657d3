import { hostname } from 'node:os';
import type { Connection, Dialect, Row } from '../../dialects/types.js';
import { isConnectionError, LockError } from '../../errors.js';
import { holderAdvice, holderRunsHere, inspectHolder, runningHolderWarning } from './holder-process.js';
import { lookAtHolderSession, sessionRunsTooAdvice, type HolderSession } from './holder-session.js';
import { newLockToken, tokenServerSession } from './lock-token.js';
import { lockLayoutError } from './lock-table-layout.js';
import { LOCK_TABLE } from '../fixed-tables.js';
import { toIsoUtc, type TrackingStore } from './tracking-store.js';
import type { LockHolder } from './types.js';

/** How long an append-mode (ClickHouse) acquisition waits before reading back the live rows. */
const APPEND_SETTLE_MS = 50;

/**
 * The database-level migration lock (spec: Migration lock): one row in `mtool_lock`, inserted
 * outside any migration transaction and committed before anything runs, so a process killed
 * while it runs migrations leaves it ACTIVE until `mtool unlock`. There is no expiry and no retry.
 *
 * Where the dialect names a {@link TrackingSql.lockTransaction} (SQLite), a caller may take the
 * lock `tentative`: inside a transaction holding the database's write lock, which excludes every
 * other writer, the lock table is read (a row: the lock is held, fail at once) and our row is
 * inserted and committed only by {@link confirm}; {@link release} before that rolls back. A
 * `migrate` with nothing to run thus never writes to the database, the way knex's no-op takes its
 * lock inside one transaction; the row exists for other processes only once something will run.
 */
export class MigrationLock {
  readonly #conn: Connection;
  readonly #dialect: Dialect;
  readonly #store: TrackingStore;
  #held: LockHolder | undefined;
  /** The held row is inside a transaction not yet committed (a tentative acquisition). */
  #tentative = false;
  /** The holder whose row's INSERT lost its answer with the connection: the server may have written it. */
  #lostInsert: LockHolder | undefined;

  constructor(conn: Connection, dialect: Dialect, store: TrackingStore) {
    this.#conn = conn;
    this.#dialect = dialect;
    this.#store = store;
  }

  /** The holder this process inserted, while held. */
  get held(): LockHolder | undefined {
    return this.#held;
  }

  /**
   * After {@link acquire} failed because the connection was lost during the INSERT of the lock
   * row: the holder of that row, which the server may have written (and committed) all the same.
   */
  get lostInsert(): LockHolder | undefined {
    return this.#lostInsert;
  }

  /** True while the held row is uncommitted ({@link acquire} with `tentative`, before {@link confirm}). */
  get tentative(): boolean {
    return this.#tentative;
  }

  /**
   * Take the lock or fail at once. `tentative`: where the dialect can, leave the row in an open
   * transaction that holds the database's write lock (see the class comment); elsewhere the
   * option changes nothing.
   * @throws LockError naming the holder (host, pid, command, since) and `mtool unlock`.
   */
  async acquire(command: string, options: { tentative?: boolean } = {}): Promise<LockHolder> {
    const holder: LockHolder = {
      host: hostname(),
      pid: process.pid,
      command: command.slice(0, 255),
      lockedAt: new Date().toISOString(),
      // With the server session that will run the migrations: lock-status and the lock error say
      // whether it still runs after this process is gone.
      token: newLockToken(this.#conn.serverSession),
    };
    const sql = this.#store.tracking;
    if (sql.writeMode === 'append') {
      // A live row is a holder, whatever its seq says of when it was written: fail before writing.
      await this.#failIfHeld();
      try {
        await this.#appendRow(holder, false);
        // Runs that passed the check together: the row written first (lowest seq, each above
        // every seq before it) wins.
        await new Promise((resolve) => setTimeout(resolve, APPEND_SETTLE_MS));
        const first = (await this.#liveRows())[0];
        if (first && first.token !== holder.token) throw await this.#heldError(first);
      } catch (error) {
        // Our row must not outlive a failed acquisition: release() knows nothing of it. Best
        // effort: the error that brought us here is the one to report.
        await this.#appendRow(holder, true).catch(() => undefined);
        throw error;
      }
    } else if (options.tentative === true && sql.lockTransaction !== undefined) {
      // A holder running a migration keeps the database's write lock for as long as it runs:
      // its committed row is read first, without waiting (readers are not blocked), so the
      // lock error comes at once instead of after the busy timeout as "database is locked".
      await this.#failIfHeld();
      // The database's write lock first: while it is held no other process can insert a lock
      // row, so reading that there is none is as good as inserting ours, and writes nothing (a
      // transaction that wrote a page would truncate and fsync its journal even to roll back).
      await this.#writeLock(sql.lockTransaction);
      let current: LockHolder | undefined;
      try {
        current = (await this.#liveRows())[0];
      } catch (error) {
        await this.#conn.rollback().catch(() => undefined);
        throw error;
      }
      if (current) {
        await this.#conn.rollback().catch(() => undefined);
        throw await this.#heldError(current);
      }
      this.#tentative = true;
    } else {
      if (sql.lockTransaction !== undefined) await this.#failIfHeld();
      try {
        await this.#insertRow(holder);
      } catch (error) {
        if (isConnectionError(error)) this.#lostInsert = holder;
        // A unique violation: another row came first. A busy database (SQLite): a holder may
        // have committed its row since it was read above.
        throw await this.#explained(error, sql.isUniqueViolation(error));
      }
    }
    this.#held = holder;
    return holder;
  }

  /** @throws LockError when a committed lock row is there. */
  async #failIfHeld(): Promise<void> {
    const current = (await this.#liveRows())[0];
    if (current) throw await this.#heldError(current);
  }

  /** The lock error naming `holder`, with what the server tells of its session. */
  async #heldError(holder: LockHolder | undefined, cause?: unknown): Promise<LockError> {
    const session = holder ? await lookAtHolderSession(this.#conn, this.#dialect, holder) : undefined;
    return lockHeldError(this.#conn.databaseName, holder, cause, session);
  }

  /**
   * Begin the transaction holding the database's write lock. Failing (busy past the timeout),
   * a holder that committed its row meanwhile is named rather than the bare busy error.
   */
  async #writeLock(statement: string): Promise<void> {
    try {
      await this.#conn.query(statement);
    } catch (error) {
      throw await this.#explained(error, false);
    }
  }

  /**
   * What to throw after taking the lock failed with `error`: the lock error naming the holder,
   * if a row is there now (or `held`: the error itself says the lock is held); else `error`.
   */
  async #explained(error: unknown, held: boolean): Promise<unknown> {
    const current = (await this.#liveRows().catch(() => []))[0];
    return current || held ? await this.#heldError(current, error) : error;
  }

  async #insertRow(holder: LockHolder): Promise<void> {
    const q = this.#dialect.quote;
    const sql = this.#store.tracking;
    await this.#layoutChecked(() =>
      this.#conn.query(
        `INSERT INTO ${q.ident(LOCK_TABLE)} (id, locked_at, host, pid, command, token) VALUES (1, ${sql.timestamp(q, new Date(holder.lockedAt))}, ${q.literal(holder.host)}, ${q.literal(holder.pid)}, ${q.literal(holder.command)}, ${q.literal(holder.token)})`,
      ),
    );
  }

  /** Run a statement on the lock table; failing, a table of a foreign layout is named as such ({@link lockLayoutError}). */
  async #layoutChecked<T>(statement: () => Promise<T>): Promise<T> {
    try {
      return await statement();
    } catch (error) {
      throw await lockLayoutError(this.#conn, this.#dialect, this.#store.tracking.writeMode, error);
    }
  }

  /**
   * Make a tentative acquisition visible: insert the row and commit, still under the database's
   * write lock; from now on the lock is ACTIVE for everyone (no-op otherwise).
   */
  async confirm(): Promise<void> {
    if (!this.#tentative || !this.#held) return;
    try {
      await this.#insertRow(this.#held);
      await this.#conn.commit();
    } catch (error) {
      await this.#conn.rollback().catch(() => undefined);
      this.#tentative = false;
      this.#held = undefined;
      throw error;
    }
    this.#tentative = false;
  }

  /**
   * Release the lock this process holds (no-op when not held). Only ever removes our own row; a
   * tentative acquisition (no row yet) ends with the rollback of its transaction, which must then
   * hold nothing else.
   * @returns false when our row was already gone: someone ran `mtool unlock` while we held it.
   */
  async release(): Promise<boolean> {
    const holder = this.#held;
    if (!holder) return true;
    let ours = true;
    if (this.#tentative) {
      await this.#conn.rollback();
      this.#tentative = false;
    } else {
      ours = await releaseLock(this.#conn, this.#dialect, this.#store, holder);
    }
    this.#held = undefined;
    return ours;
  }

  /** Forget the holder without touching the database (after another connection released it). */
  forget(): void {
    this.#held = undefined;
  }

  /** The current holder, or null (the lock table may not exist yet: then INACTIVE). */
  async current(): Promise<LockHolder | null> {
    if (!(await this.#store.tableExists(LOCK_TABLE))) return null;
    return (await this.#liveRows())[0] ?? null;
  }

  /**
   * `mtool unlock`: remove whatever lock row exists. The operator forces the release, so a holder
   * still running on this host does not stop it; `warn` hears of such a holder first.
   * @returns the removed holder, or null.
   */
  async forceRelease(warn?: (message: string) => void): Promise<LockHolder | null> {
    if (!(await this.#store.tableExists(LOCK_TABLE))) return null;
    const live = await this.#liveRows();
    if (live.length === 0) return null;
    for (const holder of live) {
      const session = await lookAtHolderSession(this.#conn, this.#dialect, holder);
      const warning = runningHolderWarning(holder, this.#conn.databaseName, session);
      if (warning !== undefined) warn?.(warning);
    }
    if (this.#store.tracking.writeMode === 'append') {
      for (const row of live) await this.#appendRow(row, true);
    } else {
      await this.#conn.query(`DELETE FROM ${this.#dialect.quote.ident(LOCK_TABLE)}`);
    }
    return live[0] ?? null;
  }

  async #appendRow(holder: LockHolder, deleted: boolean): Promise<void> {
    await appendLockRow(this.#conn, this.#dialect, this.#store, holder, deleted);
  }

  async #liveRows(): Promise<LockHolder[]> {
    const q = this.#dialect.quote;
    const columns = 'locked_at, host, pid, command, token';
    const sql =
      this.#store.tracking.writeMode === 'append'
        ? `SELECT ${columns}, seq FROM (SELECT ${columns}, seq, deleted FROM ${q.ident(LOCK_TABLE)} FINAL) WHERE deleted = 0 ORDER BY seq, token`
        : `SELECT ${columns} FROM ${q.ident(LOCK_TABLE)}`;
    const { rows } = await this.#layoutChecked(() => this.#conn.query(sql));
    return rows.map(toHolder);
  }
}

/**
 * Remove one holder's row; used by {@link MigrationLock.release} and by signal cleanup on a second connection.
 * @returns false when the row was no longer there (removed by `mtool unlock`); append-mode tables
 * (ClickHouse) cannot tell without another read and always say true.
 */
export async function releaseLock(conn: Connection, dialect: Dialect, store: TrackingStore, holder: LockHolder): Promise<boolean> {
  if (store.tracking.writeMode === 'append') {
    await appendLockRow(conn, dialect, store, holder, true);
    return true;
  }
  const q = dialect.quote;
  const { rowCount } = await conn.query(`DELETE FROM ${q.ident(LOCK_TABLE)} WHERE id = 1 AND token = ${q.literal(holder.token)}`);
  return rowCount > 0;
}

async function appendLockRow(conn: Connection, dialect: Dialect, store: TrackingStore, holder: LockHolder, deleted: boolean): Promise<void> {
  const q = dialect.quote;
  await conn.query(
    // Above every row's seq: a new holder's row sorts after the holders before it, and a removal
    // beats the row it removes, whatever the clocks of the hosts that wrote them.
    `INSERT INTO ${q.ident(LOCK_TABLE)} (token, locked_at, host, pid, command, seq, deleted) SELECT ${q.literal(holder.token)}, ${store.tracking.timestamp(q, new Date(holder.lockedAt))}, ${q.literal(holder.host)}, ${q.literal(holder.pid)}, ${q.literal(holder.command)}, ${store.nextSeqSql(LOCK_TABLE)}, ${q.literal(deleted ? 1 : 0)}`,
  );
}

function toHolder(row: Row): LockHolder {
  const token = String(row.token ?? '');
  const serverSession = tokenServerSession(token);
  return {
    host: String(row.host ?? ''),
    pid: Number(row.pid ?? 0),
    command: String(row.command ?? ''),
    lockedAt: toIsoUtc(row.locked_at),
    token,
    ...(serverSession !== undefined ? { serverSession } : {}),
  };
}

/** `3 s`, `4 min 12 s`, `2 h 5 min`, `3 d 4 h`. */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${s % 60} s`;
  const h = Math.floor(m / 60);
  if (h < 24) return `${h} h ${m % 60} min`;
  return `${Math.floor(h / 24)} d ${h % 24} h`;
}

/** `host 'ci-1', pid 4242, command 'migrate', since 2026-… (4 min 12 s ago)`. */
export function describeHolder(holder: LockHolder, now = Date.now()): string {
  const age = formatDuration(now - Date.parse(holder.lockedAt));
  return `host '${holder.host}', pid ${holder.pid}, command '${holder.command}', since ${holder.lockedAt} (${age} ago)`;
}

function lockHeldError(database: string, holder: LockHolder | undefined, cause?: unknown, session?: HolderSession): LockError {
  const who = holder ? `held by ${describeHolder(holder)}` : 'held (the holder row was removed while checking)';
  const found = holder ? inspectHolder(holder) : undefined;
  const state = found?.state;
  const sessionRuns = session?.running === true;
  // Said as lock-status says it: whether the holder still runs here (README: The migration lock).
  const here = holder && found ? holderRunsHere(holder, found) : undefined;
  // A holder known to be gone, or whose server session still runs while its process is not seen
  // running here, gets the advice of lock-status; else the spec's "may be running".
  const what =
    holder && (state === 'gone' || state === 'pid-reused' || (sessionRuns && state === 'elsewhere'))
      ? `${holderAdvice(holder, database, session)} Then run the command again.`
      : `Another migration may be running${here ? `: ${here}` : ''}; wait for it to finish. ` +
        `If no mtool process is running (for example it was killed), release the lock with \`mtool unlock --database ${database}\` and run the command again.` +
        (session?.running === true ? ` ${sessionRunsTooAdvice(session)}` : '');
  // No general hint under it: the message names `mtool unlock --database` where that applies, and
  // a bare `mtool unlock` would release the default database's lock, not this one's.
  return new LockError(`database '${database}': the migration lock is ${who}. ${what}`, { database, cause, hint: '' });
}
