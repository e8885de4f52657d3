import { performance } from 'node:perf_hooks';
import type { Connection, Dialect } from '../../dialects/types.js';
import type { MigrationFile } from '../../parser/migration-file.js';
import type { SchemaIR } from '../../schema/ir.js';
import type { DatabaseEntry } from '../config/types.js';
import type { Logger } from '../log.js';
import type { SnapshotWriter } from '../snapshot/snapshot-writer.js';
import type { DatabaseCode, DdlSyntax, MigrationEffect } from './ddl-targets.js';
import { formatMs } from './executor.js';
import type { EngineHooks } from './hooks.js';

export interface SnapshotHookOptions {
  /** Project root (`.mtool/schemas` lives under it). */
  root: string;
  /** The configured databases; the hook finds the one an event names. */
  databases: readonly DatabaseEntry[];
  log: Logger;
}

/** What the hook keeps about one database between the migrations of one batch. */
interface BatchState {
  /** The session the state was read through: another connection starts over. */
  conn: Connection;
  writer: SnapshotWriter;
  targets: typeof import('./ddl-targets.js');
  syntax: DdlSyntax;
  exclude: string[];
  /** The schema as of the last snapshot written; its objects are never mutated (the writer keeps their text). */
  ir?: SchemaIR;
  /** Triggers and event triggers, read again after every migration read in full (only those can add them). */
  code?: DatabaseCode;
}

/**
 * `migrate`'s schema snapshots (spec "Schema snapshot"): after each applied versioned migration
 * the live schema (tracking tables left out) is written as
 * `.mtool/schemas/<db>__<NNNN>_<desc>.schema.json`; with `--defer-snapshots` only once, for the
 * last migration of the batch. The engine never calls these hooks on `--dry-run` or for
 * repeatable migrations, and turns a thrown error into a warning (the migration stays applied).
 *
 * Within a batch the cost per migration follows what it changed, not the size of the schema: the
 * first snapshot introspects the whole database; each later one starts from the previous IR and
 * re-reads only the tables (or enum types) its statements touch (see ddl-targets.ts: anything
 * not recognised is read in full), and the snapshot writer reuses the text of unchanged objects
 * and the checksum it just wrote. A failed snapshot drops the kept state, so the next one reads
 * everything again. Logs `snapshot written in N ms` at INFO with `introspection`
 * (`full`, `partial` or `none`).
 * @example await engine.migrate(entry, ctx, { hooks: snapshotHooks({ root, databases: config.databases, log }) })
 */
export function snapshotHooks(options: SnapshotHookOptions): EngineHooks {
  const states = new Map<string, BatchState>();

  const write = async (database: string, conn: Connection, dialect: Dialect, file: MigrationFile, keep: boolean): Promise<void> => {
    const entry = options.databases.find((d) => d.name === database);
    if (!entry || file.version === undefined) return;
    const started = performance.now();
    const log = options.log.child({ db_name: entry.name, db_type: entry.type });
    let state = states.get(database);
    if (!state || state.conn !== conn) {
      // Loaded here, not at the top: a migrate that applies nothing must not pay for them.
      const [{ trackingTables }, { SnapshotWriter }, targets] = await Promise.all([import('../models/live-schema.js'), import('../snapshot/snapshot-writer.js'), import('./ddl-targets.js')]);
      state = { conn, writer: new SnapshotWriter(options.root, entry.name, entry.type), targets, syntax: targets.ddlSyntax(dialect), exclude: trackingTables(entry) };
      states.set(database, state);
    }
    try {
      const { ir, effect } = await nextSchema(state, dialect, file);
      if (effect.kind === 'full' && state.ir) log.debug(`snapshot of ${file.filename}: whole schema read (${effect.reason})`);
      const { path } = await state.writer.write({ migrationId: `${entry.name}__${file.version}_${file.description}`, schema: ir });
      state.ir = ir;
      if (!keep) states.delete(database);
      log.info(`snapshot written in ${formatMs(performance.now() - started)}`, { file: path, introspection: effect.kind });
    } catch (error) {
      states.delete(database);
      throw error;
    }
  };

  return {
    async afterVersionedMigration(event) {
      await write(event.database, event.conn, event.dialect, event.file, true);
    },
    async afterBatch(event) {
      const last = event.applied[event.applied.length - 1];
      if (event.deferred && last) await write(event.database, event.conn, event.dialect, last.file, false);
      states.delete(event.database);
    },
  };
}

