/**
 * Connection URLs (spec: Connection URL shape):
 * `[dialect[+driver]]://[user[:password]@][host][:port][/database][?option=value&...]`.
 *
 * Parsing is strict (unknown options, bad values and a scheme that does not fit the database
 * type are `MTOOL_URL` errors that name the option and what is allowed) and never echoes the
 * user-info part of a URL: a malformed URL may carry a password in any position.
 * Masking and scrubbing live in `mask.ts` and are re-exported here.
 */
import { MtoolError } from '../errors.js';
import type { DatabaseType } from '../dialects/types.js';
import { parseChdbUrl } from '../dialects/clickhouse/chdb-url.js';

export { maskUrl, scrubSecrets, urlSecrets } from './mask.js';

/** PostgreSQL URL options. Pool defaults are the spec's (Limits: Pool defaults). */
export interface PostgresUrlOptions {
  sslmode?: 'disable' | 'allow' | 'prefer' | 'require' | 'verify-ca' | 'verify-full';
  sslcert?: string;
  sslkey?: string;
  sslrootcert?: string;
  /** `connect_timeout`, seconds. */
  connectTimeout?: number;
  /** `application_name`. */
  applicationName?: string;
  /** `options`: command-line options for the server session, as libpq takes them (`-c lock_timeout=5s`). */
  options?: string;
  /** `pool_size`, default 5. */
  poolSize: number;
  /** `max_overflow`, default 10. */
  maxOverflow: number;
  /** `pool_timeout`, seconds, default 30. */
  poolTimeout: number;
  /** `pool_recycle`, seconds, default -1 (never recycle). */
  poolRecycle: number;
}

/** MySQL / MariaDB URL options (`charset`, `ssl_ca`, `ssl_cert`, `ssl_key`). */
export interface MysqlUrlOptions {
  charset?: string;
  sslCa?: string;
  sslCert?: string;
  sslKey?: string;
}

/** SQLite URL options. */
export interface SqliteUrlOptions {
  /** `timeout`, seconds to wait on a locked database. */
  timeout?: number;
  /** `check_same_thread`; accepted for compatibility with the spec, no effect on Node. */
  checkSameThread?: boolean;
}

/** ClickHouse (HTTP interface) URL options. */
export interface ClickHouseUrlOptions {
  compression?: boolean;
  /** `connect_timeout`, seconds. */
  connectTimeout?: number;
  /** `send_timeout`, seconds. */
  sendTimeout?: number;
  /** `receive_timeout`, seconds. */
  receiveTimeout?: number;
}

/** A parsed, validated connection URL. Holds the password: never print it, use `maskUrl`. */
export interface ConnectionUrl {
  type: DatabaseType;
  /** Scheme without `+driver`, lower-cased: `postgresql`, `postgres`, `mysql`, `mariadb`, `sqlite`, `http`, `https`. */
  scheme: string;
  /** Percent-decoded. */
  user?: string;
  /** Percent-decoded. */
  password?: string;
  /** IPv6 addresses without brackets. */
  host?: string;
  port?: number;
  /** Percent-decoded path without its leading `/`; ClickHouse: the database named by the path, if any. */
  database?: string;
  /** SQLite only: `:memory:`, an absolute path, or a relative path as given (relative to the project root). */
  sqlitePath?: string;
  postgres?: PostgresUrlOptions;
  mysql?: MysqlUrlOptions;
  sqlite?: SqliteUrlOptions;
  clickhouse?: ClickHouseUrlOptions;
  /** `chdb://` only: `:memory:`, or the data folder as written (relative to the project root unless absolute). */
  chdbPath?: string;
}

/** Pool defaults of PostgreSQL URLs (spec: Limits). */
const POSTGRES_POOL_DEFAULTS = { poolSize: 5, maxOverflow: 10, poolTimeout: 30, poolRecycle: -1 } as const;

const SSL_MODES = ['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full'] as const;

