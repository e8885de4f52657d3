/**
 * generate-models after tables were renamed or dropped: the files an earlier run generated for
 * them (recognised by the generated-file mark) are removed and listed; hand-written files, files
 * in subfolders and other files of the folder stay. Before, the old `order.ts` stayed behind, out
 * of index.ts but still loaded by `export-models` (`modelPaths: ['models']`).
 */
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseType } from '../../src/dialects/types.js';
import { GENERATED_MARK } from '../../src/main/codegen/generate-models.js';
import { connectTo, randomName, serverStatus, TEST_URLS, withDatabase } from '../support/databases.js';
import { SchemaProject } from './schema-project.js';

const pg = await serverStatus('postgresql');

const HAND_WRITTEN = 'export const helper = 1;\n';
/** Starts with the mark but lives in a subfolder: generate-models writes no subfolders, so it is not its file. */
const NESTED = `${GENERATED_MARK} by hand, in a subfolder.\nexport const nested = 2;\n`;

async function renameAndRegenerate(type: DatabaseType, url: string): Promise<void> {
  const p = await SchemaProject.create(type, url, "modelPaths: ['models']");
  try {
    await p.migration('app__0001_init.sql', `CREATE TABLE "order" (id integer PRIMARY KEY, total integer);\nCREATE TABLE legacy (id integer PRIMARY KEY);\nCREATE TABLE users (id integer PRIMARY KEY, name text);`);
    await p.ok(['migrate']);
    const first = await p.json(['generate-models']);
    expect(first.files).toEqual(['models/index.ts', 'models/legacy.ts', 'models/order.ts', 'models/users.ts']);
    expect(first.removed).toEqual([]);
    await p.write('models/helpers.ts', HAND_WRITTEN);
    await p.write('models/notes.md', `${GENERATED_MARK}\nnot TypeScript\n`);
    await mkdir(join(p.dir, 'models', 'sub'));
    await p.write('models/sub/nested.ts', NESTED);

    await p.migration('app__0002_rename.sql', `ALTER TABLE "order" RENAME TO orders;\nDROP TABLE legacy;`);
    await p.ok(['migrate']);
    const text = await p.ok(['generate-models']);
    expect(text.stdout).toContain('Removed 2 files an earlier run generated that this run did not write: models/legacy.ts, models/order.ts.');
    expect((await readdir(join(p.dir, 'models'))).sort()).toEqual(['helpers.ts', 'index.ts', 'notes.md', 'orders.ts', 'sub', 'users.ts']);
    expect(await p.read('models/helpers.ts')).toBe(HAND_WRITTEN);
    expect(await p.read('models/sub/nested.ts')).toBe(NESTED);

    // The folder compiles and export-models loads every file of it.
    await p.typecheck();
    await p.ok(['export-models']);
    const state = JSON.parse(await p.read('.mtool/model_state.json'));
    expect(Object.keys(state.databases.app.schema.tables).sort()).toEqual(['orders', 'users']);

    // A run that writes the same files removes nothing; --single-file replaces the per-table files.
    expect((await p.json(['generate-models'])).removed).toEqual([]);
    const single = await p.json(['generate-models', '--single-file']);
    expect(single.removed).toEqual(['models/index.ts', 'models/orders.ts', 'models/users.ts']);
    expect((await readdir(join(p.dir, 'models'))).sort()).toEqual(['helpers.ts', 'models.ts', 'notes.md', 'sub']);
    await p.ok(['export-models']);
  } finally {
    await p.dispose();
  }
}

describe('generate-models on sqlite removes the files of tables renamed or dropped since', () => {
  it('removes and lists them, keeps hand-written files, and export-models loads the folder', async () => {
    await renameAndRegenerate('sqlite', 'sqlite:///app.db');
  }, 120_000);
});

describe.skipIf(!pg.reachable)('generate-models on postgresql removes the files of tables renamed or dropped since', () => {
  const name = randomName('fix_proto');
  const admin = async (sql: string) => {
    const conn = await connectTo('postgresql', TEST_URLS.postgresql, { databaseName: 'fix-proto-admin' });
    try {
      await conn.query(sql);
    } finally {
      await conn.close();
    }
  };
  beforeAll(() => admin(`CREATE DATABASE "${name}"`));
  afterAll(() => admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));

  it('removes and lists them, keeps hand-written files, and export-models loads the folder', async () => {
    await renameAndRegenerate('postgresql', withDatabase(TEST_URLS.postgresql, name));
  }, 120_000);
});
