import type { Connection, SessionGuard } from '../types.js';
import { executed } from './executable-comment.js';
import { mysqlQuoting } from './quoting.js';

/**
 * A `SET` that may change session variables: not `SET GLOBAL` / `PERSIST` (the server's), nor
 * `SET PASSWORD`, `SET [DEFAULT] ROLE`, `SET TRANSACTION` (the next transaction only) or MariaDB's
 * `SET STATEMENT ... FOR` (that statement only).
 */
const SET_STATEMENT = /^SET\s+(?!(?:GLOBAL|PERSIST|PERSIST_ONLY|PASSWORD|ROLE|DEFAULT\s+ROLE|TRANSACTION|STATEMENT)\b)/i;

/** What `SET NAMES` and `SET CHARACTER SET` change, in the order they are set back (the collation after its character set). */
const CHARSET_VARIABLES = ['character_set_client', 'character_set_results', 'character_set_connection', 'collation_connection'];

/**
 * Variables left as the file sets them: autocommit and foreign_key_checks are put back as
 * session switches (dialect.ts); the rest hold one value for the next statement, not a setting.
 */
const NOT_KEPT = new Set(['autocommit', 'foreign_key_checks', 'insert_id', 'last_insert_id', 'identity', 'rand_seed1', 'rand_seed2']);

/** Set back to the clock (DEFAULT), never to the instant saved. */
const CLOCK = 'timestamp';

/**
 * The session variables a file's `SET` statements change, saved in user variables before its
 * first statement and set back after its last, in statements that travel with the file's own:
 * `SET @mtool_saved_sql_mode = @@SESSION.sql_mode` ... `SET SESSION sql_mode = @mtool_saved_sql_mode`;
 * the temporary tables it makes, dropped after it; tables and named locks it takes, released after it.
 */
export function mysqlSessionGuard(statements: readonly { readonly text: string }[]): SessionGuard | undefined {
  // Allocated only for a file that changes something: the executor asks about every file of a batch.
  let names: Set<string> | undefined;
  let temporary: Set<string> | undefined;
  let locks = false;
  let named = false;
  let characteristics = false;
  let role = false;
  for (let i = 0; i < statements.length; i++) {
    const text = executed(statements[i]!.text);
    characteristics ||= SETS_CHARACTERISTICS.test(text);
    role ||= SETS_ROLE.test(text);
    if (SET_STATEMENT.test(text)) for (const name of assignedVariables(text)) if (!NOT_KEPT.has(name)) (names ??= new Set()).add(name);
    const made = MAKES_TEMPORARY.exec(text);
    if (made) (temporary ??= new Set()).add(made[1]!);
    locks ||= LOCKS_TABLES.test(text);
    named ||= TAKES_NAMED_LOCK.test(text);
  }
  if (names === undefined && temporary === undefined && !locks && !named && !characteristics && !role) return undefined;
  const ordered = [...(names ?? [])].sort((a, b) => order(a) - order(b));
  const saved = ordered.filter((name) => name !== CLOCK);
  const save = saved.length === 0 ? [] : [`SET ${saved.map((name) => `@mtool_saved_${name} = @@SESSION.${name}`).join(', ')}`];
  // First: while tables are locked, nothing else may be touched (mtool's tracking table included).
  const unlock = locks ? ['UNLOCK TABLES'] : [];
  const restore = [
    ...(ordered.length === 0 ? [] : [`SET ${ordered.map((name) => (name === CLOCK ? 'SESSION timestamp = DEFAULT' : `SESSION ${name} = @mtool_saved_${name}`)).join(', ')}`]),
    ...(temporary === undefined ? [] : [`DROP TEMPORARY TABLE IF EXISTS ${[...temporary].join(', ')}`]),
    ...(named ? ['DO RELEASE_ALL_LOCKS()'] : []),
  ];
  if (!characteristics && !role) return { save, restore: [...unlock, ...restore] };
  return {
    // The role(s) and the characteristics' variables are read (SET ROLE takes no expression;
    // the variables are named differently by version); the rest is saved on the server.
    async capture(conn: Connection) {
      const roles = role ? await activeRoles(conn) : [];
      for (const statement of save) await conn.query(statement);
      return { restore: [...unlock, ...roles, ...restore, ...(characteristics ? await transactionCharacteristics(conn) : [])] };
    },
  };
}

/**
 * `SET ROLE r` (not `SET DEFAULT ROLE`, which changes the account's next sessions, not this one):
 * the migrations after it, mtool's tracking rows and the lock's release would act with that
 * role's rights instead of those the session opened with (its default role's, maybe).
 */
const SETS_ROLE = /^SET\s+ROLE\b/i;

/**
 * The statement that makes the roles active now active again (first after the file: its rights
 * may be the ones the statements after it need). MariaDB's `CURRENT_ROLE()` is one role's name
 * or NULL; MySQL 8's the list of active roles, quoted (`` `r`@`%`,`s`@`%` ``), or `NONE`.
 */