/** URL options each database type accepts, in the spelling the URL uses. */
const URL_OPTIONS: Readonly<Record<DatabaseType, readonly string[]>> = {
  postgresql: ['sslmode', 'sslcert', 'sslkey', 'sslrootcert', 'connect_timeout', 'application_name', 'options', 'pool_size', 'max_overflow', 'pool_timeout', 'pool_recycle'],
  mysql: ['charset', 'ssl_ca', 'ssl_cert', 'ssl_key'],
  mariadb: ['charset', 'ssl_ca', 'ssl_cert', 'ssl_key'],
  sqlite: ['timeout', 'check_same_thread'],
  clickhouse: ['compression', 'connect_timeout', 'send_timeout', 'receive_timeout'],
};

/**
 * How a URL names a Unix socket, for users who write it as libpq (`?host=/var/run/postgresql`) or
 * other MySQL tools (`?socket=`, `?unix_socket=`) do: mtool takes the socket's path as the host.
 */
const SOCKET_OPTIONS = new Set(['host', 'socket', 'unix_socket']);
const SOCKET_HOST: Partial<Readonly<Record<DatabaseType, string>>> = {
  postgresql: "the socket's folder, percent-encoded, as the URL's host: postgresql://user@%2Fvar%2Frun%2Fpostgresql/db",
  mysql: "the socket's path, percent-encoded, as the URL's host: mysql://user@%2Frun%2Fmysqld%2Fmysqld.sock/db",
  mariadb: "the socket's path, percent-encoded, as the URL's host: mysql://user@%2Frun%2Fmysqld%2Fmysqld.sock/db",
};

const SCHEME_HELP: Readonly<Record<DatabaseType, string>> = {
  postgresql: "'postgresql://' (or 'postgres://', 'postgresql+<driver>://')",
  mysql: "'mysql://' (or 'mariadb://', 'mysql+<driver>://')",
  mariadb: "'mysql://' (or 'mariadb://', 'mysql+<driver>://')",
  sqlite: "'sqlite:///<relative path>', 'sqlite:////<absolute path>' or 'sqlite:///:memory:'",
  clickhouse: "'http://' or 'https://' (the ClickHouse HTTP interface, e.g. http://127.0.0.1:8123/db), or 'chdb://:memory:' / 'chdb:///<folder>' (in-process ClickHouse from the npm package chdb)",
};

/** The pieces of a URL split on its delimiters, before any type-specific validation. */
export interface UrlParts {
  /** Lower-cased scheme including any `+driver`. */
  scheme: string;
  /** Raw (still percent-encoded) user-info, without the `@`. */
  userinfo: string | undefined;
  /** Raw host[:port]. */
  hostport: string;
  /** Raw path including its leading `/`, or ''. */
  path: string;
  /** Raw query without `?`, or undefined. */
  query: string | undefined;
}

const SCHEME_RE = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\//;

/**
 * Split a URL into raw parts on the generic syntax: the authority ends at the first `/`, `?`
 * or `#`; the user-info ends at the authority's last `@`. Returns undefined when there is no
 * `scheme://`.
 */
function splitUrl(url: string): UrlParts | undefined {
  const m = SCHEME_RE.exec(url);
  if (!m) return undefined;
  const rest = url.slice(m[0].length);
  let end = rest.length;
  for (const ch of ['/', '?', '#']) {
    const i = rest.indexOf(ch);
    if (i !== -1 && i < end) end = i;
  }
  const authority = rest.slice(0, end);
  let tail = rest.slice(end);
  const hash = tail.indexOf('#');
  if (hash !== -1) tail = tail.slice(0, hash);
  const q = tail.indexOf('?');
  const path = q === -1 ? tail : tail.slice(0, q);
  const query = q === -1 ? undefined : tail.slice(q + 1);
  const at = authority.lastIndexOf('@');
  return {
    scheme: m[1]!.toLowerCase(),
    userinfo: at === -1 ? undefined : authority.slice(0, at),
    hostport: at === -1 ? authority : authority.slice(at + 1),
    path,
    query,
  };
}

function urlError(message: string, databaseName: string | undefined): MtoolError {
  const prefix = databaseName ? `Database '${databaseName}': ` : '';
  return new MtoolError('MTOOL_URL', `${prefix}${message}`, databaseName ? { database: databaseName } : {});
}

