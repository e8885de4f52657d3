import type { Connection, SessionGuard } from '../types.js';

/**
 * The connection settings a migration may set with PRAGMA that change how the statements after
 * it run (how ALTER TABLE ... RENAME treats views and triggers, whether CHECK constraints and
 * recursive triggers apply, whether anything may be written, how commits are synced), and that
 * can be read back. Not here: foreign_keys (a session switch, dialect.ts), what is stored in the
 * database file itself (journal_mode, user_version, application_id, page_size, auto_vacuum), and
 * PRAGMAs that are commands (integrity_check, optimize, wal_checkpoint, table_info, ...).
 */
const SETTINGS = new Set([
  'legacy_alter_table',
  'recursive_triggers',
  'reverse_unordered_selects',
  'ignore_check_constraints',
  'query_only',
  'writable_schema',
  'trusted_schema',
  'defer_foreign_keys',
  'automatic_index',
  'cell_size_check',
  'secure_delete',
  'synchronous',
  'temp_store',
  'cache_size',
  'busy_timeout',
]);

/** `PRAGMA [schema.]name = value` or `PRAGMA [schema.]name(value)`: the (qualified) name set. */
const SETS_PRAGMA = /^PRAGMA\s+((?:(?:"[^"]+"|\w+)\s*\.\s*)?(\w+))\s*(?:=|\()/i;

/**
 * `CREATE TEMP[ORARY] TABLE | VIEW | TRIGGER [IF NOT EXISTS] [temp.]name`, or the same without
 * TEMP and with `temp.` (SQLite's schema of temporary objects): what it makes and its name.
 */
const MAKES_TEMPORARY =
  /^CREATE\s+(?:(?:TEMP|TEMPORARY)\s+(TABLE|VIEW|TRIGGER)\s+(?:IF\s+NOT\s+EXISTS\s+)?(?:(?:temp|"temp"|\[temp\]|`temp`)\s*\.\s*)?|(TABLE|VIEW|TRIGGER)\s+(?:IF\s+NOT\s+EXISTS\s+)?(?:temp|"temp"|\[temp\]|`temp`)\s*\.\s*)("(?:[^"]|"")+"|\[[^\]]+\]|`(?:[^`]|``)+`|\w+)/i;

/** `ATTACH [DATABASE] expr AS name`: the name the database is attached as (the last AS: expr may hold one). */
const ATTACHES = /^ATTACH\b[\s\S]*\bAS\s+("(?:[^"]|"")+"|\[[^\]]+\]|`(?:[^`]|``)+`|\w+)\s*$/i;

/** `DETACH [DATABASE] name`. */
const DETACHES = /^DETACH\s+(?:DATABASE\s+)?("(?:[^"]|"")+"|\[[^\]]+\]|`(?:[^`]|``)+`|\w+)\s*$/i;

/** A schema name as SQLite compares it: unquoted, case-insensitive. */
const schemaName = (quoted: string): string => {
  const first = quoted[0];
  const bare = first === '"' || first === '`' ? quoted.slice(1, -1).replaceAll(first + first, first) : first === '[' ? quoted.slice(1, -1) : quoted;
  return bare.toLowerCase();
};

/**
 * Read the values of the settings a file's PRAGMAs set, before it runs, and set them back after
 * it (`PRAGMA legacy_alter_table = 0`); drop the temporary tables, views and triggers it makes;
 * detach the databases it attached and left attached (in the next migration, an ATTACH of the
 * same name would fail and unqualified names would find their tables: not so in a run of its own).
 */
export function sqliteSessionGuard(statements: readonly { readonly text: string }[]): SessionGuard | undefined {
  let names: Set<string> | undefined;
  let drops: string[] | undefined;
  let attached: Set<string> | undefined;
  for (let i = 0; i < statements.length; i++) {
    const text = statements[i]!.text;
    const attach = ATTACHES.exec(text);
    if (attach) (attached ??= new Set()).add(schemaName(attach[1]!));
    const detach = attached === undefined ? null : DETACHES.exec(text);
    if (detach) attached!.delete(schemaName(detach[1]!));
    const match = SETS_PRAGMA.exec(text);
    if (match && SETTINGS.has(match[2]!.toLowerCase())) (names ??= new Set()).add(match[1]!.replace(/\s+/g, ''));
    const made = MAKES_TEMPORARY.exec(text);
    if (made) (drops ??= []).push(`DROP ${(made[1] ?? made[2])!.toUpperCase()} IF EXISTS temp.${made[3]}`);
  }
  const detached = [...(attached ?? [])].map((name) => `DETACH DATABASE "${name.replaceAll('"', '""')}"`);
  if (names === undefined && drops === undefined && detached.length === 0) return undefined;
  // A trigger goes with its table: views and triggers first, in reverse order of their making.
  // Temporary objects may refer to an attached database's tables: detached after them.
  const dropped = [...(drops ?? []).reverse(), ...detached];
  if (names === undefined) return { save: [], restore: dropped };
  const pragmas = [...names];
  return {
    async capture(conn: Connection) {
      const restore: string[] = [];
      for (const pragma of pragmas) {
        const { rows } = await conn.query(`PRAGMA ${pragma}`);
        const value = rows[0] === undefined ? undefined : Object.values(rows[0])[0];
        if (typeof value === 'number' || typeof value === 'bigint') restore.push(`PRAGMA ${pragma} = ${value}`);
      }
      return { restore: [...restore, ...dropped] };
    },
  };
}
