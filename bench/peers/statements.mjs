// The one workload every tool applies: N small, independent CREATE TABLEs, numbered from 1.
// `text` works on PostgreSQL, MariaDB and SQLite alike, so every engine gets the same statement.

/** Upgrade statement of migration `i` (no trailing semicolon). */
export const upSql = (i) => `CREATE TABLE t_${i} (id integer primary key, name text)`;

/** Rollback statement of migration `i` (no trailing semicolon). */
export const downSql = (i) => `DROP TABLE t_${i}`;

/** Four-digit version of migration `i`, as mtool's and the peers' file names use. */
export const version = (i) => String(i).padStart(4, '0');

/** 1..n */
export const indexes = (n) => Array.from({ length: n }, (_, k) => k + 1);
