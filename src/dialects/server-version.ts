import type { ServerVersion } from './types.js';

/** The leading `major[.minor[.patch]]` of a version string (0 for missing parts). */
export function parseVersionNumbers(raw: string, product: string): ServerVersion {
  const m = /^\s*v?(\d+)(?:\.(\d+))?(?:\.(\d+))?/.exec(raw);
  return { major: Number(m?.[1] ?? 0), minor: Number(m?.[2] ?? 0), patch: Number(m?.[3] ?? 0), product, raw };
}