function decode(raw: string, what: string, databaseName: string | undefined, plusIsSpace = false): string {
  try {
    return decodeURIComponent(plusIsSpace ? raw.replace(/\+/g, ' ') : raw);
  } catch {
    throw urlError(`the ${what} of the connection URL has a malformed percent-escape; write a literal % as %25`, databaseName);
  }
}

function schemeFits(type: DatabaseType, scheme: string): boolean {
  const base = scheme.split('+')[0]!;
  switch (type) {
    case 'postgresql':
      return base === 'postgresql' || base === 'postgres';
    case 'mysql':
    case 'mariadb':
      return base === 'mysql' || base === 'mariadb';
    case 'sqlite':
      return base === 'sqlite';
    case 'clickhouse':
      return scheme === 'http' || scheme === 'https' || scheme === 'chdb';
  }
}

/**
 * Parse and validate a connection URL for a database type.
 * @param databaseName names the configuration entry in error messages, when known.
 * @throws MtoolError `MTOOL_URL` naming the offending part or option and what is allowed; the
 *   message never contains the password.
 * @example parseConnectionUrl('postgresql://app:s%40cret@[::1]:5432/db?sslmode=require', 'postgresql')
 *   // { type: 'postgresql', scheme: 'postgresql', user: 'app', password: 's@cret', host: '::1', port: 5432, database: 'db', postgres: { sslmode: 'require', poolSize: 5, ... } }
 */
