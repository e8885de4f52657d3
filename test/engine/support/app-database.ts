import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import type { DatabaseEntry } from '../../../src/main/config/types.js';
import { testEntry } from '../../support/database-entry.js';
import { provision, type EngineTarget, type ProvisionedDatabase } from './targets.js';

/** The project and database of one test (see {@link appDatabase}). */
export interface AppDatabase {
  /** Project root, holding `migrations/app/`. */
  readonly root: string;
  /** The fresh database's URL. */
  readonly url: string;
  /** Write a file into `migrations/app/`. */
  put(filename: string, content: string): Promise<void>;
  /** The database entry `app` of `target`'s type at {@link url}, rooted at {@link root}. */
  entry(): DatabaseEntry;
}

/**
 * For each test of the enclosing block: a temporary project root with `migrations/app/` and a
 * freshly provisioned database of `target`, both removed after the test.
 */
export function appDatabase(target: EngineTarget, prefix: string): AppDatabase {
  let root = '';
  let db: ProvisionedDatabase | undefined;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), prefix));
    await mkdir(join(root, 'migrations', 'app'), { recursive: true });
    db = await provision(target);
  });
  afterEach(async () => {
    await db?.drop();
    db = undefined;
    await rm(root, { recursive: true, force: true });
  });
  return {
    get root() {
      return root;
    },
    get url() {
      return db!.url;
    },
    put: (filename, content) => writeFile(join(root, 'migrations', 'app', filename), content),
    entry: () => testEntry(root, 'app', target.type, db!.url),
  };
}
