import type { SessionGuard } from '../types.js';

/**
 * Statements that change a setting of the session for the statements after it: `SET` (not
 * `SET LOCAL`, which ends with the transaction, nor `SET TRANSACTION` / `SET CONSTRAINTS`, nor
 * what is switched back as a session switch: the search_path, the role,
 * session_replication_role), `RESET`, `DISCARD ALL`, and `set_config(...)` anywhere in a
 * statement (its third argument may make it session-wide).
 */
const CHANGES_SETTINGS =
  /^(?:SET\s+(?!LOCAL\b|TRANSACTION\b|CONSTRAINTS\b|(?:SESSION\s+)?(?:search_path|SCHEMA|ROLE|SESSION\s+AUTHORIZATION|session_replication_role)\b)|RESET\s|DISCARD\s+ALL\b)|\bset_config\s*\(\s*(?!'(?:search_path|role|session_replication_role)')/i;

/**
 * The settings kept: every one a session may change (`user` and `superuser` context), except
 * those put back as session switches (the search_path, the role, session_replication_role:
 * dialect.ts) and the transaction's own, which cannot change once it has run a statement.
 * Custom (`prefix.name`) settings are left alone, mtool's own included.
 */
const KEPT = `FROM pg_settings WHERE context IN ('user', 'superuser') AND name NOT LIKE '%.%' AND name NOT IN ('search_path', 'role', 'session_authorization', 'session_replication_role', 'transaction_isolation', 'transaction_read_only', 'transaction_deferrable')`;

/** Where the values are kept while the file runs: one custom setting of the session, as JSON. */
const SAVED = 'mtool.saved_settings';

/**
 * The file's settings changes end with the file: their values are saved before its first
 * statement and every kept setting that differs afterwards is set back. Both run on the server
 * and travel with the file's statements (no round trip of their own); in the file's transaction,
 * a rollback undoes both with the file. After a failure that rolled the save back too, the
 * restore finds nothing saved and does nothing.
 */
const GUARD = {
  save: [`SELECT set_config('${SAVED}', (SELECT json_object_agg(name, setting) ${KEPT})::text, false)`],
  restore: [
    `SELECT count(set_config(s.name, saved.value, false)) FROM pg_settings s JOIN json_each_text(current_setting('${SAVED}', true)::json) saved ON saved.key = s.name WHERE s.setting IS DISTINCT FROM saved.value`,
  ],
} satisfies SessionGuard;

/** Statements that make temporary objects (`CREATE [GLOBAL | LOCAL] TEMP[ORARY] TABLE | VIEW | SEQUENCE`, `SELECT ... INTO TEMP`). */
const MAKES_TEMPORARY = /^CREATE\s+(?:OR\s+REPLACE\s+)?(?:(?:GLOBAL|LOCAL)\s+)?(?:TEMP|TEMPORARY)\b|^SELECT\b[\s\S]*?\bINTO\s+(?:TEMP|TEMPORARY)\b/i;

/** The session's temporary objects go with the file that made them. */
const DROP_TEMPORARY = 'DISCARD TEMP';

/** Session-level advisory locks (`pg_advisory_lock`, `pg_try_advisory_lock`, shared or not; the `_xact_` ones end with the transaction). */
const TAKES_ADVISORY_LOCK = /\bpg_(?:try_)?advisory_lock(?:_shared)?\s*\(/i;

/** A lock the file did not release would be held until the end of the run, for every migration after it. */
const RELEASE_ADVISORY_LOCKS = 'SELECT pg_advisory_unlock_all()';

/** {@link import('../types.js').Dialect.sessionGuard} for PostgreSQL. */
export function postgresSessionGuard(statements: readonly { readonly text: string }[]): SessionGuard | undefined {
  const settings = statements.some((s) => CHANGES_SETTINGS.test(s.text));
  const temporary = statements.some((s) => MAKES_TEMPORARY.test(s.text));
  const locks = statements.some((s) => TAKES_ADVISORY_LOCK.test(s.text));
  if (!settings && !temporary && !locks) return undefined;
  if (!temporary && !locks) return GUARD;
  return {
    save: settings ? GUARD.save : [],
    restore: [...(settings ? GUARD.restore : []), ...(temporary ? [DROP_TEMPORARY] : []), ...(locks ? [RELEASE_ADVISORY_LOCKS] : [])],
  };
}
