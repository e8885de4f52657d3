import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { ConnectionOptions } from 'node:tls';
import { MtoolError } from '../../errors.js';
import type { PostgresUrlOptions } from '../../net/connection-url.js';
import type { ErrorContext } from '../driver-error.js';

/** What the pg driver gets as `ssl`, plus the fallback libpq's `allow`/`prefer` modes imply. */
export interface SslPlan {
  /** Config of the first attempt. */
  first: false | ConnectionOptions;
  /** Config of the second attempt when the first fails for lack of (or need of) SSL. */
  fallback?: false | ConnectionOptions;
}

/**
 * Map libpq's `sslmode` to the pg driver's `ssl` option (no mode given means libpq's default,
 * `prefer`):
 * - `disable` → no SSL;
 * - `allow` → plain first, SSL (unverified) if the server demands it;
 * - `prefer` → SSL (unverified) first, plain if the server has no SSL;
 * - `require` → SSL without certificate verification (`rejectUnauthorized: false`);
 * - `verify-ca` → SSL, the chain checked against `sslrootcert` (or Node's CA store), host name not checked;
 * - `verify-full` → as verify-ca, and the host name must match the certificate.
 * `sslcert`/`sslkey` (client certificate) and `sslrootcert` are files read now, relative paths
 * against the project root.
 */
export async function sslPlan(options: PostgresUrlOptions, root: string, ctx: ErrorContext): Promise<SslPlan> {
  const mode = options.sslmode ?? 'prefer';
  if (mode === 'disable') return { first: false };
  const files: ConnectionOptions = {};
  if (options.sslcert) files.cert = await readSslFile('sslcert', options.sslcert, root, ctx);
  if (options.sslkey) files.key = await readSslFile('sslkey', options.sslkey, root, ctx);
  const unverified: ConnectionOptions = { ...files, rejectUnauthorized: false };
  switch (mode) {
    case 'allow':
      return { first: false, fallback: unverified };
    case 'prefer':
      return { first: unverified, fallback: false };
    case 'require':
      return { first: unverified };
    case 'verify-ca':
    case 'verify-full': {
      const verified: ConnectionOptions = { ...files, rejectUnauthorized: true };
      if (options.sslrootcert) verified.ca = await readSslFile('sslrootcert', options.sslrootcert, root, ctx);
      // verify-ca trusts any host name the CA signed for; verify-full keeps Node's host check.
      if (mode === 'verify-ca') verified.checkServerIdentity = () => undefined;
      return { first: verified };
    }
  }
}

async function readSslFile(option: string, path: string, root: string, ctx: ErrorContext): Promise<Buffer> {
  const file = resolve(root, path);
  try {
    return await readFile(file);
  } catch (e) {
    const reason = (e as NodeJS.ErrnoException).code ?? String(e);
    // A URL option naming a file that cannot be read is a configuration error, not an unreachable
    // database: `--all` must not skip it as a missing optional one (skipIfMissing).
    throw new MtoolError('MTOOL_URL', `${ctx.type} (${ctx.databaseName}): cannot read the ${option} file '${file}' (${reason}); fix the path in the URL option ${option}`, { cause: e, database: ctx.databaseName });
  }
}

/** The server refused SSL (prefer → retry plain) or demanded it (allow → retry with SSL). */
export function sslRetryable(error: unknown, firstWasSsl: boolean): boolean {
  const message = String((error as { message?: unknown })?.message ?? '');
  return firstWasSsl ? /does not support SSL/i.test(message) : /no encryption/i.test(message);
}
