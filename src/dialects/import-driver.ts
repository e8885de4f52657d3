import { MtoolError } from '../errors.js';
import type { DatabaseType } from './types.js';

/**
 * Import a driver package lazily, turning "not installed" into `MTOOL_DRIVER_MISSING` that
 * names the npm package. `load` is a closure over a literal `import('pkg')` so bundlers and
 * TypeScript still see the specifier.
 * @example const pg = await importDriver('pg', 'postgresql', () => import('pg'));
 */
export async function importDriver<T>(pkg: string, type: DatabaseType | string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (e) {
    if (isModuleNotFound(e, pkg)) {
      throw new MtoolError('MTOOL_DRIVER_MISSING', `${type} needs the npm package '${pkg}', which is not installed; run: npm install ${pkg}`, { cause: e });
    }
    throw e;
  }
}

function isModuleNotFound(e: unknown, pkg: string): boolean {
  if (typeof e !== 'object' || e === null) return false;
  const code = (e as { code?: unknown }).code;
  const message = String((e as { message?: unknown }).message ?? '');
  // Only the package itself missing counts: a broken install (a missing file inside it, a
  // native addon built for another Node) must surface as is, not as "run npm install".
  return (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && (message.includes(`'${pkg}'`) || message.includes(`"${pkg}"`));
}
