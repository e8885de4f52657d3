import type { Capabilities, ServerVersion } from '../../dialects/types.js';
import type { MigrationFile, SqlStatement } from '../../parser/migration-file.js';

/** Why a migration file runs outside a transaction, or undefined when it runs inside one. */
export interface NoTransactionReason {
  /** The directive or the statement that forced it. */
  reason: string;
  /** The statement that cannot run in a transaction (absent for the directive). */
  statement?: SqlStatement;
}

interface Rule {
  pattern: RegExp;
  what: string;
  /** Why the file then runs outside a transaction; default: `<what> cannot run inside a transaction`. */
  why?: string;
  applies(caps: Capabilities): boolean;
}

// Statements PostgreSQL (and SQLite, for VACUUM) refuse inside a transaction block, and SQLite
// pragmas that do nothing inside one (foreign_keys: the table rebuild of SQLite's ALTER TABLE
// procedure turns the checks off around it) or fail there (journal_mode = WAL, synchronous).
// Only PostgreSQL and SQLite are asked (see noTransactionReason): `concurrentIndexes` marks the
// rules for PostgreSQL's statements alone.
const RULES: readonly Rule[] = [
  // PRAGMA is SQLite's alone: no other database parses these statements.
  {
    pattern: /^PRAGMA\s+(?:main\.)?foreign_keys\b/i,
    what: 'PRAGMA foreign_keys',
    why: 'PRAGMA foreign_keys does nothing inside a transaction (put the statements after it between BEGIN and COMMIT to keep them all or nothing)',
    applies: () => true,
  },
  { pattern: /^PRAGMA\s+(?:main\.)?journal_mode\b/i, what: 'PRAGMA journal_mode', applies: () => true },
  // 'Safety level may not be changed inside a transaction'.
  { pattern: /^PRAGMA\s+(?:\w+\.)?synchronous\s*(?:=|\()/i, what: 'setting PRAGMA synchronous', applies: () => true },
  // SQLite's alone too (PostgreSQL attaches partitions with ALTER TABLE): a database attached in a
  // transaction cannot be detached before it ends ('database x is locked').
  { pattern: /^(?:ATTACH|DETACH)\b/i, what: 'ATTACH/DETACH DATABASE', applies: () => true },
  { pattern: /^CREATE\s+(?:UNIQUE\s+)?INDEX\s+CONCURRENTLY\b/i, what: 'CREATE INDEX CONCURRENTLY', applies: (c) => c.concurrentIndexes },
  { pattern: /^DROP\s+INDEX\s+CONCURRENTLY\b/i, what: 'DROP INDEX CONCURRENTLY', applies: (c) => c.concurrentIndexes },
  { pattern: /^REINDEX\b[^;]*?\bCONCURRENTLY\b/i, what: 'REINDEX ... CONCURRENTLY', applies: (c) => c.concurrentIndexes },
  { pattern: /^ALTER\s+TABLE\b[\s\S]*\bDETACH\s+PARTITION\b[\s\S]*\bCONCURRENTLY\b/i, what: 'ALTER TABLE ... DETACH PARTITION ... CONCURRENTLY', applies: (c) => c.concurrentIndexes },
  // Without CONCURRENTLY too: a whole schema, database or the system catalogs are reindexed one table per transaction.
  { pattern: /^REINDEX\s*(?:\([^)]*\)\s*)?(?:SCHEMA|DATABASE|SYSTEM)\b/i, what: 'REINDEX SCHEMA/DATABASE/SYSTEM', applies: (c) => c.concurrentIndexes },
  // CLUSTER without a table: every table clustered before, one transaction each.
  { pattern: /^CLUSTER\s*(?:\([^)]*\)\s*)?(?:VERBOSE\s*)?$/i, what: 'CLUSTER without a table', applies: (c) => c.concurrentIndexes },
  { pattern: /^VACUUM\b/i, what: 'VACUUM', applies: () => true },
  { pattern: /^(?:CREATE|DROP)\s+DATABASE\b/i, what: 'CREATE/DROP DATABASE', applies: () => true },
  { pattern: /^ALTER\s+DATABASE\b[\s\S]*\bSET\s+TABLESPACE\b/i, what: 'ALTER DATABASE ... SET TABLESPACE', applies: (c) => c.concurrentIndexes },
  { pattern: /^(?:CREATE|DROP)\s+TABLESPACE\b/i, what: 'CREATE/DROP TABLESPACE', applies: (c) => c.concurrentIndexes },
  // A subscription's replication slot is created, dropped or refreshed on the publisher, outside any transaction.
  { pattern: /^(?:CREATE|DROP)\s+SUBSCRIPTION\b/i, what: 'CREATE/DROP SUBSCRIPTION', applies: (c) => c.concurrentIndexes },
  { pattern: /^ALTER\s+SUBSCRIPTION\b[\s\S]*\b(?:REFRESH|(?:SET|ADD|DROP)\s+PUBLICATION)\b/i, what: 'ALTER SUBSCRIPTION ... REFRESH / SET PUBLICATION', applies: (c) => c.concurrentIndexes },
  { pattern: /^ALTER\s+SYSTEM\b/i, what: 'ALTER SYSTEM', applies: () => true },
  { pattern: /^DISCARD\s+ALL\b/i, what: 'DISCARD ALL', applies: () => true },
];

/** `ALTER TYPE ... ADD VALUE`: refused in a transaction block before PostgreSQL 12. */
const ALTER_TYPE_ADD_VALUE = /^ALTER\s+TYPE\b[\s\S]*\bADD\s+VALUE\b/i;

/**
 * Decide whether a file's statements must run outside a transaction: the file's
 * `-- mtool: no-transaction` directive, or a statement the database refuses inside one.
 * Only asked where migrations run in transactions with transactional DDL.
 *
 * @param serverVersion called only when an `ALTER TYPE ... ADD VALUE` is present.
 */
export async function noTransactionReason(
  file: MigrationFile,
  statements: readonly SqlStatement[],
  caps: Capabilities,
  serverVersion: () => Promise<ServerVersion>,
): Promise<NoTransactionReason | undefined> {
  if (file.directives.includes('no-transaction')) return { reason: 'the file declares `-- mtool: no-transaction`' };
  for (const statement of statements) {
    const text = statement.text;
    for (const rule of RULES) {
      if (rule.applies(caps) && rule.pattern.test(text)) return { reason: rule.why ?? `${rule.what} cannot run inside a transaction`, statement };
    }
    if (caps.namedEnums && ALTER_TYPE_ADD_VALUE.test(text)) {
      const version = await serverVersion();
      if (version.major < 12) {
        return { reason: `ALTER TYPE ... ADD VALUE cannot run inside a transaction on PostgreSQL ${version.raw} (< 12)`, statement };
      }
    }
  }
  return undefined;
}