export function parseConnectionUrl(url: string, type: DatabaseType, databaseName?: string): ConnectionUrl {
  if (typeof url !== 'string' || url.trim() === '') throw urlError(`the connection URL is empty; expected ${SCHEME_HELP[type]}`, databaseName);
  const parts = splitUrl(url.trim());
  if (!parts) throw urlError(`the connection URL has no 'scheme://' prefix; for databaseType '${type}' use ${SCHEME_HELP[type]}`, databaseName);
  if (!schemeFits(type, parts.scheme)) {
    throw urlError(`URL scheme '${parts.scheme}://' does not fit databaseType '${type}'; use ${SCHEME_HELP[type]}`, databaseName);
  }
  // "user:pa/ss@host" or "user:pa?ss@host": a raw reserved character ended the authority early,
  // so a piece of the password now sits in the port, path or query. Never echo those pieces.
  const reservedInCredentials = urlError(
    "the connection URL's user or password seems to contain a reserved character ('/', '?', '#' or '@'); percent-encode it (e.g. '/' as %2F, '?' as %3F, '@' as %40)",
    databaseName,
  );
  // A raw '#' starts a URL fragment, which no database URL has: everything after it would be
  // dropped, and in `user:pa#ss@host` the host and port would be read out of the password.
  if (url.includes('#')) {
    throw urlError(
      "the connection URL holds a raw '#', which would cut the URL short there; if it is part of the user, password, database name or path, percent-encode it as %23",
      databaseName,
    );
  }
  if (parts.scheme === 'chdb') {
    // In-process ClickHouse (npm package chdb): shaped like SQLite, validated by its dialect.
    const target = parseChdbUrl(url, '.', databaseName);
    return { type, scheme: 'chdb', chdbPath: target.path === ':memory:' ? ':memory:' : decodeURIComponent(url.trim().replace(/^chdb:\/\/\//i, '')), clickhouse: {} };
  }
  // A raw '@' in the database name is refused: `user:x@y/secret@host` reads as host 'y' and
  // database 'secret@host', a piece of the password that later messages (connection errors, the
  // settings listing) would show. A database name that really holds an '@' is written as %40.
  if (type !== 'sqlite' && parts.path.includes('@')) {
    throw urlError(
      "the connection URL's database name holds a raw '@': if the user or password contains a reserved character ('/', '?', '#' or '@'), percent-encode it (e.g. '/' as %2F, '@' as %40); a database name with an '@' is written with %40",
      databaseName,
    );
  }
  // A raw '@' in the query means a reserved character may have cut the user-info short
  // (`user:@?secret@host`: the authority ends at the '?'), with or without an '@' before it, so a
  // piece of the password may sit in the query: an error about it must not echo it.
  const ambiguous = (parts.query ?? '').includes('@');
  try {
    return parseParts(parts, type, databaseName);
  } catch (e) {
    throw ambiguous ? reservedInCredentials : e;
  }
}

function parseParts(parts: UrlParts, type: DatabaseType, databaseName: string | undefined): ConnectionUrl {
  const result: ConnectionUrl = { type, scheme: parts.scheme.split('+')[0]! };

  if (parts.userinfo !== undefined) {
    const colon = parts.userinfo.indexOf(':');
    const rawUser = colon === -1 ? parts.userinfo : parts.userinfo.slice(0, colon);
    if (rawUser !== '') result.user = decode(rawUser, 'user name', databaseName);
    if (colon !== -1) result.password = decode(parts.userinfo.slice(colon + 1), 'password', databaseName);
  }
  parseHostPort(parts.hostport, result, databaseName);

  if (type === 'sqlite') {
    if (result.user !== undefined || result.password !== undefined || result.host !== undefined || result.port !== undefined) {
      throw urlError(`a SQLite URL has no user, password, host or port; use ${SCHEME_HELP.sqlite}`, databaseName);
    }
    // 'sqlite:///a.db' → path '/a.db' → 'a.db'; 'sqlite:////abs/a.db' → '/abs/a.db'; 'sqlite://' → in memory (as SQLAlchemy).
    const file = parts.path === '' ? ':memory:' : decode(parts.path.slice(1), 'path', databaseName);
    if (file === '') throw urlError(`the SQLite URL names no file; use ${SCHEME_HELP.sqlite}`, databaseName);
    result.sqlitePath = file;
  } else {
    const db = parts.path.replace(/^\//, '');
    if (db !== '') {
      if (db.includes('/')) throw urlError(`the database name in the URL path must not contain '/' (got '${db}')`, databaseName);
      result.database = decode(db, 'database name', databaseName);
    }
    if (type === 'clickhouse' && result.host === undefined) {
      throw urlError(`a ClickHouse URL needs a host, e.g. http://127.0.0.1:8123/default`, databaseName);
    }
  }

  const options = parseQuery(parts.query, type, databaseName);
  switch (type) {
    case 'postgresql':
      result.postgres = postgresOptions(options, databaseName);
      break;
    case 'mysql':
    case 'mariadb':
      result.mysql = mysqlOptions(options);
      break;
    case 'sqlite':
      result.sqlite = sqliteOptions(options, databaseName);
      break;
    case 'clickhouse':
      result.clickhouse = clickhouseOptions(options, databaseName);
      break;
  }
  return result;
}

function parseHostPort(hostport: string, result: ConnectionUrl, databaseName: string | undefined): void {
  if (hostport === '') return;
  let host: string;
  let portText: string | undefined;
  if (hostport.startsWith('[')) {
    const close = hostport.indexOf(']');
    if (close === -1) throw urlError("the IPv6 host of the connection URL lacks its closing ']'", databaseName);
    host = hostport.slice(1, close);
    const after = hostport.slice(close + 1);
    if (after !== '' && !after.startsWith(':')) throw urlError("unexpected text after the IPv6 host ']' of the connection URL; expected ':<port>'", databaseName);
    if (after !== '') portText = after.slice(1);
    if (!/^[0-9a-fA-F:.]+(%[\w.-]+)?$/.test(host) || !host.includes(':')) throw urlError(`'[${host}]' is not an IPv6 address`, databaseName);
  } else {
    const colon = hostport.lastIndexOf(':');
    if (colon !== -1 && hostport.indexOf(':') !== colon) {
      throw urlError("an IPv6 host in a connection URL must be written in brackets, e.g. postgresql://user@[::1]:5432/db", databaseName);
    }
    host = colon === -1 ? hostport : hostport.slice(0, colon);
    if (colon !== -1) portText = hostport.slice(colon + 1);
    host = decode(host, 'host', databaseName);
  }
  if (host !== '') result.host = host;
  if (portText !== undefined && portText !== '') {
    const port = Number(portText);
    // The port text is not echoed: with a mistyped URL it may be a piece of a password.
    if (!/^\d+$/.test(portText) || port < 1 || port > 65535) throw urlError('the port of the connection URL must be a number from 1 to 65535', databaseName);
    result.port = port;
  }
}

function parseQuery(query: string | undefined, type: DatabaseType, databaseName: string | undefined): Map<string, string> {
  const options = new Map<string, string>();
  if (query === undefined || query === '') return options;
  const allowed = URL_OPTIONS[type];
  for (const pair of query.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const name = decode(eq === -1 ? pair : pair.slice(0, eq), 'option name', databaseName, true);
    const value = eq === -1 ? '' : decode(pair.slice(eq + 1), `value of option '${name}'`, databaseName, true);
    if (!allowed.includes(name)) {
      const hint = nearest(name, allowed);
      const socket = SOCKET_OPTIONS.has(name.toLowerCase()) ? SOCKET_HOST[type] : undefined;
      throw urlError(`unknown URL option '${name}' for databaseType '${type}'${hint ? ` (did you mean '${hint}'?)` : ''}; allowed: ${allowed.join(', ')}${socket ? `; for a Unix socket, write ${socket}` : ''}`, databaseName);
    }
    if (options.has(name)) throw urlError(`URL option '${name}' is given twice; keep one`, databaseName);
    if (value === '') throw urlError(`URL option '${name}' has no value; write ${name}=<value>`, databaseName);
    options.set(name, value);
  }
  return options;
}

/** The allowed name closest to a typo (edit distance ≤ 2), for "did you mean". */
function nearest(name: string, allowed: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDist = 3;
  for (const candidate of allowed) {
    const d = editDistance(name.toLowerCase(), candidate);
    if (d < bestDist) {
      best = candidate;
      bestDist = d;
    }
  }
  return best;
}

export function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return row[b.length]!;
}

/**
 * The longest timer, in milliseconds: every time option becomes one (or SQLite's busy timeout,
 * which has the same bound). Node fires a longer timer after 1 ms instead, so a reachable server
 * would time out at once.
 */
const MAX_TIMER_MS = 0x7fffffff;

function seconds(options: Map<string, string>, name: string, databaseName: string | undefined): number | undefined {
  const text = options.get(name);
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text) || !Number.isFinite(n)) {
    throw urlError(`URL option '${name}' must be a non-negative number of seconds (got '${text}')`, databaseName);
  }
  if (Math.round(n * 1000) > MAX_TIMER_MS) throw urlError(`URL option '${name}' must be at most ${Math.floor(MAX_TIMER_MS / 1000)} seconds (about 24 days; got '${text}')`, databaseName);
  return n;
}

function integer(options: Map<string, string>, name: string, min: number, rule: string, databaseName: string | undefined): number | undefined {
  const text = options.get(name);
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!/^-?\d+$/.test(text) || n < min) throw urlError(`URL option '${name}' must be ${rule} (got '${text}')`, databaseName);
  return n;
}

