import { disposeDialects } from '../../dialects/index.js';
import { MtoolError } from '../../errors.js';
import type { SchemaIR } from '../../schema/ir.js';
import { hasEntry } from '../../schema/name-map.js';
import { MTOOL_TRACKING_TABLES, schemaIo } from '../../schema/schema-io.js';
import type { CommandContext, OptionValues } from '../commands/command.js';
import type { DatabaseEntry, LoadedConfig } from '../config/types.js';
import { withSession, type DatabaseSession } from '../engine/database-session.js';

/** Tables mtool keeps in a database, with this database's configured names: never part of its schema. */
export function trackingTables(entry: DatabaseEntry): string[] {
  return [...new Set([...MTOOL_TRACKING_TABLES, entry.migrationTable, entry.seedTable])];
}

/** Read the live schema of an open session, leaving mtool's own tables out. */
export async function introspectSession(session: DatabaseSession): Promise<SchemaIR> {
  const io = await schemaIo(session.entry.type);
  return io.introspect(session.conn, { exclude: trackingTables(session.entry) });
}

/** `--database` (or the default database) of a command, with the configuration. */
export async function targetDatabase(ctx: CommandContext, options: OptionValues, all = false): Promise<{ config: LoadedConfig; entries: DatabaseEntry[] }> {
  const config = await ctx.loadConfig();
  const { selectDatabases } = await import('../config/load-config.js');
  const database = typeof options.database === 'string' ? options.database : undefined;
  return { config, entries: selectDatabases(config, { database, all: all && options.all === true }) };
}

/**
 * What {@link onDatabase} does when a SQLite database file does not exist:
 * - `fail` (inspection: check-db, snapshot, generate-models): a typo in the URL must not read
 *   as an empty schema and leave an empty file behind; fail naming the file;
 * - `empty`: read it as an empty database, without creating it (the session warns);
 * - `create`: create it, as a command that writes there needs.
 */
export type MissingDatabaseFile = 'fail' | 'empty' | 'create';

/**
 * Open a session on one configured database, run `fn`, close it and release the drivers' shared
 * resources (pools), so the command's process can end.
 * @param options.missingFile default `fail`: see {@link MissingDatabaseFile}.
 * @throws MtoolError MTOOL_CONNECTION when a SQLite database file is missing and `missingFile` is `fail`.
 */
export async function onDatabase<T>(
  config: LoadedConfig,
  entry: DatabaseEntry,
  ctx: CommandContext,
  fn: (session: DatabaseSession) => Promise<T>,
  options: { missingFile?: MissingDatabaseFile } = {},
): Promise<T> {
  const missingFile = options.missingFile ?? 'fail';
  try {
    // Read-only sessions never create the file; the driver says when it is absent (absentFile).
    return await withSession(entry, config.root, ctx.log, fn, { readOnly: missingFile !== 'create', requireFile: missingFile === 'fail' });
  } finally {
    await disposeDialects();
  }
}

/**
 * The key of a table in `ir` from what a user typed: the exact key, or a bare name that matches
 * exactly one table (`events` for `app.events`).
 * @throws MtoolError MTOOL_NOT_FOUND listing close names.
 */
export function findTableKey(ir: SchemaIR, wanted: string, database: string): string {
  if (hasEntry(ir.tables, wanted)) return wanted;
  const keys = Object.keys(ir.tables).sort();
  const byName = keys.filter((k) => ir.tables[k]!.name === wanted);
  if (byName.length === 1) return byName[0]!;
  if (byName.length > 1) throw new MtoolError('MTOOL_NOT_FOUND', `table '${wanted}' exists in several schemas of database '${database}': ${byName.join(', ')}; name one of them`, { database });
  throw new MtoolError('MTOOL_NOT_FOUND', `table '${wanted}' does not exist in database '${database}'${closeNamesHint(wanted, keys)}`, { database });
}

/** `; did you mean: a, b` / `; tables: ...` / `; the database has no tables`. */
export function closeNamesHint(wanted: string, names: readonly string[]): string {
  if (names.length === 0) return '; the database has no tables';
  const lower = wanted.toLowerCase();
  const close = names
    .map((n) => ({ n, d: distance(lower, n.toLowerCase()) }))
    .filter(({ n, d }) => d <= Math.max(2, Math.floor(wanted.length / 3)) || n.toLowerCase().includes(lower) || lower.includes(n.toLowerCase()))
    .sort((a, b) => a.d - b.d || (a.n < b.n ? -1 : 1))
    .map(({ n }) => n);
  if (close.length > 0) return `; did you mean: ${close.slice(0, 5).join(', ')}?`;
  return `; tables: ${names.slice(0, 20).join(', ')}${names.length > 20 ? `, … (${names.length} in all)` : ''}`;
}

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const current = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = current;
    }
  }
  return row[b.length]!;
}
