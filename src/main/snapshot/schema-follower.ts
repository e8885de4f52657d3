import { performance } from 'node:perf_hooks';
import type { MigrationFile } from '../../parser/migration-file.js';
import type { SchemaIR } from '../../schema/ir.js';
import type { DdlSyntax } from '../engine/ddl-targets.js';
import type { SchemaReader, SchemaWindow } from './schema-window.js';

/**
 * When the tables of committed migrations are read: a read costs the server several catalog
 * queries and the client a pass over the schema whatever it holds, so migrations that commit in
 * quick succession (MySQL and MariaDB hand them on ten at a time as their records are written)
 * are read together; slow ones each soon after it commits. At the batch's end fewer than this
 * many are left to read, beside those that came during a read still under way. 1000 small
 * CREATE TABLEs on MariaDB, read ten at a time, made 100 reads.
 */
const READ_AT_LEAST = 30;
const READ_WITHIN_MS = 200;

type Windows = Pick<typeof SchemaWindow, 'open'>;
type Targets = Parameters<typeof SchemaWindow.open>[1];

/** How a {@link SchemaFollower} ended when it gave up: the caller then reads the schema in full. */
export interface FollowerStop {
  /** What could not be followed, for the log. */
  reason: string;
  error?: unknown;
}

/**
 * `--defer-snapshots` where a schema read while migrations run can follow them
 * ({@link DdlSyntax.namesEveryTable}: MySQL and MariaDB, whose catalog cannot be read as of one
 * moment): the live schema kept up to date on a connection of its own while the batch's last
 * migrations run (its tail: engine/deferred-snapshot.ts says how many and why). It is read in full
 * once, as the tail starts; after that, as migrations commit, the tables they touched are read
 * again in the background, those of every migration committed since the last read in one
 * introspection. At the batch's end only the tables of the migrations committed since the last
 * read are left to read, not the whole schema (1000 tables: 50-300 ms on MariaDB here, against
 * 2-15 ms for the last message's).
 *
 * Exact for the reason SchemaWindow.follow is: what a migration touches follows from its
 * statements alone, and each table's last read comes after the last migration that touched it
 * committed, so it is read as the batch left it. A migration whose effect is not known table by
 * table is followed by a read in full once it committed. A read that fails stops the following:
 * {@link finish} then answers undefined and says why, and the caller reads in full, as without it.
 * @example const f = SchemaFollower.start(reader, windows, targets, syntax); f.committed(files); const schema = await f.finish(rest);
 */
export class SchemaFollower {
  readonly #open: () => Promise<SchemaWindow>;
  /** Undefined once a read in full failed. */
  #window: Promise<SchemaWindow | undefined>;
  /** Committed migrations not read yet, in order. */
  #queue: MigrationFile[] = [];
  /** When the first migration of {@link #queue} was added. */
  #queuedAt = 0;
  #draining: Promise<void> | undefined;
  #stop: FollowerStop | undefined;
  readonly #onRead: ((schema: SchemaIR) => void) | undefined;
  /** Reads done and their time (reads in full included); `atEnd`: migrations whose tables {@link finish} had left to read. */
  readonly reads = { count: 0, ms: 0, atEnd: 0 };

  private constructor(open: () => Promise<SchemaWindow>, onRead: ((schema: SchemaIR) => void) | undefined) {
    this.#open = open;
    this.#onRead = onRead;
    this.#window = this.#readInFull('the schema read at the start failed');
  }

  /**
   * Start following: the schema is read in full now, in the background. `onRead` gets the
   * schema after each read (the snapshot writer lays out its text meanwhile).
   */
  static start(reader: SchemaReader, windows: Windows, targets: Targets, syntax: DdlSyntax, onRead?: (schema: SchemaIR) => void): SchemaFollower {
    return new SchemaFollower(() => windows.open(reader, targets, syntax), onRead);
  }

  /** Why it stopped following, once it did. */
  get stopped(): FollowerStop | undefined {
    return this.#stop;
  }

  /**
   * Migrations that committed, in the order they ran: their tables are read in the background,
   * once {@link READ_AT_LEAST} of them wait or, as more commit, the oldest has waited
   * {@link READ_WITHIN_MS} (no timer: what is left when the batch ends is read by {@link finish}).
   */
  committed(files: readonly MigrationFile[]): void {
    if (this.#stop || files.length === 0) return;
    if (this.#queue.length === 0) this.#queuedAt = performance.now();
    this.#queue.push(...files);
    if (this.#due()) this.#draining ??= this.#drain(false).finally(() => (this.#draining = undefined));
  }

  /**
   * The live schema, once the reads under way end and the tables of `rest` (migrations that ran
   * and were not reported committed, or ran in part before one failed) are read: undefined when
   * it stopped following (see {@link stopped}).
   */
  async finish(rest: readonly MigrationFile[]): Promise<SchemaIR | undefined> {
    await this.#draining;
    this.#queue.push(...rest);
    this.reads.atEnd = this.#queue.length;
    await this.#drain(true);
    const window = await this.#window;
    return this.#stop || !window ? undefined : window.schema;
  }

  /** Whether the queue is to be read now (see {@link committed}). */
  #due(): boolean {
    return this.#queue.length >= READ_AT_LEAST || performance.now() - this.#queuedAt >= READ_WITHIN_MS;
  }

  /**
   * Follow and read what the queue holds while it is due (`all`: until it is empty); more may
   * arrive during a read. A migration whose effect is not known table by table is read in full:
   * every migration before it committed, so that read holds them too.
   */
  async #drain(all: boolean): Promise<void> {
    while (!this.#stop && this.#queue.length > 0 && (all || this.#due())) {
      const window = await this.#window;
      if (!window) return;
      const files = this.#queue.splice(0);
      let full = false;
      for (const file of files) if (!full && !(await window.follow(file))) full = true;
      if (full) {
        this.#window = this.#readInFull('a read in full of the schema failed');
        continue;
      }
      if (window.waiting === 0) continue;
      const started = performance.now();
      try {
        await window.flush();
      } catch (error) {
        this.#stop = { reason: 'a read of the tables migrations touched failed', error };
        return;
      }
      this.#counted(started);
      this.#onRead?.(window.schema);
    }
  }

  /** A window read in full now; undefined (and following stopped) when the read fails. */
  async #readInFull(failure: string): Promise<SchemaWindow | undefined> {
    const started = performance.now();
    try {
      const window = await this.#open();
      this.#counted(started);
      this.#onRead?.(window.schema);
      return window;
    } catch (error) {
      this.#stop ??= { reason: failure, error };
      return undefined;
    }
  }

  #counted(started: number): void {
    this.reads.count++;
    this.reads.ms += performance.now() - started;
  }
}
