import { performance } from 'node:perf_hooks';
import type { Connection, Dialect } from '../../dialects/types.js';
import type { MigrationFile } from '../../parser/migration-file.js';
import type { SchemaIR } from '../../schema/ir.js';
import type { DatabaseEntry } from '../config/types.js';
import type { Logger } from '../log.js';
import type { SchemaFollower } from '../snapshot/schema-follower.js';
import type { SchemaReader } from '../snapshot/schema-window.js';
import type { SnapshotWriter } from '../snapshot/snapshot-writer.js';
import type { DatabaseCode } from './ddl-targets.js';
import { formatMs } from './format-ms.js';
import { tracedConnection } from './traced-connection.js';
import type { AfterBatchEvent, AfterCommitEvent, BeforeTailEvent, EngineHooks, HookContext } from './hooks.js';
import { reasonOf, snapshotsNotWritten } from './snapshot-failure.js';
import { loadSnapshotModules, migrationId, round, schemaReader, type SnapshotModules } from './snapshot-modules.js';

/**
 * `--defer-snapshots` reads the schema on a second connection while the batch's last this-many
 * migrations run (PostgreSQL; MySQL and MariaDB: {@link FOLLOWED_TAIL}), and at the end only the
 * tables they touched.
 *
 * PostgreSQL reads it through a catalog snapshot taken before them. Small migrations take
 * 1.25-4 ms each on PostgreSQL here (1.25 with its data on tmpfs) and the read of 1000 tables
 * 60-200 ms, which 64 of them did not always cover: the end then waited for it. The last
 * migration's snapshot was written 62-160 ms after the batch with 64, 59-99 ms with 128 and
 * 87-123 ms with 256 (1000 migrations, tmpfs server, 4 runs each).
 */
const TAIL_MIGRATIONS = 128;

/**
 * MySQL and MariaDB follow the tail (SchemaFollower): the schema read in full as it begins, then
 * the tables of its migrations as they commit. Following the whole batch instead read 30 tables
 * at a time, about 33 reads for 1000 migrations: each asks five information_schema views, whose
 * cost per table is about twice a full read's, so the server spent ~8 times the CPU of one full
 * read (MariaDB at 1000 tables: 32 ms for all five views), and the client ~3 ms per read. On a
 * two-core machine whose server is local, that work competes with the migrations themselves.
 * Followed from 128 before the end (1000 migrations, MariaDB on tmpfs, 10 alternating rounds):
 * CPU of the whole machine 1130 -> 970 ms, of mtool 580 -> 530 ms, wall 710 -> 680 ms.
 *
 * Twice PostgreSQL's tail: the follower's connection and modules are set up as the tail starts
 * (30-70 migrations' time on MariaDB here) and the read in full of ~900 tables, under the load of
 * the migrations, took 160-330 ms, while 128 migrations last ~190 ms when the disk is fast (1.5
 * ms each): the end then waited for the read. With 256, side by side on the fast disk (8 applies
 * each, alternating), 256 was faster in 7 of 8 pairs (medians 2.07 against 2.31 s).
 */
export const FOLLOWED_TAIL = 256;

export interface DeferredSnapshotOptions {
  /** Project root (`.mtool/schemas` lives under it). */
  root: string;
  /** The configured databases; the hooks find the one an event names. */
  databases: readonly DatabaseEntry[];
  log: Logger;
  /** How many of the batch's last migrations the schema is read ahead of (0: never). Default: {@link TAIL_MIGRATIONS}, or {@link FOLLOWED_TAIL} where a follower follows them. */
  tailMigrations?: number;
}

/** PostgreSQL: the schema read through a snapshot on a second connection, before the batch's last migrations. */
interface ReadAhead {
  kind: 'ahead';
  conn: Connection;
  pending: readonly MigrationFile[];
  /** Undefined when the read failed (then the snapshot reads in full, as without it). */
  read: Promise<{ schema: SchemaIR; code: DatabaseCode; ms: number } | undefined>;
  /** Lays out the schema read ahead as soon as it is read: the final snapshot then lays out only the tables the last migrations touched. */
  writer: SnapshotWriter;
}

/** MySQL, MariaDB: the schema followed on a second connection as the batch's migrations commit. */
interface Following {
  kind: 'follow';
  conn: Connection;
  pending: readonly MigrationFile[];
  /** Set up while the first migrations run (undefined where the database's schema cannot be followed). */
  started: Promise<Follow | undefined>;
  /** Migrations of `pending` reported committed. */
  reported: number;
}

interface Follow {
  follower: SchemaFollower;
  /** The follower's connection, once open (undefined when it could not be). */
  reader: Promise<Connection | undefined>;
  /** Lays out the followed schema's lines as it goes: the final snapshot then lays out only what changed last. */
  writer: SnapshotWriter;
}

type Head = ReadAhead | Following;

