import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseConnectionUrl, physicalTarget, type ConnectionUrl } from '../../src/net/connection-url.js';
import { MtoolError } from '../../src/errors.js';
import type { DatabaseType } from '../../src/dialects/types.js';

function urlError(url: string, type: DatabaseType, databaseName?: string): MtoolError {
  try {
    parseConnectionUrl(url, type, databaseName);
  } catch (e) {
    expect(e).toBeInstanceOf(MtoolError);
    expect((e as MtoolError).code).toBe('MTOOL_URL');
    expect((e as MtoolError).exitCode).toBe(2);
    return e as MtoolError;
  }
  throw new Error(`expected ${url} to be rejected for ${type}`);
}

describe('parseConnectionUrl: PostgreSQL', () => {
  it('decodes credentials, strips IPv6 brackets and applies the pool defaults', () => {
    const u = parseConnectionUrl('postgresql://app:s%40c%2Fret@[::1]:5433/shop?sslmode=require&application_name=mtool%20cli', 'postgresql');
    expect(u).toEqual<ConnectionUrl>({
      type: 'postgresql',
      scheme: 'postgresql',
      user: 'app',
      password: 's@c/ret',
      host: '::1',
      port: 5433,
      database: 'shop',
      postgres: { sslmode: 'require', applicationName: 'mtool cli', poolSize: 5, maxOverflow: 10, poolTimeout: 30, poolRecycle: -1 },
    });
  });

  it('accepts postgres:// and postgresql+driver:// and reports the scheme without the driver', () => {
    expect(parseConnectionUrl('postgres://h/db', 'postgresql').scheme).toBe('postgres');
    expect(parseConnectionUrl('postgresql+asyncpg://h/db', 'postgresql').scheme).toBe('postgresql');
    expect(parseConnectionUrl('POSTGRESQL+psycopg://h/db', 'postgresql').scheme).toBe('postgresql');
  });

  it('reads every documented option', () => {
    const u = parseConnectionUrl(
      'postgresql://h/db?sslcert=/c.pem&sslkey=/k.pem&sslrootcert=/ca.pem&connect_timeout=2.5&pool_size=1&max_overflow=0&pool_timeout=0&pool_recycle=3600',
      'postgresql',
    );
    expect(u.postgres).toEqual({ sslcert: '/c.pem', sslkey: '/k.pem', sslrootcert: '/ca.pem', connectTimeout: 2.5, poolSize: 1, maxOverflow: 0, poolTimeout: 0, poolRecycle: 3600 });
  });

  it('leaves user, password, host, port and database out when the URL has none', () => {
    expect(parseConnectionUrl('postgresql://', 'postgresql')).toEqual({
      type: 'postgresql',
      scheme: 'postgresql',
      postgres: { poolSize: 5, maxOverflow: 10, poolTimeout: 30, poolRecycle: -1 },
    });
    const u = parseConnectionUrl('postgresql://app:@h', 'postgresql');
    expect(u.user).toBe('app');
    expect(u.password).toBe('');
  });

  it('rejects a bad sslmode listing the allowed modes', () => {
    const e = urlError('postgresql://h/db?sslmode=on', 'postgresql', 'app');
    expect(e.message).toBe("Database 'app': URL option 'sslmode' must be one of disable, allow, prefer, require, verify-ca, verify-full (got 'on')");
    expect(e.database).toBe('app');
  });

  it('rejects an unknown option, suggesting the near one and listing the allowed ones', () => {
    const e = urlError('postgresql://h/db?conect_timeout=3', 'postgresql');
    expect(e.message).toContain("unknown URL option 'conect_timeout' for databaseType 'postgresql' (did you mean 'connect_timeout'?)");
    expect(e.message).toContain('allowed: sslmode, sslcert, sslkey, sslrootcert, connect_timeout, application_name, options, pool_size, max_overflow, pool_timeout, pool_recycle');
  });

  it.each([
    ['connect_timeout=abc', "'connect_timeout' must be a non-negative number of seconds (got 'abc')"],
    ['connect_timeout=-1', "'connect_timeout' must be a non-negative number of seconds (got '-1')"],
    ['pool_size=0', "'pool_size' must be a whole number of connections, at least 1 (default 5) (got '0')"],
    ['pool_size=2.5', "'pool_size' must be a whole number"],
    ['max_overflow=-1', "'max_overflow' must be a whole number of extra connections, 0 or more"],
    ['pool_timeout=-3', "'pool_timeout' must be a non-negative number of seconds"],
    ['pool_recycle=-2', "'pool_recycle' must be a whole number of seconds, or -1 for never"],
    ['pool_recycle=soon', "'pool_recycle' must be a whole number of seconds, or -1 for never"],
    ['sslmode=require&sslmode=disable', "URL option 'sslmode' is given twice"],
    ['application_name', "URL option 'application_name' has no value"],
  ])('rejects %s', (query, message) => {
    expect(urlError(`postgresql://h/db?${query}`, 'postgresql').message).toContain(message);
  });

  it('rejects a bad port without echoing it', () => {
    for (const port of ['0', '65536', 'x1', '-5']) {
      const e = urlError(`postgresql://u:pw@h:${port}/db`, 'postgresql');
      expect(e.message).toBe('the port of the connection URL must be a number from 1 to 65535');
    }
  });

  it('asks for brackets around an IPv6 host', () => {
    expect(urlError('postgresql://u@::1:5432/db', 'postgresql').message).toContain('must be written in brackets');
    expect(urlError('postgresql://u@[::1/db', 'postgresql').message).toContain("lacks its closing ']'");
  });
});

