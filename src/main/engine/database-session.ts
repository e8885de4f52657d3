import { existsSync } from 'node:fs';
import { hostname, userInfo } from 'node:os';
import { dirname } from 'node:path';
import { performance } from 'node:perf_hooks';
import { getDialect } from '../../dialects/index.js';
import type { ConnectOptions, Connection, Dialect } from '../../dialects/types.js';
import { interruptedError, isConnectionError, MtoolError } from '../../errors.js';
import { parseConnectionUrl } from '../../net/connection-url.js';
import type { DatabaseEntry } from '../config/types.js';
import { quotedPath } from '../fs/quoted-path.js';
import type { Logger } from '../log.js';
import { formatMs } from './format-ms.js';
import { MigrationLock, releaseLock } from './migration-lock.js';
import { tracedConnection } from './traced-connection.js';
import { TrackingStore } from './tracking-store.js';
import type { LockHolder } from './types.js';

/** The parts of the CLI's run context the engine uses: Ctrl-C / SIGTERM and cleanup hooks. */
export interface EngineRunContext {
  readonly signal: AbortSignal;
  onCleanup(cleanup: () => void | Promise<void>): () => void;
  /** Told of each lock taken, so an exit that cuts cleanup short can name the ones left held. */
  trackLock?(database: string, held: () => boolean): () => void;
}

/** How long a signal cleanup waits for the run to stop on its own before releasing the lock from a second connection. */
const SIGNAL_GRACE_MS = 1500;
/** How long, once the server could not be asked to stop a statement, the run may take to end and release the lock itself. */
const UNSTOPPABLE_GRACE_MS = 500;

/** One open connection to one configured database, with its tracking store and lock. */
export interface DatabaseSession {
  entry: DatabaseEntry;
  dialect: Dialect;
  conn: Connection;
  store: TrackingStore;
  lock: MigrationLock;
  log: Logger;
  connectOptions: ConnectOptions;
}

/** `user@host` for `applied_by`. */
export function appliedBy(): string {
  let user: string;
  try {
    user = userInfo().username;
  } catch {
    // No passwd entry for the uid (common in containers).
    user = process.env.USER ?? process.env.LOGNAME ?? String(process.getuid?.() ?? 'unknown');
  }
  return `${user}@${hostname()}`.slice(0, 255);
}

/**
 * Open a session, run `fn`, and close the connection whatever happens. Connection failures keep
 * their `MTOOL_CONNECTION` code so multi-database runs can skip optional databases.
 */
export async function withSession<T>(
  entry: DatabaseEntry,
  root: string,
  log: Logger,
  fn: (session: DatabaseSession) => Promise<T>,
  options: { readOnly?: boolean; requireFile?: boolean } = {},
): Promise<T> {
  const dialect = getDialect(entry.type);
  const connecting = dialect.connect({ databaseName: entry.name, url: entry.url, pgSchema: entry.pgSchema, root, readOnly: options.readOnly });
  connecting.catch(() => undefined); // awaited below
  let tracking: Awaited<ReturnType<typeof dialect.tracking>>;
  try {
    tracking = await dialect.tracking();
  } catch (error) {
    // Not left open behind the failure.
    await connecting.then((c) => c.close()).catch(() => undefined);
    throw error;
  }
  const raw = await connecting;
  const dbLog = log.child({ db_name: entry.name, db_type: entry.type });
  if (raw.absentFile !== undefined) {
    const file = quotedPath(raw.absentFile);
    // `mtool migrate` creates the file, not its folder: where that is missing too, migrate would fail.
    const folder = dirname(raw.absentFile);
    const noFolder = !existsSync(folder);
    if (options.requireFile) {
      await raw.close().catch(() => undefined);
      throw new MtoolError(
        'MTOOL_CONNECTION',
        noFolder
          ? `sqlite (${entry.name}): the database file ${file} does not exist, nor does its folder ${quotedPath(folder)}; check databaseUrl in the configuration, or create the folder and run \`mtool migrate\` to create the file`
          : `sqlite (${entry.name}): the database file ${file} does not exist; check databaseUrl in the configuration, or run \`mtool migrate\` to create it`,
        { database: entry.name, hint: '' },
      );
    }
    dbLog.warn(
      noFolder
        ? `the database file ${file} does not exist (yet), nor does its folder ${quotedPath(folder)}: read as an empty database, nothing applied; check databaseUrl, or create the folder (\`mtool migrate\` creates the file, not its folder)`
        : `the database file ${file} does not exist (yet): read as an empty database, nothing applied; \`mtool migrate\` creates it`,
    );
  }
  const memory = inProcessMemory(entry);
  if (memory !== undefined) {
    dbLog.warn(
      `the database is in memory (${memory.url}): it lasts only as long as this command, so every command starts from an empty database and what this one applies is gone when it ends; give databaseUrl ${memory.keep} to keep it`,
    );
  }
  const conn = tracedConnection(raw, dbLog);
  const store = new TrackingStore(conn, dialect, tracking, entry.migrationTable);
  const session: DatabaseSession = {
    entry,
    dialect,
    conn,
    store,
    lock: new MigrationLock(conn, dialect, store),
    log: dbLog,
    connectOptions: { databaseName: entry.name, url: entry.url, pgSchema: entry.pgSchema, root },
  };
  try {
    return await fn(session);
  } finally {
    try {
      await raw.close();
    } catch (error) {
      dbLog.debug('closing the connection failed', { error });
    }
  }
}