/** The schema after `file`: introspected in full, or the kept IR with the touched tables re-read. */
async function nextSchema(state: BatchState, dialect: Dialect, file: MigrationFile): Promise<{ ir: SchemaIR; effect: MigrationEffect }> {
  const previous = state.ir;
  if (!previous) {
    state.code = undefined;
    return { ir: await dialect.introspect(state.conn, { exclude: state.exclude }), effect: { kind: 'full', reason: 'first snapshot of the batch' } };
  }
  if (state.syntax.codeCheck && !state.code) {
    const row = (await state.conn.query(state.syntax.codeCheck)).rows[0] ?? {};
    state.code = { eventTriggers: row.event_triggers === true, dmlCode: row.dml_code === true };
  }
  const effect = state.targets.migrationEffect(
    file.upgrade.map((s) => s.text),
    state.syntax,
    previous,
    state.code,
  );
  switch (effect.kind) {
    case 'none':
      return { ir: previous, effect };
    case 'full':
      state.code = undefined;
      return { ir: await dialect.introspect(state.conn, { exclude: state.exclude }), effect };
    case 'partial': {
      const asked = candidateKeys(effect.tables, previous, state.targets.asciiLower);
      const part = await dialect.introspect(state.conn, { exclude: state.exclude, tables: asked });
      return { ir: mergeTables(previous, part, asked), effect };
    }
  }
}

/**
 * The keys to ask for: each key, its ASCII lower case, and every table of `previous` whose key
 * differs only in case (SQLite and MySQL compare some names without case; asking for a table
 * that did not change is harmless, missing one is not).
 */
function candidateKeys(keys: readonly string[], previous: SchemaIR, asciiLower: (text: string) => string): string[] {
  const wanted = new Set<string>();
  const lowered = new Set<string>();
  for (const key of keys) {
    wanted.add(key);
    wanted.add(asciiLower(key));
    lowered.add(asciiLower(key));
  }
  for (const key of Object.keys(previous.tables)) if (lowered.has(asciiLower(key))) wanted.add(key);
  return [...wanted];
}

/**
 * `previous` with the entries of the asked tables and of the tables `part` returned (tables,
 * their indexes and constraints) replaced by `part`'s, and the enum types `part` read (PostgreSQL
 * reads them in full with any table list; other dialects have none). A dropped table simply is
 * not in `part`. Untouched objects are the same objects as in `previous`.
 */
export function mergeTables(previous: SchemaIR, part: SchemaIR, asked: readonly string[]): SchemaIR {
  const replaced = new Set([...asked, ...Object.keys(part.tables)]);
  const keep = <T extends { table: string }>(map: Record<string, T>, fresh: Record<string, T>): Record<string, T> => {
    const out: Record<string, T> = {};
    for (const [key, value] of Object.entries(map)) if (!replaced.has(value.table)) out[key] = value;
    return Object.assign(out, fresh);
  };
  const tables = { ...previous.tables };
  for (const key of replaced) delete tables[key];
  Object.assign(tables, part.tables);
  return {
    tables,
    enums: sameEntries(previous.enums, part.enums),
    indexes: keep(previous.indexes, part.indexes),
    constraints: keep(previous.constraints, part.constraints),
  };
}

/** `fresh`, with the objects of `old` kept where their content did not change (so their text is reused). */
function sameEntries<T extends object>(old: Record<string, T>, fresh: Record<string, T>): Record<string, T> {
  const out: Record<string, T> = {};
  for (const [key, value] of Object.entries(fresh)) {
    const before = old[key];
    out[key] = before !== undefined && JSON.stringify(before) === JSON.stringify(value) ? before : value;
  }
  return out;
}