/** Lay out `schema`'s snapshot lines ahead of the final write, which keeps those of unchanged tables. */
function warmWith(writer: SnapshotWriter, schema: SchemaIR): void {
  try {
    writer.warm(schema);
  } catch {
    // The final write checks the schema again and says what is wrong with it.
  }
}

/**
 * The snapshot `migrate --defer-snapshots` writes once, for the batch's last migration, and the
 * reads that start before it ends so that little is left to read then:
 * - where the catalog can be read through a snapshot (PostgreSQL), before the last
 *   {@link TAIL_MIGRATIONS} migrations the whole schema is read on a second connection as it is
 *   before them; at the end only the tables they touched are read again (SchemaWindow.follow);
 * - where what a migration touches never depends on the schema before it (MySQL, MariaDB:
 *   {@link DdlSyntax.namesEveryTable}), a {@link SchemaFollower} reads the schema in full before
 *   the last {@link FOLLOWED_TAIL} migrations and, on its own connection, the tables of those
 *   migrations as they commit; at the end only those committed since its last read are left.
 * Anything that stops either (a second connection refused, a read failing, a migration whose
 * effect is not known table by table) only costs the head start: the schema is then read in full
 * at the end, on the migration connection.
 */
export function deferredSnapshots(options: DeferredSnapshotOptions): Required<Pick<EngineHooks, 'tailSize' | 'beforeTail' | 'tailCommitted'>> & {
  write(event: AfterBatchEvent): Promise<void>;
} {
  const heads = new Map<string, Head>();
  const entryOf = (database: string) => options.databases.find((d) => d.name === database);
  const logFor = (entry: DatabaseEntry) => options.log.child({ db_name: entry.name, db_type: entry.type });
  const follows = (dialect: Dialect, modules: SnapshotModules) => !dialect.capabilities.catalogSnapshots && modules.targets.ddlSyntax(dialect).namesEveryTable;

  /** A second connection; undefined (logged at DEBUG) when it cannot be had. */
  const secondConnection = async (event: BeforeTailEvent, log: Logger, snapshot: boolean): Promise<Connection | undefined> => {
    let conn: Connection | undefined;
    try {
      conn = tracedConnection(await event.dialect.connect({ ...event.connectOptions, second: 'spare' }), log);
      if (snapshot) await conn.beginSnapshot!();
      return conn;
    } catch (error) {
      log.debug('schema not read ahead of the last migrations', { error });
      await conn?.close().catch(() => undefined);
      return undefined;
    }
  };

  /** PostgreSQL: read the schema through a snapshot taken before `event.pending` run. */
  const readAhead = async (event: BeforeTailEvent, entry: DatabaseEntry, modules: SnapshotModules, log: Logger): Promise<ReadAhead | undefined> => {
    // The snapshot must be taken before the migrations start.
    const reader = await secondConnection(event, log, true);
    if (!reader) return undefined;
    const writer = new modules.SnapshotWriter(options.root, entry.name, entry.type);
    const read = (async () => {
      const started = performance.now();
      try {
        const read = schemaReader(event.dialect, reader, modules, entry, log);
        const code = await read.code();
        const schema = await read.read();
        const ms = performance.now() - started;
        warmWith(writer, schema);
        return { schema, code, ms };
      } catch (error) {
        // Catalog functions may fail on objects the migrations drop meanwhile: read at the end instead.
        log.debug('schema read ahead of the last migrations failed; the snapshot reads it in full', { error });
        return undefined;
      } finally {
        await reader.close().catch(() => undefined);
      }
    })();
    return { kind: 'ahead', conn: event.conn, pending: event.pending, read, writer };
  };

  /** MySQL, MariaDB: follow the schema on a connection that opens while the first migrations run. */
  const follow = (event: BeforeTailEvent, entry: DatabaseEntry, modules: SnapshotModules, log: Logger): Follow => {
    const opened = secondConnection(event, log, false);
    // Made once, when the connection is open; every read before then waits for it.
    const ready = opened.then((conn) => (conn ? schemaReader(event.dialect, conn, modules, entry, log) : undefined));
    const connected = async (): Promise<SchemaReader> => {
      const reader = await ready;
      if (!reader) throw new Error('no second connection');
      return reader;
    };
    const reader: SchemaReader = { read: async (tables) => (await connected()).read(tables), code: async () => (await connected()).code() };
    const writer = new modules.SnapshotWriter(options.root, entry.name, entry.type);
    const follower = modules.SchemaFollower.start(reader, modules.SchemaWindow, modules.targets, modules.targets.ddlSyntax(event.dialect), (schema) => warmWith(writer, schema));
    return { follower, reader: opened, writer };
  };

  /**
   * PostgreSQL: the schema read ahead brought up to date: the tables the last migrations touched
   * read again on the migration connection, or undefined when one of them needs more.
   */
  const caughtUp = async (ahead: ReadAhead, event: HookContext, reader: SchemaReader, modules: SnapshotModules): Promise<{ schema: SchemaIR; aheadMs: number } | undefined> => {
    const read = await ahead.read;
    if (!read) return undefined;
    const window = modules.SchemaWindow.from(reader, modules.targets, modules.targets.ddlSyntax(event.dialect), read.schema, read.code);
    for (const file of ahead.pending) if (!(await window.follow(file))) return undefined;
    await window.flush();
    return { schema: window.schema, aheadMs: read.ms };
  };

  /** MySQL, MariaDB: the followed schema, once the last migrations' tables are read; its connection closed. */
  const followed = async (following: Following, follow: Follow, event: AfterBatchEvent, log: Logger): Promise<{ schema: SchemaIR; aheadMs: number; atEnd: number } | undefined> => {
    const inTail = new Set(following.pending);
    const ran = event.applied.filter((a) => inTail.has(a.file)).length;
    // Those that ran and were not reported, and the one that failed (it may have run in part).
    const rest = following.pending.slice(following.reported, Math.min(following.pending.length, ran + (event.failed ? 1 : 0)));
    try {
      const schema = await follow.follower.finish(rest);
      const stop = follow.follower.stopped;
      if (stop) log.debug(`schema not followed to the end (${stop.reason}); the snapshot reads it in full`, stop.error === undefined ? {} : { error: stop.error });
      return schema ? { schema, aheadMs: follow.follower.reads.ms, atEnd: follow.follower.reads.atEnd } : undefined;
    } finally {
      await (await follow.reader)?.close().catch(() => undefined);
    }
  };

  return {
    // Where the catalog has no snapshots, a follower follows the tail (when the dialect's schema
    // can be followed; beforeTail finds out without holding the tail's first migrations up).
    tailSize: (dialect) => options.tailMigrations ?? (dialect.capabilities.catalogSnapshots ? TAIL_MIGRATIONS : FOLLOWED_TAIL),

    async beforeTail(event) {
      const entry = entryOf(event.database);
      if (!entry) return;
      const log = logFor(entry);
      if (event.dialect.capabilities.catalogSnapshots) {
        const ahead = await readAhead(event, entry, await loadSnapshotModules(), log);
        if (ahead) heads.set(event.database, ahead);
        return;
      }
      // Not awaited, and not before the first migrations are sent (in the CLI bundle the modules
      // load synchronously, ~10-25 ms): they load and the connection opens while those run.
      const started = new Promise<void>((resolve) => setImmediate(resolve))
        .then(loadSnapshotModules)
        .then((modules) => (follows(event.dialect, modules) ? follow(event, entry, modules, log) : undefined))
        .catch((error: unknown) => void log.debug('schema not followed while the migrations ran', { error }));
      heads.set(event.database, { kind: 'follow', conn: event.conn, pending: event.pending, started, reported: 0 });
    },

    tailCommitted(event: AfterCommitEvent) {
      const head = heads.get(event.database);
      if (head?.kind !== 'follow' || head.conn !== event.conn) return;
      head.reported += event.committed.length;
      const files = event.committed.map((c) => c.file);
      void head.started.then((follow) => follow?.follower.committed(files));
    },

    /** The last migration's snapshot, written durably (nothing when none was applied). */
    async write(event) {
      const head = heads.get(event.database);
      heads.delete(event.database);
      const mine = head?.conn === event.conn ? head : undefined;
      const entry = entryOf(event.database);
      const last = event.applied[event.applied.length - 1];
      const follow = mine?.kind === 'follow' ? await mine.started : undefined;
      if (!entry || !last) {
        await (await follow?.reader)?.close().catch(() => undefined);
        return;
      }
      const started = performance.now();
      const modules = await loadSnapshotModules();
      const log = logFor(entry);
      const reader = schemaReader(event.dialect, event.conn, modules, entry, log);
      const fresh = mine?.kind === 'follow' ? (follow ? await followed(mine, follow, event, log) : undefined) : mine ? await caughtUp(mine, event, reader, modules) : undefined;
      const schema = fresh?.schema ?? (await reader.read());
      const writer = follow?.writer ?? (mine?.kind === 'ahead' ? mine.writer : undefined) ?? new modules.SnapshotWriter(options.root, entry.name, entry.type);
      let written: { path: string; bytes: number };
      try {
        written = await writer.write({ migrationId: migrationId(entry, last.file), schema });
      } catch (error) {
        throw snapshotsNotWritten(modules.snapshotDir(options.root), entry.name, [{ filename: last.file.filename, reason: reasonOf(error) }], error);
      }
      const { path, bytes } = written;
      log.info(`snapshot written in ${formatMs(performance.now() - started)}`, {
        file: path,
        bytes,
        introspection: fresh ? 'partial' : 'full',
        ...(fresh ? { read_ahead_ms: round(fresh.aheadMs) } : {}),
        // Followed (MySQL, MariaDB): how many migrations' tables were left to read after the batch.
        ...(fresh && 'atEnd' in fresh ? { followed_at_end: fresh.atEnd } : {}),
      });
    },
  };
}