function bool(options: Map<string, string>, name: string, databaseName: string | undefined): boolean | undefined {
  const text = options.get(name);
  if (text === undefined) return undefined;
  const v = text.toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(v)) return true;
  if (['false', '0', 'no', 'off'].includes(v)) return false;
  throw urlError(`URL option '${name}' must be true or false (also 1/0, yes/no, on/off; got '${text}')`, databaseName);
}

function postgresOptions(options: Map<string, string>, databaseName: string | undefined): PostgresUrlOptions {
  const out: PostgresUrlOptions = { ...POSTGRES_POOL_DEFAULTS };
  const sslmode = options.get('sslmode');
  if (sslmode !== undefined) {
    if (!(SSL_MODES as readonly string[]).includes(sslmode)) {
      throw urlError(`URL option 'sslmode' must be one of ${SSL_MODES.join(', ')} (got '${sslmode}')`, databaseName);
    }
    out.sslmode = sslmode as PostgresUrlOptions['sslmode'];
  }
  for (const [key, prop] of [['sslcert', 'sslcert'], ['sslkey', 'sslkey'], ['sslrootcert', 'sslrootcert'], ['application_name', 'applicationName'], ['options', 'options']] as const) {
    const v = options.get(key);
    if (v !== undefined) out[prop] = v;
  }
  const connectTimeout = seconds(options, 'connect_timeout', databaseName);
  if (connectTimeout !== undefined) out.connectTimeout = connectTimeout;
  out.poolSize = integer(options, 'pool_size', 1, 'a whole number of connections, at least 1 (default 5)', databaseName) ?? out.poolSize;
  out.maxOverflow = integer(options, 'max_overflow', 0, 'a whole number of extra connections, 0 or more (default 10)', databaseName) ?? out.maxOverflow;
  out.poolTimeout = seconds(options, 'pool_timeout', databaseName) ?? out.poolTimeout;
  out.poolRecycle = integer(options, 'pool_recycle', -1, 'a whole number of seconds, or -1 for never (default -1)', databaseName) ?? out.poolRecycle;
  return out;
}