/**
 * An in-process database that goes with the connection (SQLite `:memory:`, also a SQLite URL with
 * no path; chdb `:memory:`): what to call it and how to keep it instead. Undefined for the rest.
 */
function inProcessMemory(entry: DatabaseEntry): { url: string; keep: string } | undefined {
  if (entry.type !== 'sqlite' && entry.type !== 'clickhouse') return undefined;
  const url = parseConnectionUrl(entry.url, entry.type, entry.name);
  if (url.scheme === 'chdb') return url.chdbPath === ':memory:' ? { url: 'chdb://:memory:', keep: 'a data folder (chdb:///data/clickhouse)' } : undefined;
  if (url.type === 'sqlite' && (url.sqlitePath ?? ':memory:') === ':memory:') return { url: 'sqlite:///:memory:', keep: 'a file path (sqlite:///app.db)' };
  return undefined;
}

export interface WithLockOptions {
  /**
   * Called under the lock before `fn`: true when `fn` will not write anything (a `migrate` with
   * nothing to run). Where the dialect can (SQLite, {@link MigrationLock}), the lock is then taken
   * tentatively and never committed: `fn` runs inside the lock's transaction, which is rolled back,
   * so a no-op costs no commit. False: the lock row is committed before `fn` runs, as always.
   */
  readOnly?: () => Promise<boolean>;
}

/**
 * Spec migrate rule 1: ensure the tracking tables, take the lock (failing at once when held),
 * run `fn`, release the lock on every exit path. On Ctrl-C / SIGTERM the run is asked to stop
 * at its next statement boundary (rolling back the open migration); if it is stuck in a long
 * statement, that session is ended on the server where the driver can ({@link Connection.terminate};
 * the lock stays ACTIVE when that fails, as the statement may still complete), and the lock row
 * is removed from a second connection (elsewhere the server discards the open transaction when
 * this process exits).
 */
export async function withLock<T>(session: DatabaseSession, command: string, run: EngineRunContext | undefined, fn: () => Promise<T>, options: WithLockOptions = {}): Promise<T> {
  const started = performance.now();
  if (run?.signal.aborted) throw interruptedError(run.signal, session.entry.name, 'the lock was not taken and nothing ran');
  await session.store.ensureTables();
  let holder: LockHolder;
  try {
    holder = await session.lock.acquire(command, { tentative: options.readOnly !== undefined });
  } catch (error) {
    const lost = session.lock.lostInsert;
    if (lost) await removeLostLockRow(session, lost);
    throw error;
  }
  session.log.info(`lock acquired in ${formatMs(performance.now() - started)}`);
  // A tentative lock is no lock for others yet: a process killed holding it leaves nothing behind.
  const untrack = run?.trackLock?.(session.entry.name, () => session.lock.held !== undefined && !session.lock.tentative);

  let markSettled!: () => void;
  const settled = new Promise<void>((resolve) => (markSettled = resolve));
  const settledWithin = (ms: number): Promise<boolean> =>
    Promise.race([settled.then(() => true), new Promise<boolean>((resolve) => setTimeout(resolve, ms, false).unref())]);
  /** The user was told the lock stays ACTIVE: if the run releases it after all, say so. */
  let saidActive = false;
  const unregister = run?.onCleanup(async () => {
    if ((await settledWithin(SIGNAL_GRACE_MS)) || !session.lock.held) return;
    if (!session.conn.terminate) {
      await releaseFromSecondConnection(session, holder, 'interrupted during a statement: lock released from a second connection; the unfinished migration is discarded by the database when this process exits');
      return;
    }
    // Where a statement outlives its client (ClickHouse runs it to its end), the lock goes only
    // once the server has confirmed that it no longer runs.
    try {
      await session.conn.terminate();
    } catch (error) {
      // A run that is ending on its own (its statement stopped after all) releases the lock now.
      await settledWithin(UNSTOPPABLE_GRACE_MS);
      saidActive = reportUnstoppable(session, error);
      return;
    }
    if ((await settledWithin(SIGNAL_GRACE_MS)) || !session.lock.held) return;
    await releaseFromSecondConnection(session, holder, 'interrupted during a statement: the server stopped it; lock released from a second connection');
  });

  let failed = false;
  try {
    // Interrupted while the lock was being taken: release it (below) before anything runs.
    if (run?.signal.aborted) throw interruptedError(run.signal, session.entry.name, 'the lock was released and nothing ran');
    // Committed before anything runs: a process killed from here on leaves the lock ACTIVE.
    if (session.lock.tentative && !(await options.readOnly!())) await session.lock.confirm();
    return await fn();
  } catch (error) {
    failed = true;
    throw error;
  } finally {
    try {
      if (session.lock.held) {
        const ours = await releaseOnce(session, run, holder);
        if (saidActive) session.log.warn('the interrupted statement ended after all: the migration lock was released, no `mtool unlock` needed');
        else session.log.debug('lock released');
        if (!ours) session.log.warn(unlockedMeanwhile(session.entry.name));
      }
    } catch (error) {
      const message = `could not release the migration lock of '${session.entry.name}': run \`mtool unlock --database ${session.entry.name}\``;
      session.log.error(message, { error });
      // A failed run keeps its own error; a successful one must not look clean while the lock stays ACTIVE.
      if (!failed) {
        unregister?.();
        untrack?.();
        markSettled();
        // eslint-disable-next-line no-unsafe-finally
        throw new MtoolError('MTOOL_DATABASE', message, { database: session.entry.name, cause: error });
      }
    }
    unregister?.();
    untrack?.();
    markSettled();
  }
}

