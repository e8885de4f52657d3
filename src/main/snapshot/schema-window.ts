import { performance } from 'node:perf_hooks';
import { MtoolError } from '../../errors.js';
import type { MigrationFile } from '../../parser/migration-file.js';
import type { SchemaIR } from '../../schema/ir.js';
import { assignEntries, getEntry, setEntry } from '../../schema/name-map.js';
import type { DatabaseCode, DdlSyntax, MigrationEffect } from '../engine/ddl-targets.js';

/** How the schema after one migration follows from the schema after the one before it. */
export type SchemaStep =
  /** Unchanged (data only). */
  | { kind: 'none' }
  /** The previous schema with these tables (and, with `enums`, the enum types) replaced by `part`'s: see {@link mergeTables}. */
  | { kind: 'partial'; part: SchemaIR; replaced: readonly string[]; enums: boolean }
  /** Read in full. */
  | { kind: 'full'; schema: SchemaIR };

/** One applied migration, in the order applied; its step is set once the tables it touched are read. */
export interface WindowEntry {
  file: MigrationFile;
  /** How its schema is found (the snapshot log's `introspection`). */
  kind: MigrationEffect['kind'];
  /** The schema before it, when it is the first migration after the window (re)started. */
  start?: SchemaIR;
  step?: SchemaStep;
}

/** What the window needs from the database: reads on the migration connection. */
export interface SchemaReader {
  /** Introspect every table, or only `tables` (IntrospectOptions.tables). */
  read(tables?: readonly string[]): Promise<SchemaIR>;
  /** The {@link DdlSyntax.codeCheck} answer (no dependents, no code where the dialect has none). */
  code(): Promise<DatabaseCode>;
}

type Targets = Pick<typeof import('../engine/ddl-targets.js'), 'migrationEffect' | 'declaresLooseReference' | 'asciiLower'>;

/**
 * The schema after each migration of a batch, read lazily: instead of introspecting after every
 * migration, the window keeps the tables touched since the last read ("dirty") and reads them
 * all at once, when a migration is about to touch one of them again, when it cannot be resolved
 * against the last read (or is `full`), when the caller wants the snapshots (end of batch, idle
 * writer), or when some table's IR follows another's ({@link DatabaseCode.dependents}: then every
 * migration is read on its own, as before windows).
 *
 * Why that is exact: within a window each table is touched by at most one migration, so a table
 * read at the end of the window is as that migration left it; the schema after migration j is
 * the last read, plus the re-read tables of the window's migrations up to j, the other tables
 * keeping their state from before the window (absent when created later). A migration's effect
 * (ddl-targets' `migrationEffect`) is resolved against the last read, which is stale only for
 * dirty tables: an answer naming a dirty table, or `full` (a table created in the window is not
 * in the last read, nor an index created in it), is computed again after a read.
 * @example const w = await SchemaWindow.open(reader, targets, syntax); await w.before(file); ...; const entry = await w.after(file); await w.flush();
 */
export class SchemaWindow {
  readonly #reader: SchemaReader;
  readonly #targets: Targets;
  readonly #syntax: DdlSyntax;
  /** The schema as of the last read, with every read migration applied. */
  #base!: SchemaIR;
  /** The table keys of {@link #base} by their ASCII lower case. */
  #baseKeysByLower = new Map<string, string[]>();
  #code: DatabaseCode;
  /** Set until the first migration after the window started takes it as its `start`. */
  #start: SchemaIR | undefined;
  /** Migrations waiting for a read, with the table keys each asks for (exact, and ASCII lower case). */
  #open: { entry: WindowEntry; keys: string[]; enums: boolean }[] = [];
  #dirty = new Set<string>();
  #enumsDirty = false;
  /** A migration of the window declared a foreign key that follows its target: read each alone from now on. */
  #looseReference = false;
  #planned: Planned | undefined;
  /** The migrations {@link runnable} let run after the planned one, with their effects, in order. */
  #run: Planned[] = [];
  #openedAt = 0;
  /** Reads done (partial or full) and the time they took, for the caller's log. */
  readonly reads = { count: 0, ms: 0, lastMs: 0 };

