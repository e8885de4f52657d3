/**
 * Keeping credentials out of output (DESIGN.md section 5, Secrets): URL masking for settings
 * and logs, and scrubbing of known secrets from driver error messages.
 *
 * Masking is deliberately paranoid: when a URL is ambiguous (an `@` after the authority, as when
 * a password holds a raw `/`, `?` or `@`), everything up to the last `@` is treated as user-info,
 * so it may hide more than the password but never less. Query options whose name looks like a
 * secret (`password`, `token`, `api_key`, `secret`, `key`, ...) have their values masked. The
 * SSL options `sslkey`, `ssl_key`, `sslcert`, `sslrootcert`, `ssl_ca` are left visible: they
 * hold file paths, not key material, and seeing them helps diagnose TLS setups.
 */

const MASK = '***';
const SCHEME_RE = /^([a-zA-Z][a-zA-Z0-9+.-]*:\/\/)/;

/** Exact option names (lower-case, `_`/`-` removed) that carry secrets. */
const SECRET_NAMES = new Set([
  'password', 'pass', 'passwd', 'pwd', 'token', 'apikey', 'secret', 'key', 'auth', 'authorization',
  'credential', 'credentials', 'accesskey', 'secretkey', 'privatekey', 'clientsecret', 'sig', 'signature',
]);
/** Fragments that mark a secret wherever they appear in an option name. */
const SECRET_FRAGMENTS = ['password', 'passwd', 'secret', 'token', 'apikey', 'accesskey', 'privatekey'];

/** Names that hold a fragment yet no secret: SQLite FTS5's `tokenize = 'porter'` and `tokenchars`. */
const NOT_SECRET = new Set(['tokenize', 'tokenizer', 'tokenchars']);

/** Whether a URL query option (or `key=value` setting) name looks like it carries a secret. */
export function isSecretOptionName(name: string): boolean {
  const n = name.toLowerCase().replace(/[_-]/g, '');
  return SECRET_NAMES.has(n) || (!NOT_SECRET.has(n) && SECRET_FRAGMENTS.some((f) => n.includes(f)));
}

interface MaskSplit {
  scheme: string;
  /** Raw user name, or undefined when there is no user-info. */
  user: string | undefined;
  /** Raw (possibly percent-encoded) password, when a `:` is in the user-info. */
  password: string | undefined;
  /** Everything after the user-info's `@` (host, port, path, query). */
  rest: string;
}

function splitForMask(url: string): MaskSplit | undefined {
  const m = SCHEME_RE.exec(url);
  if (!m) return undefined;
  const afterScheme = url.slice(m[0].length);
  const authorityEnd = afterScheme.search(/[/?#]/);
  const authority = authorityEnd === -1 ? afterScheme : afterScheme.slice(0, authorityEnd);
  const afterAuthority = authorityEnd === -1 ? '' : afterScheme.slice(authorityEnd);
  // An '@' after the authority means the split is ambiguous: fall back to the last '@' overall.
  const at = afterAuthority.includes('@') ? afterScheme.lastIndexOf('@') : authority.lastIndexOf('@');
  if (at === -1) return { scheme: m[0], user: undefined, password: undefined, rest: afterScheme };
  const userinfo = afterScheme.slice(0, at);
  const colon = userinfo.indexOf(':');
  return {
    scheme: m[0],
    user: colon === -1 ? userinfo : userinfo.slice(0, colon),
    password: colon === -1 ? undefined : userinfo.slice(colon + 1),
    rest: afterScheme.slice(at + 1),
  };
}

function maskQuery(rest: string): string {
  const q = rest.indexOf('?');
  if (q === -1) return rest;
  const hash = rest.indexOf('#', q);
  const query = hash === -1 ? rest.slice(q + 1) : rest.slice(q + 1, hash);
  const masked = query
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq === -1) return pair;
      let name = pair.slice(0, eq);
      try {
        name = decodeURIComponent(name.replace(/\+/g, ' '));
      } catch {
        // keep the raw name for the check
      }
      return isSecretOptionName(name) ? `${pair.slice(0, eq)}=${MASK}` : pair;
    })
    .join('&');
  return `${rest.slice(0, q)}?${masked}${hash === -1 ? '' : `#${MASK}`}`;
}