describe('parseConnectionUrl: schemes per database type', () => {
  it.each<[string, DatabaseType]>([
    ['mysql://h/db', 'postgresql'],
    ['sqlite:///a.db', 'postgresql'],
    ['postgresql://h/db', 'mysql'],
    ['http://h:8123/db', 'mariadb'],
    ['postgresql://h/db', 'sqlite'],
    ['clickhouse://h:9000/db', 'clickhouse'],
    ['tcp://h:9000', 'clickhouse'],
  ])('rejects %s for %s, naming both and the allowed schemes', (url, type) => {
    const e = urlError(url, type, 'main');
    const scheme = url.slice(0, url.indexOf('://'));
    expect(e.message).toContain(`Database 'main': URL scheme '${scheme}://' does not fit databaseType '${type}'; use `);
  });

  it('rejects a URL with no scheme and an empty URL', () => {
    expect(urlError('localhost:5432/db', 'postgresql').message).toContain("no 'scheme://' prefix; for databaseType 'postgresql' use 'postgresql://'");
    expect(urlError('  ', 'sqlite').message).toContain('the connection URL is empty');
  });
});

describe('parseConnectionUrl: MySQL and MariaDB', () => {
  it('accepts mysql://, mariadb:// and mysql+driver:// for both types', () => {
    for (const type of ['mysql', 'mariadb'] as const) {
      for (const url of ['mysql://root@127.0.0.1:3306/', 'mariadb://root@127.0.0.1:3306/', 'mysql+pymysql://root@127.0.0.1:3306/']) {
        const u = parseConnectionUrl(url, type);
        expect(u).toMatchObject({ type, user: 'root', host: '127.0.0.1', port: 3306, mysql: {} });
        expect(u.database).toBeUndefined();
      }
    }
  });

  it('reads charset and the ssl options', () => {
    const u = parseConnectionUrl('mysql://u:p@h/app?charset=utf8mb4&ssl_ca=/ca.pem&ssl_cert=/c.pem&ssl_key=/k.pem', 'mysql');
    expect(u.mysql).toEqual({ charset: 'utf8mb4', sslCa: '/ca.pem', sslCert: '/c.pem', sslKey: '/k.pem' });
    expect(u.database).toBe('app');
  });

  it('rejects PostgreSQL options', () => {
    expect(urlError('mysql://h/db?sslmode=require', 'mariadb').message).toContain("unknown URL option 'sslmode' for databaseType 'mariadb'; allowed: charset, ssl_ca, ssl_cert, ssl_key");
  });
});

describe('parseConnectionUrl: SQLite', () => {
  it.each([
    ['sqlite:///a.db', 'a.db'],
    ['sqlite:///data/app.db', 'data/app.db'],
    ['sqlite:////abs/a.db', '/abs/a.db'],
    ['sqlite:///:memory:', ':memory:'],
    ['sqlite://', ':memory:'],
    ['sqlite+pysqlite:///a%20b.db', 'a b.db'],
    ['sqlite:////tmp/user@host.db', '/tmp/user@host.db'],
  ])('%s → %s', (url, path) => {
    expect(parseConnectionUrl(url, 'sqlite').sqlitePath).toBe(path);
  });

  it('reads timeout and check_same_thread', () => {
    expect(parseConnectionUrl('sqlite:///a.db?timeout=2.5&check_same_thread=false', 'sqlite').sqlite).toEqual({ timeout: 2.5, checkSameThread: false });
    expect(urlError('sqlite:///a.db?check_same_thread=maybe', 'sqlite').message).toContain("'check_same_thread' must be true or false");
    expect(urlError('sqlite:///a.db?timeout=-1', 'sqlite').message).toContain("'timeout' must be a non-negative number of seconds");
  });

  it('rejects a host, credentials or an empty path', () => {
    expect(urlError('sqlite://host/a.db', 'sqlite').message).toContain('a SQLite URL has no user, password, host or port');
    expect(urlError('sqlite:///', 'sqlite').message).toContain('the SQLite URL names no file');
  });
});

