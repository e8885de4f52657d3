import { join } from 'node:path';
import type { DatabaseType } from '../../src/dialects/types.js';
import type { DatabaseEntry } from '../../src/main/config/types.js';

/**
 * A registry entry with every default the config loader fills (test/config/validate.test.ts
 * checks the loader against it), for tests that need an entry without loading a config.
 */
export function testEntry(root: string, name: string, type: DatabaseType, url: string, extra: Partial<DatabaseEntry> = {}): DatabaseEntry {
  return {
    name,
    isDefault: true,
    type,
    url,
    urlSource: undefined,
    urlAsync: undefined,
    configuredType: type,
    configuredUrl: url,
    devType: undefined,
    devUrl: undefined,
    devUrlSource: undefined,
    modelPaths: [],
    modelTables: [],
    overlapModels: false,
    secureValues: false,
    autoApplySeeds: false,
    seedTable: '_mtool_seeds',
    migrationTable: '_mtool_migrations',
    skipIfMissing: false,
    pgSchema: undefined,
    plugins: {},
    migrationsDir: join(root, 'migrations', name),
    ...extra,
  };
}