  private constructor(reader: SchemaReader, targets: Targets, syntax: DdlSyntax, base: SchemaIR, code: DatabaseCode) {
    this.#reader = reader;
    this.#targets = targets;
    this.#syntax = syntax;
    this.#setBase(base);
    this.#start = base;
    this.#code = code;
  }

  /** Read the schema in full: the state before the first migration of the window. */
  static async open(reader: SchemaReader, targets: Targets, syntax: DdlSyntax): Promise<SchemaWindow> {
    const started = performance.now();
    const base = await reader.read();
    const window = new SchemaWindow(reader, targets, syntax, base, await reader.code());
    window.#timed(started);
    return window;
  }

  /**
   * A window whose start is a schema read elsewhere, with the {@link DatabaseCode} read with it:
   * see {@link follow}.
   */
  static from(reader: SchemaReader, targets: Targets, syntax: DdlSyntax, base: SchemaIR, code: DatabaseCode): SchemaWindow {
    return new SchemaWindow(reader, targets, syntax, base, code);
  }

  /** The schema as of the last read, with every read migration applied: after {@link flush}, the live schema. */
  get schema(): SchemaIR {
    return this.#base;
  }

  /**
   * {@link before} and {@link after} for a migration that already ran, without reading: false
   * (the window unchanged) when it would need a read first or is `full`. A window started
   * {@link from} a schema read before a batch's last migrations (or, where what a migration
   * touches never depends on the schema before it, while they ran: {@link DdlSyntax.namesEveryTable})
   * follows each of them; its {@link flush} then reads only the tables they touched, as they are
   * now: {@link schema} is then the live schema (the steps of single migrations are not kept
   * apart, see below). A read between two of them would read their tables as the later ones left
   * them, not as the next one found them, so where a migration's answer may depend on a table an
   * earlier one touched, the caller reads in full instead. Where it never depends on the schema
   * before it ({@link DdlSyntax.namesEveryTable}), a table touched twice is simply read once, at
   * the end; the window's per-migration steps then no longer tell which migration changed it.
   */
  async follow(file: MigrationFile): Promise<boolean> {
    const effect = this.#effect(file);
    if (effect.kind === 'full') return false;
    // Answers that never depend on the schema before (no table's IR following another's).
    const byNameOnly = this.#syntax.namesEveryTable && !this.#code.dependents && !this.#looseReference;
    if (this.#open.length > 0 && !byNameOnly && this.#needsRead(effect, this.#pendingState())) return false;
    this.#planned = { file, effect };
    await this.after(file);
    return true;
  }

  /** Migrations waiting for a read. */
  get waiting(): number {
    return this.#open.length;
  }

  /** The oldest migration waiting for a read. */
  get oldest(): WindowEntry | undefined {
    return this.#open[0]?.entry;
  }

  /** Milliseconds since the first migration waiting for a read was added. */
  get age(): number {
    return this.#open.length === 0 ? 0 : performance.now() - this.#openedAt;
  }

  /** Before `file` runs: resolve its effect, reading the window first when the answer could depend on it. */
  async before(file: MigrationFile): Promise<void> {
    let effect = this.#effect(file);
    if (this.#open.length > 0 && this.#needsRead(effect, this.#pendingState())) {
      await this.flush();
      effect = this.#effect(file);
    }
    this.#planned = { file, effect };
    this.#run = [];
  }

  /**
   * After {@link before} for `files[0]`: how many of `files` (at most `max`, at least one) may run
   * back to back, with no read between them, each getting the step it would get run alone. The
   * run ends before a migration that would need a read first (it touches a table an earlier one
   * of the window touched, or its answer depends on the window) and before a `full` one, and
   * after a `full` first one (its {@link after} reads). {@link after} then takes them in order.
   */
  runnable(files: readonly MigrationFile[], max: number): number {
    const first = this.#planned;
    if (first?.file !== files[0] || first.effect.kind === 'full') return 1;
    const state = this.#pendingState(true);
    // As after() will take each: the keys and the loose reference found here are kept for it.
    const add = (planned: Planned): void => {
      if (planned.effect.kind !== 'partial') return;
      state.open++;
      planned.keys ??= this.#candidateKeys(planned.effect.tables);
      for (const key of planned.keys) state.dirty.add(this.#targets.asciiLower(key));
      state.enumsDirty ||= planned.effect.enums;
      planned.looseReference = this.#declaresLooseReference(planned.file);
      state.looseReference ||= planned.looseReference;
    };
    add(first);
    const run: Planned[] = [];
    const end = Math.min(files.length, Math.max(1, max));
    for (let i = 1; i < end; i++) {
      const effect = this.#effect(files[i]!);
      const planned: Planned = { file: files[i]!, effect, ...(effect.kind === 'partial' ? { keys: this.#candidateKeys(effect.tables) } : {}) };
      if (effect.kind === 'full' || (state.open > 0 && this.#needsRead(effect, state, planned.keys))) break;
      add(planned);
      run.push(planned);
    }
    this.#run = run;
    return run.length + 1;
  }

  /**
   * After `file` ran: its entry, with its step when known now (`none`; `full`, read at once).
   * @throws MtoolError `MTOOL_SNAPSHOT` when neither {@link before} nor {@link runnable} planned it.
   */
  async after(file: MigrationFile): Promise<WindowEntry> {
    let planned = this.#planned;
    this.#planned = undefined;
    if (planned === undefined && this.#run[0]?.file === file) {
      planned = this.#run.shift()!;
      // Planned against the window as it is now: a read since then would have ended the run.
      if (this.#open.length > 0 && this.#needsRead(planned.effect, this.#pendingState(), planned.keys)) planned = undefined;
    }
    if (planned?.file !== file) {
      this.#run = [];
      throw new MtoolError('MTOOL_SNAPSHOT', `schema snapshot of ${file.filename}: the hook before it did not run, so what it changed is unknown; the next migration starts over with a full read`);
    }
    const { effect } = planned;
    const entry: WindowEntry = { file, kind: effect.kind };
    if (this.#start) {
      entry.start = this.#start;
      this.#start = undefined;
    }
    switch (effect.kind) {
      case 'none':
        entry.step = { kind: 'none' };
        break;
      case 'full': {
        const started = performance.now();
        this.#setBase(await this.#reader.read());
        this.#code = await this.#reader.code();
        this.#looseReference = false;
        this.#timed(started);
        entry.step = { kind: 'full', schema: this.#base };
        break;
      }
      case 'partial': {
        const keys = planned.keys ?? this.#candidateKeys(effect.tables);
        if (this.#open.length === 0) this.#openedAt = performance.now();
        this.#open.push({ entry, keys, enums: effect.enums });
        for (const key of keys) this.#dirty.add(this.#targets.asciiLower(key));
        this.#enumsDirty ||= effect.enums;
        this.#looseReference ||= planned.looseReference ?? this.#declaresLooseReference(file);
        break;
      }
    }
    return entry;
  }

  /** Read the dirty tables (in one introspection) and give each waiting migration its step. */
  async flush(): Promise<void> {
    const open = this.#open;
    if (open.length === 0) return;
    const started = performance.now();
    const asked = [...new Set(open.flatMap((o) => o.keys))];
    const tableCount = Object.keys(this.#base.tables).length;
    // A full read leaves out what was not asked for: not where asked tables pull others along.
    const inFull = !this.#code.dependents && !this.#looseReference && readsInFull(asked.length, tableCount, this.#syntax.dialect);
    const read = asked.length === 0 && !open.some((o) => o.enums) ? undefined : await this.#reader.read(inFull ? undefined : asked);
    this.#timed(started);
    const byTable = read ? objectsByTable(read) : new Map<string, Owned>();
    const owners = new Map<string, number>();
    open.forEach((o, i) => o.keys.forEach((k) => owners.set(k, i)));
    const parts = open.map(() => ({ tables: {}, enums: read?.enums ?? {}, indexes: {}, constraints: {} }) as SchemaIR);
    const replaced = open.map((o) => [...o.keys]);
    for (const [key, table] of Object.entries(read?.tables ?? {})) {
      let owner = owners.get(key);
      if (owner === undefined) {
        if (inFull) continue; // not touched in the window: it is as the last read has it
        // Dependent tables are read with the asked ones (IntrospectOptions.tables); the window
        // reads migrations one by one where the database has them, so this one is the cause.
        if (open.length > 1) {
          throw new MtoolError('MTOOL_SNAPSHOT', `schema snapshot: reading ${asked.length} tables also returned '${key}', which none of the ${open.length} migrations read together touched, so which of them changed it is unknown`);
        }
        owner = 0;
        replaced[0]!.push(key);
      }
      const part = parts[owner]!;
      setEntry(part.tables, key, table);
      const owned = byTable.get(key);
      if (owned) {
        assignEntries(part.indexes, owned.indexes);
        assignEntries(part.constraints, owned.constraints);
      }
    }
    open.forEach((o, i) => {
      o.entry.step = { kind: 'partial', part: parts[i]!, replaced: replaced[i]!, enums: o.enums };
    });
    const union: SchemaIR = { tables: {}, enums: read?.enums ?? {}, indexes: {}, constraints: {} };
    for (const part of parts) {
      assignEntries(union.tables, part.tables);
      assignEntries(union.indexes, part.indexes);
      assignEntries(union.constraints, part.constraints);
    }
    this.#setBase(mergeTables(this.#base, union, replaced.flat(), open.some((o) => o.enums)));
    // Effects planned against the schema before this read no longer hold.
    this.#run = [];
    this.#open = [];
    this.#dirty.clear();
    this.#enumsDirty = false;
  }

  #timed(started: number): void {
    const ms = performance.now() - started;
    this.reads.count++;
    this.reads.ms += ms;
    this.reads.lastMs = ms;
  }

  #declaresLooseReference(file: MigrationFile): boolean {
    return this.#targets.declaresLooseReference(file.upgrade.map((s) => s.text), this.#syntax);
  }

  #effect(file: MigrationFile): MigrationEffect {
    return this.#targets.migrationEffect(
      file.upgrade.map((s) => s.text),
      this.#syntax,
      this.#base,
      this.#code,
    );
  }

  /** What {@link #needsRead} looks at, as the window has it now (with `copy`, for {@link runnable} to extend). */
  #pendingState(copy = false): PendingState {
    return { open: this.#open.length, dirty: copy ? new Set(this.#dirty) : this.#dirty, enumsDirty: this.#enumsDirty, looseReference: this.#looseReference };
  }

  /**
   * Whether the window must be read before a migration with this effect (see the class comment);
   * `keys`: its {@link #candidateKeys}, where the caller has them already.
   */
  #needsRead(effect: MigrationEffect, state: PendingState, keys?: readonly string[]): boolean {
    switch (effect.kind) {
      case 'none':
        return false;
      case 'full':
        return true;
      case 'partial':
        if (this.#code.dependents || state.looseReference) return true;
        if (effect.enums && state.enumsDirty) return true;
        return (keys ?? this.#candidateKeys(effect.tables)).some((k) => state.dirty.has(this.#targets.asciiLower(k)));
    }
  }

  /**
   * The keys to ask for: each key, its ASCII lower case, and every table of the last read whose
   * key differs only in case (SQLite and MySQL compare some names without case; asking for a
   * table that did not change is harmless, missing one is not).
   */
  #candidateKeys(keys: readonly string[]): string[] {
    const lower = this.#targets.asciiLower;
    const wanted = new Set<string>();
    const lowered = new Set<string>();
    for (const key of keys) {
      wanted.add(key);
      wanted.add(lower(key));
      lowered.add(lower(key));
    }
    for (const low of lowered) for (const key of this.#baseKeysByLower.get(low) ?? []) wanted.add(key);
    return [...wanted];
  }

  #setBase(base: SchemaIR): void {
    this.#base = base;
    this.#baseKeysByLower = new Map();
    for (const key of Object.keys(base.tables)) {
      const low = this.#targets.asciiLower(key);
      const same = this.#baseKeysByLower.get(low);
      if (same) same.push(key);
      else this.#baseKeysByLower.set(low, [key]);
    }
  }
}

/**
 * Whether a read of `asked` table keys goes faster as one full introspection: catalog queries
 * filtered by a long list of names cost more than reading everything once the list is a good
 * part of the schema. PostgreSQL: 100 of 1000 tables read in part take longer than all 1000.
 * MariaDB's information_schema opens only the tables named, so a part costs the server no more
 * than all of them up to about three quarters (median of 5, 2 cores: 500 of 1000 tables 42 ms
 * against 58 ms for all, 750 60 ms; 200 of 400 18 ms against 17 ms), while every table read
 * costs the client its IR and snapshot lines (a deferred snapshot's follower, as a batch of
 * CREATE TABLEs starts, asks for 100 tables of a few hundred).
 */
function readsInFull(asked: number, tableCount: number, dialect: DdlSyntax['dialect']): boolean {
  return asked > 32 && (dialect === 'mysql' ? asked * 4 > tableCount * 3 : asked * 4 > tableCount);
}

/**
 * A migration planned before it ran: its effect, and where {@link SchemaWindow.runnable} planned
 * it, the table keys it asks for and whether it declares a loose reference.
 */
interface Planned {
  file: MigrationFile;
  effect: MigrationEffect;
  keys?: string[];
  looseReference?: boolean;
}

/** The window's unread state that decides whether a migration needs a read first. */
interface PendingState {
  /** Migrations waiting for a read. */
  open: number;
  /** Their tables, in ASCII lower case. */
  dirty: Set<string>;
  enumsDirty: boolean;
  looseReference: boolean;
}

interface Owned {
  indexes: SchemaIR['indexes'];
  constraints: SchemaIR['constraints'];
}

function objectsByTable(ir: SchemaIR): Map<string, Owned> {
  const out = new Map<string, Owned>();
  const of = (table: string) => out.get(table) ?? out.set(table, { indexes: {}, constraints: {} }).get(table)!;
  for (const [key, index] of Object.entries(ir.indexes)) setEntry(of(index.table).indexes, key, index);
  for (const [key, constraint] of Object.entries(ir.constraints)) setEntry(of(constraint.table).constraints, key, constraint);
  return out;
}

/**
 * `previous` with the entries of the `replaced` tables and of the tables `part` holds (tables,
 * their indexes and constraints) replaced by `part`'s, and with `enums`, the enum types `part`
 * read (PostgreSQL reads them in full with any table list). A dropped table simply is not in
 * `part`. Untouched objects are the same objects as in `previous` (the snapshot writer reuses
 * their text).
 */
export function mergeTables(previous: SchemaIR, part: SchemaIR, replacedKeys: readonly string[], enums: boolean): SchemaIR {
  const replaced = replacedTables(part, replacedKeys);
  // Plain loops: a batch merges once per migration over the whole schema.
  const keep = <T extends { table: string }>(map: Record<string, T>, fresh: Record<string, T>): Record<string, T> => {
    const out: Record<string, T> = {};
    for (const key in map) if (!replaced.has(map[key]!.table)) setEntry(out, key, map[key]!);
    for (const key in fresh) setEntry(out, key, fresh[key]!);
    return out;
  };
  const tables: SchemaIR['tables'] = {};
  for (const key in previous.tables) if (!replaced.has(key)) setEntry(tables, key, previous.tables[key]!);
  for (const key in part.tables) setEntry(tables, key, part.tables[key]!);
  return {
    tables,
    enums: enums ? keptEnums((key) => getEntry(previous.enums, key), part.enums) : previous.enums,
    indexes: keep(previous.indexes, part.indexes),
    constraints: keep(previous.constraints, part.constraints),
  };
}

/** The table keys a partial step replaces: those it names and those `part` holds (read again). */
export function replacedTables(part: SchemaIR, replacedKeys: readonly string[]): Set<string> {
  return new Set([...replacedKeys, ...Object.keys(part.tables)]);
}

/**
 * The enum types read again (`fresh`, read whole), with the object found before under the same
 * key (`before`) kept where its content did not change, so its snapshot text is reused.
 */
export function keptEnums<T extends object>(before: (key: string) => unknown, fresh: Record<string, T>): Record<string, T> {
  const out: Record<string, T> = {};
  for (const [key, value] of Object.entries(fresh)) {
    const old = before(key);
    setEntry(out, key, old !== undefined && JSON.stringify(old) === JSON.stringify(value) ? (old as T) : value);
  }
  return out;
}