async function activeRoles(conn: Connection): Promise<string[]> {
  const { rows } = await conn.query('SELECT CURRENT_ROLE() AS mtool_role, VERSION() AS mtool_version');
  const current = rows[0]?.mtool_role;
  if (current === null || current === undefined || current === 'NONE' || current === '') return ['SET ROLE NONE'];
  const name = String(current);
  return [`SET ROLE ${/mariadb/i.test(String(rows[0]?.mtool_version)) ? mysqlQuoting.ident(name) : name}`];
}

/**
 * `SET [SESSION | LOCAL] TRANSACTION ISOLATION LEVEL ... | READ ONLY`: the session's transactions
 * (or the next one, without a scope: maybe mtool's tracking row) get them, a read-only one
 * refusing every write after it, the tracking row and the lock's release included.
 */
const SETS_CHARACTERISTICS = /^SET\s+(?:(?:SESSION|LOCAL)\s+)?TRANSACTION\b/i;

/** The isolation levels as the server shows them (`REPEATABLE-READ`). */
const ISOLATION_LEVELS = new Set(['READ-UNCOMMITTED', 'READ-COMMITTED', 'REPEATABLE-READ', 'SERIALIZABLE']);

/**
 * The statement that sets the session's transaction characteristics back as they are now (it
 * also replaces those a scopeless `SET TRANSACTION` left for the next transaction). Read with
 * SHOW: MySQL 8 names them `transaction_isolation` / `transaction_read_only`, MariaDB before
 * 11.1 `tx_isolation` / `tx_read_only`.
 */
async function transactionCharacteristics(conn: Connection): Promise<string[]> {
  const { rows } = await conn.query(
    "SHOW SESSION VARIABLES WHERE Variable_name IN ('transaction_isolation', 'tx_isolation', 'transaction_read_only', 'tx_read_only')",
  );
  let isolation = 'REPEATABLE-READ';
  let readOnly = false;
  for (const row of rows) {
    const [name, value] = Object.values(row).map((v) => String(v));
    if (/isolation$/i.test(name!) && ISOLATION_LEVELS.has(value!.toUpperCase())) isolation = value!.toUpperCase();
    if (/read_only$/i.test(name!)) readOnly = value === 'ON' || value === '1';
  }
  return [`SET SESSION TRANSACTION ISOLATION LEVEL ${isolation.replace('-', ' ')}, ${readOnly ? 'READ ONLY' : 'READ WRITE'}`];
}

/** `GET_LOCK(name, timeout)`: a named lock held until released or the session ends (the end of the run). */
const TAKES_NAMED_LOCK = /\bGET_LOCK\s*\(/i;

/** `LOCK TABLES` / `LOCK TABLE`: until UNLOCK TABLES the session may use no other table. */
const LOCKS_TABLES = /^LOCK\s+TABLES?\b/i;

/** `CREATE TEMPORARY TABLE [IF NOT EXISTS] name`: the table (as written, maybe qualified), dropped after the file. */
const MAKES_TEMPORARY = /^CREATE\s+TEMPORARY\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?((?:`(?:[^`]|``)+`|[\w$]+)(?:\s*\.\s*(?:`(?:[^`]|``)+`|[\w$]+))?)/i;

const order = (name: string): number => {
  const i = CHARSET_VARIABLES.indexOf(name);
  return i < 0 ? -1 : i;
};

/**
 * The session variables one `SET` statement assigns: `SET [SESSION | LOCAL] name = value`,
 * `@@[session. | local.]name = value`, several separated by commas (a `GLOBAL` modifier carries
 * to the assignments after it until another one), `NAMES ...` and `CHARACTER SET ...`. User
 * variables (`@name`) are not the session's settings. Lower case, as the server treats them.
 */
export function assignedVariables(text: string): string[] {
  // Quoted text and parenthesised expressions hold no assignment of their own (and may hold commas).
  let body = text.replace(/^SET\s+/i, '').replace(/'(?:[^'\\]|\\[\s\S]|'')*'|"(?:[^"\\]|\\[\s\S]|"")*"|`(?:[^`]|``)*`/g, "''");
  for (let previous = ''; previous !== body; ) [previous, body] = [body, body.replace(/\([^()]*\)/g, '()')];
  const names: string[] = [];
  let global = false;
  for (const part of body.split(',')) {
    const assignment = part.trim();
    if (/^(?:NAMES|CHARACTER\s+SET|CHARSET)\b/i.test(assignment)) {
      names.push(...CHARSET_VARIABLES);
      continue;
    }
    const match = /^(?:(GLOBAL|SESSION|LOCAL|PERSIST|PERSIST_ONLY)\s+)?(@@(?:(global|session|local|persist|persist_only)\.)?|@)?([A-Za-z_][A-Za-z0-9_$]*)\s*:?=/i.exec(assignment);
    if (!match) continue;
    const [, modifier, at, scope, name] = match;
    if (at === '@') continue;
    const explicit = (scope ?? modifier)?.toLowerCase();
    if (explicit !== undefined) global = explicit !== 'session' && explicit !== 'local';
    if (!global) names.push(name!.toLowerCase());
  }
  return names;
}