describe('parseConnectionUrl: ClickHouse', () => {
  it('reads the HTTP URL, the database path and options', () => {
    const u = parseConnectionUrl('https://default:pw@ch.example:8443/analytics?compression=true&connect_timeout=5&send_timeout=30&receive_timeout=300', 'clickhouse');
    expect(u).toEqual<ConnectionUrl>({
      type: 'clickhouse',
      scheme: 'https',
      user: 'default',
      password: 'pw',
      host: 'ch.example',
      port: 8443,
      database: 'analytics',
      clickhouse: { compression: true, connectTimeout: 5, sendTimeout: 30, receiveTimeout: 300 },
    });
    expect(parseConnectionUrl('http://127.0.0.1:8123', 'clickhouse').database).toBeUndefined();
  });

  it('needs a host and rejects non-numeric timeouts', () => {
    expect(urlError('http:///db', 'clickhouse').message).toContain('a ClickHouse URL needs a host');
    expect(urlError('http://h:8123/?receive_timeout=1m', 'clickhouse').message).toContain("'receive_timeout' must be a non-negative number of seconds (got '1m')");
    for (const key of ['connect_timeout', 'send_timeout', 'receive_timeout']) {
      expect(urlError(`http://h:8123/?${key}=0`, 'clickhouse').message).toContain(`'${key}' must be a positive number of seconds (got '0'); leave it out for the default`);
    }
    expect(parseConnectionUrl('postgresql://u@h/db?connect_timeout=0', 'postgresql')).toBeDefined();
  });
});

describe('an @ in the database name', () => {
  it('is refused raw, naming the fix, and read from %40', () => {
    for (const [url, type] of [
      ['postgresql://app@h/a@b', 'postgresql'],
      ['mariadb://root@h:3306/a@b', 'mariadb'],
      ['http://h:8123/a@b', 'clickhouse'],
    ] as const) {
      expect(urlError(url, type).message).toContain("database name holds a raw '@'");
      expect(urlError(url, type).message).toContain('%40');
    }
    expect(parseConnectionUrl('postgresql://app@h/a%40b', 'postgresql').database).toBe('a@b');
    expect(parseConnectionUrl('mysql://app:x%2Fy%40z@h/shop', 'mysql')).toMatchObject({ password: 'x/y@z', host: 'h', database: 'shop' });
  });

  it('is a file name on SQLite', () => {
    expect(parseConnectionUrl('sqlite:///data/a@b.db', 'sqlite').sqlitePath).toBe('data/a@b.db');
  });
});

describe("a raw '#' (a URL fragment)", () => {
  it('is refused, never read as the end of the URL', () => {
    // `user:98#secret@host`: read as a fragment, the host would be 'postgres' and the port 98.
    for (const [url, type] of [
      ['postgresql://postgres:98#topsecret@127.0.0.1:5432/db', 'postgresql'],
      ['mysql://app:4321#topsecret@127.0.0.1:3306/db', 'mysql'],
      ['postgresql://app@h/db#x', 'postgresql'],
      ['http://default:x#topsecret@h:8123/db', 'clickhouse'],
      ['sqlite:///data/a#b.db', 'sqlite'],
    ] as const) {
      const e = urlError(url, type);
      expect(e.message).toContain('%23');
      expect(e.message).not.toMatch(/topsecret|4321|98/);
    }
  });

  it('percent-encoded as %23 is part of the password, database name or path', () => {
    expect(parseConnectionUrl('postgresql://postgres:98%23topsecret@127.0.0.1:5432/db', 'postgresql')).toMatchObject({ password: '98#topsecret', host: '127.0.0.1', port: 5432 });
    expect(parseConnectionUrl('sqlite:///data/a%23b.db', 'sqlite').sqlitePath).toBe('data/a#b.db');
  });
});

