import type { ConnectionUrl } from '../../net/connection-url.js';

/** sslmode values that refuse a session without TLS. */
const TLS_REQUIRED = new Set(['require', 'verify-ca', 'verify-full']);

/**
 * The hint for a failed PostgreSQL connection that one of the URL's own options explains, or
 * undefined: an `sslmode` that demands TLS of a server that has none, or no answer within
 * `connect_timeout` (pg: "timeout expired") or, without it, `pool_timeout` (pg-pool: "Connection
 * terminated due to connection timeout"), as from a port where another service listens.
 */
export function urlOptionHint(error: unknown, url: ConnectionUrl): string | undefined {
  const message = error instanceof Error ? error.message : '';
  const where = `${url.host ?? '127.0.0.1'}:${url.port ?? 5432}`;
  const opts = url.postgres!;
  const mode = opts.sslmode ?? 'prefer';
  if (TLS_REQUIRED.has(mode) && /does not support SSL/i.test(message)) {
    return `the URL's sslmode=${mode} requires TLS, which the server at ${where} does not offer: turn ssl on in the server's configuration, or use sslmode=prefer (TLS when offered) or sslmode=disable`;
  }
  const bound = message === 'timeout expired' ? ['connect_timeout', opts.connectTimeout] : message === 'Connection terminated due to connection timeout' ? ['pool_timeout', opts.poolTimeout] : undefined;
  if (bound) {
    return `no PostgreSQL answer from ${where} within ${bound[1]} s (the URL's ${bound[0]}): check that the URL's host and port are PostgreSQL's and not another service's, or raise ${bound[0]} for a slow network`;
  }
  return undefined;
}
