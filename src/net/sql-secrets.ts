/**
 * Passwords written into SQL text (DESIGN.md section 5, Secrets): a migration that creates a
 * role or user, a foreign server's user mapping, a ClickHouse dictionary source or a replication
 * source carries one as a string literal, and mtool shows statements in `--perf` and trace logs
 * and in the messages of a failed migration. Those literals are masked there; the statement that
 * runs is never changed.
 */
import { isSecretOptionName } from './mask.js';

/**
 * A string literal: single- or double-quoted (doubled quotes and backslash escapes inside), or
 * PostgreSQL dollar-quoted. One cut short (a statement preview ends mid-literal) runs to the end
 * of the text, so the cut piece is masked too.
 */
const LITERAL = String.raw`'(?:[^'\\]|\\[\s\S]|'')*(?:'|$)|"(?:[^"\\]|\\[\s\S]|"")*(?:"|$)|\$(?<tag>[A-Za-z_]\w*)?\$[\s\S]*?(?:\$\k<tag>\$|$)`;

/**
 * Keywords whose next literal is a password: `[ENCRYPTED] PASSWORD 'x'` (PostgreSQL roles,
 * ClickHouse dictionary sources, user-mapping options), `PASSWORD('x')` (MariaDB),
 * `IDENTIFIED [WITH|VIA plugin] BY|USING|AS 'x'` (MySQL, MariaDB, ClickHouse users) and
 * `SET PASSWORD [FOR user] = 'x'`.
 */
const KEYWORD_SECRET_RE = new RegExp(
  String.raw`(\bPASSWORD(?:\s*\(\s*|\s+)|\bIDENTIFIED\s+(?:(?:WITH|VIA)\s+[\w$]+\s+)?(?:BY|USING|AS)\s+|\bSET\s+PASSWORD\b[^=;]*=\s*)(${LITERAL})`,
  'gi',
);

/**
 * `name = 'x'`, or `name=x` without spaces (inside a libpq connection string), where the name
 * looks like a secret's. An unquoted value after a spaced `=` is SQL (`SET PASSWORD = PASSWORD(...)`), not a secret.
 */
const ASSIGNMENT_RE = new RegExp(String.raw`\b([A-Za-z_][\w-]*)(\s*=\s*(?=['"$])|=)(${LITERAL}|[^\s'",;&()]+)`, 'g');

function masked(literal: string): string {
  const quote = literal[0] === "'" || literal[0] === '"' ? literal[0] : '';
  if (quote === '') return '***';
  return literal.length > 1 && literal.endsWith(quote) ? `${quote}***${quote}` : `${quote}***`;
}

/**
 * Mask the password literals of SQL text (see the module comment); everything else is kept.
 * @example maskSqlSecrets("CREATE ROLE app LOGIN PASSWORD 's3cret'") // "CREATE ROLE app LOGIN PASSWORD '***'"
 * @example maskSqlSecrets("CREATE USER 'app'@'%' IDENTIFIED BY 's3cret'") // "CREATE USER 'app'@'%' IDENTIFIED BY '***'"
 */
export function maskSqlSecrets(text: string): string {
  if (typeof text !== 'string' || text === '') return text;
  return text
    .replace(KEYWORD_SECRET_RE, (_all, keyword: string, literal: string) => `${keyword}${masked(literal)}`)
    .replace(ASSIGNMENT_RE, (all, name: string, sep: string, value: string) => (isSecretOptionName(name) ? `${name}${sep}${masked(value)}` : all));
}
