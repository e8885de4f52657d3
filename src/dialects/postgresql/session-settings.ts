import type { SettingsGuard } from '../types.js';

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
const GUARD: SettingsGuard = {
  save: [`SELECT set_config('${SAVED}', (SELECT json_object_agg(name, setting) ${KEPT})::text, false)`],
  restore: [
    `SELECT count(set_config(s.name, saved.value, false)) FROM pg_settings s JOIN json_each_text(current_setting('${SAVED}', true)::json) saved ON saved.key = s.name WHERE s.setting IS DISTINCT FROM saved.value`,
  ],
};

/** {@link import('../types.js').Dialect.settingsGuard} for PostgreSQL. */
export function postgresSettingsGuard(statements: readonly { readonly text: string }[]): SettingsGuard | undefined {
  return statements.some((s) => CHANGES_SETTINGS.test(s.text)) ? GUARD : undefined;
}