/**
 * Release the lock; after Ctrl-C / SIGTERM try a second time, since the request that stopped the
 * running statement can reach the server just after that statement ended, and stop the release.
 * When the session itself was lost (the server closed it: a statement over MySQL's
 * `max_allowed_packet`, a `KILL`, an idle timeout; or the network failed), its server session is
 * ended if it still runs, and the committed lock row is removed from a new connection instead of
 * being left ACTIVE for `mtool unlock`.
 */
async function releaseOnce(session: DatabaseSession, run: EngineRunContext | undefined, holder: LockHolder): Promise<boolean> {
  try {
    return await session.lock.release();
  } catch (error) {
    if (isConnectionError(error) && session.lock.held && !session.lock.tentative) {
      // The server may not know yet and go on with what it was sent: end that session first, so
      // nothing of this run still runs once another may take the lock.
      await session.conn.terminate?.();
      await releaseFromSecondConnection(session, holder, 'the connection was lost: lock released from a new connection');
      return true;
    }
    if (!run?.signal.aborted || !session.lock.held) throw error;
    // The first DELETE may have run before its answer was lost: no row now proves no unlock.
    await session.lock.release();
    return true;
  }
}

/** The run's lock row was gone at its end: `mtool unlock` released it while the run held it. */
function unlockedMeanwhile(database: string): string {
  return (
    `the migration lock of '${database}' had been released by someone else (\`mtool unlock\`) while this run held it: ` +
    `another run may have migrated '${database}' at the same time; check \`mtool status --database ${database}\` and \`mtool history --database ${database}\``
  );
}

/**
 * The server could not be asked to stop the interrupted statement. Meanwhile the run may have
 * ended on its own and released the lock, closing the connection under the request (the "socket
 * hang up" it then fails with): say what became of the lock, not what might have.
 * @returns true when it said that the lock stays ACTIVE.
 */
function reportUnstoppable(session: DatabaseSession, error: unknown): boolean {
  const name = session.entry.name;
  if (!session.lock.held) {
    session.log.debug('interrupted: the statement ended while the server was being asked to stop it; the run released the migration lock itself', { error });
    return false;
  }
  const why = error instanceof Error ? error.message : String(error);
  session.log.warn(
    `interrupted during a statement that could not be stopped on the server: it may still complete; the lock stays ACTIVE. ` +
      `Once it has ended, check \`mtool status --database ${name}\` and run \`mtool unlock --database ${name}\` (stopping it failed: ${why})`,
  );
  session.log.debug('stopping the statement failed', { error });
  return true;
}

/**
 * The connection was lost while the lock row was inserted: the server may have written it all the
 * same, and nothing else would remove it. Ended on the server first (the INSERT may still be
 * running there), the row is removed from a new connection; where that fails too, the user is
 * told how to see and release it.
 */
async function removeLostLockRow(session: DatabaseSession, holder: LockHolder): Promise<void> {
  const name = session.entry.name;
  try {
    await session.conn.terminate?.();
    await releaseFromSecondConnection(session, holder, 'the connection was lost while the migration lock was taken: its row, which the server may have written, was removed from a new connection');
  } catch (error) {
    session.log.error(
      `the connection was lost while the migration lock was taken, and the lock row the server may have written could not be removed: ` +
        `if \`mtool lock-status --database ${name}\` shows the lock ACTIVE, held by pid ${holder.pid} (this run), release it with \`mtool unlock --database ${name}\``,
      { error },
    );
  }
}

async function releaseFromSecondConnection(session: DatabaseSession, holder: LockHolder, warning: string): Promise<void> {
  const other = tracedConnection(await session.dialect.connect({ ...session.connectOptions, second: 'urgent' }), session.log);
  try {
    await releaseLock(other, session.dialect, session.store, holder);
    session.lock.forget();
    session.log.warn(warning);
  } finally {
    await other.close();
  }
}