function mysqlOptions(options: Map<string, string>): MysqlUrlOptions {
  const out: MysqlUrlOptions = {};
  for (const [key, prop] of [['charset', 'charset'], ['ssl_ca', 'sslCa'], ['ssl_cert', 'sslCert'], ['ssl_key', 'sslKey']] as const) {
    const v = options.get(key);
    if (v !== undefined) out[prop] = v;
  }
  return out;
}

function sqliteOptions(options: Map<string, string>, databaseName: string | undefined): SqliteUrlOptions {
  const out: SqliteUrlOptions = {};
  const timeout = seconds(options, 'timeout', databaseName);
  if (timeout !== undefined) out.timeout = timeout;
  const cst = bool(options, 'check_same_thread', databaseName);
  if (cst !== undefined) out.checkSameThread = cst;
  return out;
}

function clickhouseOptions(options: Map<string, string>, databaseName: string | undefined): ClickHouseUrlOptions {
  const out: ClickHouseUrlOptions = {};
  const compression = bool(options, 'compression', databaseName);
  if (compression !== undefined) out.compression = compression;
  for (const [key, prop] of [['connect_timeout', 'connectTimeout'], ['send_timeout', 'sendTimeout'], ['receive_timeout', 'receiveTimeout']] as const) {
    const v = seconds(options, key, databaseName);
    // A bound of 0 would fail every request at once (PostgreSQL's connect_timeout=0 means no bound, libpq's rule).
    if (v === 0) throw urlError(`URL option '${key}' must be a positive number of seconds (got '0'); leave it out for the default`, databaseName);
    if (v !== undefined) out[prop] = v;
  }
  return out;
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '::1']);
const DEFAULT_PORTS: Readonly<Record<string, number>> = { postgresql: 5432, mysql: 3306, http: 8123, https: 8443 };

/**
 * Identity of the physical database a URL reaches, ignoring credentials and options: two
 * entries with the same target would migrate the same database twice (spec rule: physical
 * targets must be unique). Loopback names are one host; default ports are filled in; MySQL and
 * MariaDB share one family. SQLite relative paths stay relative (the caller resolves them
 * against the project root when it has one); every `:memory:` database yields `sqlite::memory:`
 * although each is private to its connection, so callers skip those.
 * @example physicalTarget(parseConnectionUrl('postgres://a:x@127.0.0.1/app', 'postgresql')) // 'postgresql://localhost:5432/app'
 */
export function physicalTarget(url: ConnectionUrl): string {
  if (url.scheme === 'chdb') return `chdb:${url.chdbPath}`;
  if (url.type === 'sqlite') return `sqlite:${url.sqlitePath ?? ':memory:'}`;
  const family = url.type === 'mariadb' ? 'mysql' : url.type === 'clickhouse' ? 'clickhouse' : url.type;
  const host = (url.host ?? 'localhost').toLowerCase();
  const shownHost = LOOPBACK.has(host) ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  const port = url.port ?? DEFAULT_PORTS[url.type === 'clickhouse' ? url.scheme : family] ?? 0;
  // libpq connects to the database named like the user when the URL names none.
  const database = url.database ?? (url.type === 'postgresql' ? url.user ?? '' : url.type === 'clickhouse' ? 'default' : '');
  return `${family}://${shownHost}:${port}/${database}`;
}