describe('parseConnectionUrl never puts a password in its message', () => {
  it.each([
    'postgresql://app:pa/ss9876@h/db',
    'postgresql://app:pa?ss9876@h/db',
    'postgresql://app:1234?ss9876@h/db',
    'postgresql://app:pa#ss9876@h/db',
    'postgresql://app:ss9876@h:port/db',
    'postgresql://app:ss9876@h/db?sslmode=nope',
    'postgresql://app:%ZZss9876@h/db',
    // An '@' before the reserved character: the user-info ends early yet looks complete.
    'postgresql://app:@?ss9876@?@h:5432/db?sslmode=bogus',
    'postgresql://app:x@y/ss9876@h:5432/db?sslmode=bogus',
    // The password's '/' then '@' with no '/' after the host: it would read as database 'ss9876@h'.
    'postgresql://app:x@y/ss9876@h',
    'mysql://app:x/ss9876@h',
    'http://default:x@y/ss9876@h',
  ])('%s', (url) => {
    const type = url.startsWith('mysql') ? 'mysql' : url.startsWith('http') ? 'clickhouse' : 'postgresql';
    const e = urlError(url, type);
    expect(e.message).not.toMatch(/ss9876|pa\/|pa\?/);
  });

  it('for any password, valid or not', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z0-9]{8}$/), fc.string({ maxLength: 4 }), fc.boolean(), (core, noise, encode) => {
        const password = `${noise}${core}${noise}`;
        const raw = encode ? encodeURIComponent(password) : password;
        try {
          parseConnectionUrl(`postgresql://app:${raw}@db.example:5432/shop?sslmode=bogus`, 'postgresql');
        } catch (e) {
          expect((e as Error).message).not.toContain(core);
        }
      }),
    );
  });
});

describe('physicalTarget', () => {
  const target = (url: string, type: DatabaseType) => physicalTarget(parseConnectionUrl(url, type));

  it('ignores credentials and options', () => {
    expect(target('postgresql://a:x@db.example:5432/app?sslmode=require', 'postgresql')).toBe(target('postgres://b:y@DB.example/app', 'postgresql'));
  });

  it('treats loopback names as one host and fills default ports', () => {
    expect(target('postgresql://u@127.0.0.1/app', 'postgresql')).toBe('postgresql://localhost:5432/app');
    expect(target('postgresql://u@[::1]:5432/app', 'postgresql')).toBe('postgresql://localhost:5432/app');
    expect(target('mysql://root@localhost/app', 'mysql')).toBe(target('mariadb://other@127.0.0.1:3306/app', 'mariadb'));
    expect(target('http://h/', 'clickhouse')).toBe('clickhouse://h:8123/default');
    expect(target('https://h/x', 'clickhouse')).toBe('clickhouse://h:8443/x');
  });

  it('distinguishes databases, ports and hosts', () => {
    const a = target('postgresql://u@h/app', 'postgresql');
    expect(target('postgresql://u@h/app2', 'postgresql')).not.toBe(a);
    expect(target('postgresql://u@h:5433/app', 'postgresql')).not.toBe(a);
    expect(target('postgresql://u@[2001:db8::1]/app', 'postgresql')).toBe('postgresql://[2001:db8::1]:5432/app');
  });

  it('uses the user name as PostgreSQL database when the URL names none (libpq rule)', () => {
    expect(target('postgresql://alice@h', 'postgresql')).toBe('postgresql://h:5432/alice');
  });

  it('identifies SQLite files by path', () => {
    expect(target('sqlite:///a.db?timeout=3', 'sqlite')).toBe('sqlite:a.db');
    expect(target('sqlite:////abs/a.db', 'sqlite')).toBe('sqlite:/abs/a.db');
    expect(target('sqlite:///:memory:', 'sqlite')).toBe('sqlite::memory:');
  });
});

describe('chdb URLs for in-process ClickHouse', () => {
  it('accepts chdb://:memory: and folders for clickhouse, and nothing else for other types', () => {
    expect(parseConnectionUrl('chdb://:memory:', 'clickhouse')).toMatchObject({ scheme: 'chdb', chdbPath: ':memory:' });
    expect(parseConnectionUrl('chdb:///data/ch', 'clickhouse')).toMatchObject({ scheme: 'chdb', chdbPath: 'data/ch' });
    expect(parseConnectionUrl('chdb:////var/lib/ch', 'clickhouse')).toMatchObject({ scheme: 'chdb', chdbPath: '/var/lib/ch' });
    expect(() => parseConnectionUrl('chdb://:memory:?x=1', 'clickhouse')).toThrow(/takes no options/);
    expect(() => parseConnectionUrl('chdb://:memory:', 'postgresql')).toThrow(/does not fit databaseType 'postgresql'/);
    expect(physicalTarget(parseConnectionUrl('chdb:///data/ch', 'clickhouse'))).toBe('chdb:data/ch');
  });
});
