import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { MtoolError } from '../../errors.js';
import { parseConnectionUrl } from '../../net/connection-url.js';
import { wrapDriverError, type ErrorContext } from '../driver-error.js';
import { busyHint, isBusy, isUnwritable, unwritableHint } from './file-hints.js';
import { importDriver } from '../import-driver.js';
import { mtoolPackage } from '../../version.js';
import type { ConnectOptions, Connection, QueryResult, Row } from '../types.js';

/** better-sqlite3's default busy timeout when the URL gives no `timeout`. */
const DEFAULT_TIMEOUT_MS = 5000;

/** better-sqlite3's compiled addon once found: its file, or the addon itself. */
let nativeAddon: string | object | undefined;

/**
 * better-sqlite3's compiled addon, for its `nativeBinding` option: the file where its build puts
 * it (`<package>/build/Release/better_sqlite3.node`), found from the package this module resolves.
 * Without the option, better-sqlite3 asks the `bindings` package, which reads the caller's file
 * from a stack trace and tries several folders one by one (a few ms of every SQLite command), and
 * which cannot work from the CLI bundle's copy of better-sqlite3 (dist/cli/vendor-*.cjs): it would
 * look beside mtool. Any other layout still goes through `bindings`, pointed at the package.
 * @throws the resolver's MODULE_NOT_FOUND when better-sqlite3 is not installed.
 */
