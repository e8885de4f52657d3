import { describe, expect, it } from 'vitest';
import { importDriver } from '../../src/dialects/import-driver.js';
import { getDialect } from '../../src/dialects/index.js';
import { DATABASE_TYPES } from '../../src/dialects/types.js';
import { moduleGraph } from '../support/module-graph.js';

const DRIVERS = ['pg', 'mysql2', 'mysql2/promise', 'better-sqlite3', '@clickhouse/client', 'chdb'];

describe('driver loading', () => {
  it('loads no driver package when the dialect registry is imported', async () => {
    // Bundle the registry's whole module graph (the lazily imported driver modules included,
    // inlined into one file) and look at how each driver is reached: only through a dynamic
    // import() inside connect, never a static import that would load at startup.
    const metafile = await moduleGraph('src/dialects/index.ts', { packages: DRIVERS });
    const staticImports = Object.values(metafile.outputs).flatMap((o) => o.imports.filter((i) => i.kind === 'import-statement').map((i) => i.path));
    expect(staticImports.filter((p) => DRIVERS.includes(p))).toEqual([]);
    const allDynamic = Object.values(metafile.outputs).flatMap((o) => o.imports.filter((i) => i.kind === 'dynamic-import' && DRIVERS.includes(i.path)).map((i) => i.path));
    expect(new Set(allDynamic)).toEqual(new Set(['pg', 'mysql2/promise', 'better-sqlite3', '@clickhouse/client', 'chdb']));
  });

  it('says which npm package to install when a driver is missing', async () => {
    const missing = 'mtool-no-such-driver-pkg';
    const error = await importDriver(missing, 'postgresql', () => import(missing)).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'MTOOL_DRIVER_MISSING' });
    expect((error as Error).message).toBe(`postgresql needs the npm package '${missing}', which is not installed; run: npm install ${missing}`);
  });

  it('has a dialect for every database type and rejects unknown ones', () => {
    for (const type of DATABASE_TYPES) expect(getDialect(type).type).toBe(type);
    expect(() => getDialect('oracle' as never)).toThrow(/unknown database type 'oracle'/);
  });
});
