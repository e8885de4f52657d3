import type { Connection, SessionGuard } from '../types.js';
import { postgresQuoting } from './quoting.js';

/**
 * Statements that change a setting of the session for the statements after it: `SET` (not
 * `SET LOCAL`, which ends with the transaction, nor `SET TRANSACTION` / `SET CONSTRAINTS`, nor
 * what is switched back as a session switch: the search_path, the role,
 * session_replication_role), `RESET`, `DISCARD ALL`, and `set_config(...)` anywhere in a
 * statement (its third argument may make it session-wide). Also what may run such a statement out
 * of sight: a DO block holding `SET` (`EXECUTE 'SET statement_timeout = 1'`; an `UPDATE ... SET`
 * costs one needless read) and `CALL` (a procedure's body may `SET`).
 */
const CHANGES_SETTINGS =
  /^(?:SET\s+(?!LOCAL\b|TRANSACTION\b|CONSTRAINTS\b|(?:SESSION\s+)?(?:search_path|SCHEMA|ROLE|SESSION\s+AUTHORIZATION|session_replication_role)\b)|RESET\s|DISCARD\s+ALL\b|DO\b[\s\S]*\bSET\s|CALL\b)|\bset_config\s*\(\s*(?!'(?:search_path|role|session_replication_role)')/i;

/**
 * The settings kept: every one a session may change (`user` and `superuser` context), except
 * those put back as session switches (the search_path, the role, session_replication_role:
 * dialect.ts) and the transaction's own, which cannot change once it has run a statement.
 * Custom (`prefix.name`) settings are left alone.
 */
const KEPT = `FROM pg_settings WHERE context IN ('user', 'superuser') AND name NOT LIKE '%.%' AND name NOT IN ('search_path', 'role', 'session_authorization', 'session_replication_role', 'transaction_isolation', 'transaction_read_only', 'transaction_deferrable')`;

/**
 * The file's settings changes end with the file: every kept setting's value is read before the
 * file (one query, only for a file that changes settings) and, after it, each that differs is set
 * back by one statement that carries the values. Read by mtool rather than kept in the session,
 * since a file may `DISCARD ALL` / `RESET ALL`, which would forget them with everything else
 * (mtool's own session settings included, which this puts back too).
 */
async function captureSettings(conn: Connection): Promise<string[]> {
  const { rows } = await conn.query(`SELECT name, setting ${KEPT} AND setting IS NOT NULL`);
  if (rows.length === 0) return [];
  const values = rows.map((r) => `(${postgresQuoting.literal(String(r.name))}, ${postgresQuoting.literal(String(r.setting))})`).join(', ');
  // The timeout first, in a statement that takes no time: a file's short statement_timeout would cancel the query that sets the rest back.
  const timeout = rows.find((r) => r.name === 'statement_timeout');
  return [
    ...(timeout === undefined ? [] : [`SET statement_timeout = ${postgresQuoting.literal(String(timeout.setting))}`]),
    `SELECT count(set_config(s.name, v.value, false)) FROM pg_settings s JOIN (VALUES ${values}) AS v (name, value) ON v.name = s.name WHERE s.setting IS DISTINCT FROM v.value`,
  ];
}

/**
 * Statements that make temporary objects (`CREATE [GLOBAL | LOCAL] TEMP[ORARY] TABLE | VIEW | SEQUENCE`,
 * the same without TEMP in schema `pg_temp`, `SELECT ... INTO TEMP`).
 */
const MAKES_TEMPORARY =
  /^CREATE\s+(?:OR\s+REPLACE\s+)?(?:(?:GLOBAL|LOCAL)\s+)?(?:TEMP|TEMPORARY)\b|^CREATE\s+(?:OR\s+REPLACE\s+)?(?:TABLE|VIEW|SEQUENCE)\s+(?:IF\s+NOT\s+EXISTS\s+)?(?:pg_temp|"pg_temp")\s*\.|^SELECT\b[\s\S]*?\bINTO\s+(?:TEMP|TEMPORARY)\b/i;

/** The session's temporary objects go with the file that made them. */
const DROP_TEMPORARY = 'DISCARD TEMP';

/** Session-level advisory locks (`pg_advisory_lock`, `pg_try_advisory_lock`, shared or not; the `_xact_` ones end with the transaction). */
const TAKES_ADVISORY_LOCK = /\bpg_(?:try_)?advisory_lock(?:_shared)?\s*\(/i;

/** A lock the file did not release would be held until the end of the run, for every migration after it. */
const RELEASE_ADVISORY_LOCKS = 'SELECT pg_advisory_unlock_all()';

/** {@link import('../types.js').Dialect.sessionGuard} for PostgreSQL. */
export function postgresSessionGuard(statements: readonly { readonly text: string }[]): SessionGuard | undefined {
  // One pass, no closures: the executor asks about every file of a batch.
  let settings = false;
  let temporary = false;
  let locks = false;
  for (let i = 0; i < statements.length; i++) {
    const text = statements[i]!.text;
    settings ||= CHANGES_SETTINGS.test(text);
    temporary ||= MAKES_TEMPORARY.test(text);
    locks ||= TAKES_ADVISORY_LOCK.test(text);
  }
  if (!settings && !temporary && !locks) return undefined;
  const after = [...(temporary ? [DROP_TEMPORARY] : []), ...(locks ? [RELEASE_ADVISORY_LOCKS] : [])];
  if (!settings) return { save: [], restore: after };
  return { capture: async (conn) => ({ restore: [...(await captureSettings(conn)), ...after] }) };
}