function sqliteAddon(): string | object {
  if (nativeAddon !== undefined) return nativeAddon;
  // mtool's own node_modules first, where resolving from this module looks first too (mtool has
  // no node_modules inside dist/ or src/): no resolution walk in the usual layout.
  const beside = join(mtoolPackage().root, 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node');
  if (existsSync(beside)) return (nativeAddon = beside);
  const main = createRequire(import.meta.url).resolve('better-sqlite3'); // <package>/lib/index.js
  const root = dirname(dirname(main));
  const built = join(root, 'build', 'Release', 'better_sqlite3.node');
  nativeAddon = existsSync(built)
    ? built
    : (createRequire(main)('bindings') as (options: object) => object)({ bindings: 'better_sqlite3.node', module_root: root });
  return nativeAddon;
}

/**
 * Where a SQLite URL's database lives: `:memory:`, an absolute path, or a path relative to the
 * project root (`sqlite:///data/app.db` → `<root>/data/app.db`), never to the process's cwd.
 */
export function sqliteFile(sqlitePath: string, root: string): string {
  if (sqlitePath === ':memory:') return sqlitePath;
  return isAbsolute(sqlitePath) ? sqlitePath : resolve(root, sqlitePath);
}

/**
 * Open a SQLite database with `better-sqlite3`. URL options: `timeout` (seconds) → the busy
 * timeout waiting on another writer's lock; `check_same_thread` has no meaning in Node (one
 * thread owns the handle) and is accepted only for compatibility. Foreign keys are switched on.
 *
 * Integers: numbers when they fit `Number.MAX_SAFE_INTEGER`, decimal strings beyond (SQLite
 * columns have no declared width, so the value decides). The driver is synchronous; every call
 * still returns a promise so all dialects share one interface.
 */
export async function connectSqlite(options: ConnectOptions): Promise<Connection> {
  const url = parseConnectionUrl(options.url, 'sqlite', options.databaseName);
  const ctx: ErrorContext = { type: 'sqlite', databaseName: options.databaseName, secrets: [] };
  const mod = await importDriver('better-sqlite3', 'sqlite', () => import('better-sqlite3'));
  const Database = (mod.default ?? mod) as typeof BetterSqlite3;
  const nativeBinding = await importDriver('better-sqlite3', 'sqlite', async () => sqliteAddon());
  const file = sqliteFile(url.sqlitePath ?? ':memory:', options.root);
  // A command that only reads does not create the file (a mistyped path would leave an empty
  // database behind and show every migration pending as if that were the real one).
  const absent = options.readOnly === true && file !== ':memory:' && !existsSync(file);
  let db: BetterSqlite3.Database | undefined;
  const timeout = url.sqlite?.timeout === undefined ? DEFAULT_TIMEOUT_MS : Math.round(url.sqlite.timeout * 1000);
  try {
    // An addon object is accepted as well as a path; the package's types name only the path.
    db = new Database(absent ? ':memory:' : file, { timeout, nativeBinding: nativeBinding as string });
    db.defaultSafeIntegers(true);
    db.pragma('foreign_keys = ON');
    // The default rollback journal is deleted after every commit (an unlink and a folder sync
    // per migration); TRUNCATE is as durable and cheaper. Only from the default mode: leaving WAL
    // would change the database file for every other user of it.
    if (db.pragma('journal_mode', { simple: true }) === 'delete') db.pragma('journal_mode = TRUNCATE');
  } catch (e) {
    db?.close();
    // Reading the journal mode waits for a writer that keeps readers out: the file opened fine.
    if (isBusy(e)) throw wrapDriverError('MTOOL_DATABASE', ctx, e, busyHint(file, timeout));
    throw wrapDriverError('MTOOL_CONNECTION', ctx, e, `cannot open '${file}': check that its folder exists and is writable, and that the file is a SQLite database`);
  }
  return new SqliteConnection(db, ctx, busyHint(file, timeout), absent ? file : undefined);
}

class SqliteConnection implements Connection {
  readonly type = 'sqlite' as const;
  readonly databaseName: string;
  /** Foreign keys are checked again after a migration that turned them off (connect turns them on). */
  readonly sessionReset = { 'foreign-keys': ['PRAGMA foreign_keys = ON'] } as const;
  readonly absentFile: string | undefined;
  #db: BetterSqlite3.Database | undefined;
  readonly #ctx: ErrorContext;
  /** Appended to "database is locked" ({@link busyHint}). */
  readonly #busyHint: string;

  constructor(db: BetterSqlite3.Database, ctx: ErrorContext, busy: string, absentFile?: string) {
    this.#db = db;
    this.#ctx = ctx;
    this.#busyHint = busy;
    this.databaseName = ctx.databaseName;
    this.absentFile = absentFile;
  }

  /** The database file's path, or `:memory:`. */
  get file(): string {
    return this.#db?.name ?? '';
  }

  async query(sql: string): Promise<QueryResult> {
    const db = this.#open();
    try {
      const statement = db.prepare(sql);
      if (statement.reader) return { rows: (statement.all() as Row[]).map(normalizeRow), rowCount: 0 };
      const info = statement.run();
      return { rows: [], rowCount: Number(info.changes) };
    } catch (e) {
      throw this.#error(e, sql);
    }
  }

  async exec(sql: string): Promise<void> {
    const db = this.#open();
    try {
      db.exec(sql);
    } catch (e) {
      throw this.#error(e, sql);
    }
  }

  async queryArrays(sql: string): Promise<unknown[][]> {
    const db = this.#open();
    try {
      const rows = db.prepare(sql).raw().all() as unknown[][];
      // Index loops: a for...of allocates an iterator result per row in code that runs once.
      for (let r = 0; r < rows.length; r++) {
        const row = rows[r]!;
        for (let i = 0; i < row.length; i++) if (typeof row[i] === 'bigint') row[i] = normalizeInteger(row[i] as bigint);
      }
      return rows;
    } catch (e) {
      throw this.#error(e, sql);
    }
  }

  async begin(): Promise<void> {
    await this.exec('BEGIN');
  }

  async commit(): Promise<void> {
    await this.exec('COMMIT');
  }

  async rollback(): Promise<void> {
    await this.exec('ROLLBACK');
  }

  async serverVersion(): Promise<string> {
    const { rows } = await this.query('SELECT sqlite_version() AS version');
    return String(rows[0]?.version ?? '');
  }

  async close(): Promise<void> {
    const db = this.#db;
    this.#db = undefined;
    db?.close();
  }

  #error(e: unknown, sql: string): Error {
    // ATTACH and VACUUM INTO open a file of their own: its problem is not the database file's.
    const ownFile = !/^\s*(ATTACH|VACUUM)\b/i.test(sql);
    const hint = isBusy(e) ? this.#busyHint : ownFile && isUnwritable(e) ? unwritableHint(this.file) : undefined;
    return wrapDriverError('MTOOL_DATABASE', this.#ctx, e, hint);
  }

  #open(): BetterSqlite3.Database {
    if (!this.#db) throw new MtoolError('MTOOL_INTERNAL', `sqlite (${this.#ctx.databaseName}): query on a closed connection`);
    return this.#db;
  }
}

const MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER);
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** Safe-integer mode returns every integer as bigint: a number where no precision is lost, else its decimal text. */
function normalizeInteger(value: bigint): number | string {
  return value >= MIN_SAFE && value <= MAX_SAFE ? Number(value) : value.toString();
}

function normalizeRow(row: Row): Row {
  for (const key of Object.keys(row)) {
    const value = row[key];
    if (typeof value === 'bigint') row[key] = normalizeInteger(value);
  }
  return row;
}