/** `password=...`, `token: ...` style pairs in free text (libpq keyword strings, DSNs). */
const LOOSE_PAIR_RE = /\b([A-Za-z_][\w-]*)(\s*[=:]\s*)('[^']*'|"[^"]*"|[^\s&;,]+)/g;
/** `user:password@host` without a scheme; greedy up to the token's last `@`. */
const LOOSE_USERINFO_RE = /([^\s:/@]+):(\S*)@/g;

function maskLoose(text: string): string {
  return text
    .replace(LOOSE_USERINFO_RE, (_all, user: string) => `${user}:${MASK}@`)
    .replace(LOOSE_PAIR_RE, (all, name: string, sep: string) => (isSecretOptionName(name) ? `${name}${sep}${MASK}` : all));
}

/**
 * Mask the password and secret-looking options of a connection URL for display.
 * Works on unparsable input too (best effort) and never throws.
 * @example maskUrl('postgresql://app:s%40cret@[::1]:5432/db?sslmode=require') // 'postgresql://app:***@[::1]:5432/db?sslmode=require'
 */
export function maskUrl(url: string): string {
  try {
    if (typeof url !== 'string') return MASK;
    const split = splitForMask(url);
    if (!split) return maskLoose(url);
    const userinfo = split.user === undefined ? '' : split.password === undefined ? `${split.user}@` : `${split.user}:${MASK}@`;
    return `${split.scheme}${userinfo}${maskQuery(split.rest)}`;
  } catch {
    return MASK;
  }
}

function decodedOrRaw(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * The secrets a URL carries (password, raw, decoded and as HTTP Basic credentials; values of secret-looking options), to
 * hand to {@link scrubSecrets} around driver calls. Never throws.
 */
export function urlSecrets(url: string): string[] {
  const out = new Set<string>();
  try {
    const split = splitForMask(url);
    if (!split) return [];
    if (split.password) {
      out.add(split.password);
      const password = decodedOrRaw(split.password);
      out.add(password);
      // HTTP clients (ClickHouse's) send `Authorization: Basic <base64 of user:password>`, which a
      // proxy's error page may echo; ClickHouse's user is `default` when the URL names none.
      out.add(Buffer.from(`${decodedOrRaw(split.user ?? '') || 'default'}:${password}`).toString('base64'));
    }
    const q = split.rest.indexOf('?');
    if (q !== -1) {
      for (const pair of split.rest.slice(q + 1).split(/[&#]/)) {
        const eq = pair.indexOf('=');
        if (eq === -1 || !isSecretOptionName(pair.slice(0, eq))) continue;
        const raw = pair.slice(eq + 1);
        if (raw === '') continue;
        out.add(raw);
        try {
          out.add(decodeURIComponent(raw.replace(/\+/g, ' ')));
        } catch {
          // keep raw only
        }
      }
    }
  } catch {
    // best effort
  }
  return [...out].filter((s) => s !== '');
}

/**
 * A pattern matching a secret with any mix of raw and percent-encoded characters (either hex
 * case, `+` or `%20` for a space), so every encoding a driver or library may print is caught.
 */
function secretPattern(secret: string): string {
  let out = '';
  for (const ch of secret) {
    const bytes = [...Buffer.from(ch, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');
    const literal = ch.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    out += `(?:${literal}|${bytes.replace(/[a-f]/g, (h) => `[${h}${h.toUpperCase()}]`)}${ch === ' ' ? '|\\+' : ''})`;
  }
  return out;
}

function forms(secret: string): string[] {
  const out = [secret];
  try {
    const decoded = decodeURIComponent(secret.replace(/\+/g, ' '));
    if (decoded !== secret && decoded !== '') out.push(decoded);
  } catch {
    // not an encoded form
  }
  return out;
}

/**
 * Remove every given secret, raw and in its percent-encoded forms, from a text such as a driver
 * error message. Longer forms are replaced first so a secret containing another is fully hidden.
 * @example scrubSecrets('password authentication failed for "app" (pw s@cret)', ['s@cret']) // '... (pw ***)'
 */
export function scrubSecrets(text: string, secrets: readonly string[]): string {
  if (typeof text !== 'string' || text === '') return text;
  const all = new Set<string>();
  for (const s of secrets) if (typeof s === 'string' && s !== '') for (const f of forms(s)) all.add(f);
  if (all.size === 0) return text;
  // One alternation, longest first, so a secret containing another is replaced whole.
  const pattern = [...all].sort((a, b) => b.length - a.length).map(secretPattern).join('|');
  return text.replace(new RegExp(pattern, 'gu'), MASK);
}
