import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { maskUrl, scrubSecrets, urlSecrets } from '../../src/net/connection-url.js';
import { isSecretOptionName } from '../../src/net/mask.js';

describe('maskUrl', () => {
  it.each([
    ['postgresql://app:s%40cret@[::1]:5432/db?sslmode=require', 'postgresql://app:***@[::1]:5432/db?sslmode=require'],
    ['postgresql://app:plain@db.example/db', 'postgresql://app:***@db.example/db'],
    ['mysql://root@127.0.0.1:3306/', 'mysql://root@127.0.0.1:3306/'],
    ['mysql://root:@127.0.0.1:3306/', 'mysql://root:***@127.0.0.1:3306/'],
    ['sqlite:///a.db', 'sqlite:///a.db'],
    ['sqlite:////tmp/user@host.db', 'sqlite:////tmp/user@host.db'],
    ['http://default:pw@[2001:db8::1]:8123/db?compression=1', 'http://default:***@[2001:db8::1]:8123/db?compression=1'],
    ['postgresql://:onlypw@h/db', 'postgresql://:***@h/db'],
  ])('%s → %s', (url, masked) => {
    expect(maskUrl(url)).toBe(masked);
  });

  it('masks a password holding raw reserved characters entirely', () => {
    for (const url of ['postgresql://app:pa/ss@h/db', 'postgresql://app:pa?ss@h/db', 'postgresql://app:p@ss@h/db', 'postgresql://app:p@x/y@h/db']) {
      expect(maskUrl(url)).toBe('postgresql://app:***@h/db');
    }
  });

  it('masks secret-looking options but keeps SSL file paths visible', () => {
    expect(maskUrl('postgresql://h/db?password=x1&sslkey=/k.pem&api_key=z&apikey=z&token=t&access_token=t&client-secret=s&key=k&sslmode=require')).toBe(
      'postgresql://h/db?password=***&sslkey=/k.pem&api_key=***&apikey=***&token=***&access_token=***&client-secret=***&key=***&sslmode=require',
    );
    expect(maskUrl('mysql://h/db?ssl_key=/k.pem&ssl_ca=/ca.pem')).toBe('mysql://h/db?ssl_key=/k.pem&ssl_ca=/ca.pem');
  });

  it('works on unparsable input and never throws', () => {
    expect(maskUrl('app:hunter2@db.example/app')).toBe('app:***@db.example/app');
    expect(maskUrl('host=db password=hunter2 user=app')).toBe('host=db password=*** user=app');
    expect(maskUrl('')).toBe('');
    expect(maskUrl(undefined as unknown as string)).toBe('***');
    fc.assert(fc.property(fc.string(), (s) => typeof maskUrl(s) === 'string'));
  });

  it('never shows any piece of a password, whatever it holds', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z0-9]{6,12}$/), fc.string({ maxLength: 6 }), fc.boolean(), (core, noise, encode) => {
        const password = `${noise}${core}${noise}`;
        const raw = encode ? encodeURIComponent(password) : password;
        const masked = maskUrl(`postgresql://app:${raw}@db.example:5432/shop?sslmode=require`);
        expect(masked).not.toContain(core);
      }),
    );
  });
});

describe('isSecretOptionName', () => {
  it('recognises secret names and leaves ordinary ones', () => {
    for (const n of ['password', 'PASSWORD', 'pwd', 'db_password', 'token', 'api_key', 'apiKey', 'secret', 'key', 'aws_secret_access_key']) expect(isSecretOptionName(n)).toBe(true);
    for (const n of ['sslkey', 'ssl_key', 'sslmode', 'application_name', 'charset', 'timeout', 'user']) expect(isSecretOptionName(n)).toBe(false);
  });

  it("leaves SQLite FTS5's tokenize and tokenchars options visible, but not other names holding 'token'", () => {
    for (const n of ['tokenize', 'TOKENIZE', 'tokenchars']) expect(isSecretOptionName(n)).toBe(false);
    for (const n of ['access_token', 'tokens', 'refresh_token']) expect(isSecretOptionName(n)).toBe(true);
  });
});

describe('scrubSecrets', () => {
  it('removes raw and percent-encoded forms of every secret', () => {
    const text = 'connect failed for app:s@c ret/x (s%40c%20ret%2Fx, s%40c+ret%2fx)';
    expect(scrubSecrets(text, ['s@c ret/x'])).toBe('connect failed for app:*** (***, ***)');
  });

  it('removes a secret given in encoded form in its decoded form too', () => {
    expect(scrubSecrets('auth failed: p@ss', ['p%40ss'])).toBe('auth failed: ***');
  });

  it('ignores empty secrets and leaves text without secrets unchanged', () => {
    expect(scrubSecrets('nothing here', ['', 'absent'])).toBe('nothing here');
  });

  it('handles secrets made of regular-expression and non-ASCII characters', () => {
    const secret = 'a-b.c*d[e]f(g)h{1}|\\^$/ü';
    expect(scrubSecrets(`x ${secret} y ${encodeURIComponent(secret)} z`, [secret])).toBe('x *** y *** z');
    fc.assert(fc.property(fc.string({ minLength: 1 }), (s) => !scrubSecrets(`<${s}>`, [s]).includes(`<${s}>`) || s === '***'));
  });

  it('hides a secret that contains another secret completely', () => {
    expect(scrubSecrets('x longsecret y', ['secret', 'longsecret'])).toBe('x *** y');
  });

  it('scrubs what urlSecrets finds in a URL', () => {
    const url = 'postgresql://app:s%40cret@h/db?api_key=k%2Bey&sslkey=/k.pem';
    // The last: `app:s@cret` in base64, as an HTTP client's Basic authorization header carries it.
    expect(urlSecrets(url).sort()).toEqual(['k%2Bey', 'k+ey', 's%40cret', 's@cret', 'YXBwOnNAY3JldA=='].sort());
    expect(scrubSecrets(`error near s@cret and k+ey, file /k.pem`, urlSecrets(url))).toBe('error near *** and ***, file /k.pem');
    expect(urlSecrets('not a url')).toEqual([]);
  });
});
