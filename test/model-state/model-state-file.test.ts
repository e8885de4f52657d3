import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  modelStateEntry,
  modelStatePath,
  putModelStateEntry,
  readModelState,
  readModelStateFile,
  schemaChecksum,
  updateModelState,
} from '../../src/main/model-state/model-state-file.js';
import { canonicalJson, col, compileModels, table } from '../../src/schema/index.js';

const users = table('users', { id: col.integer().primaryKey(), email: col.text().notNull() });
const pg = compileModels([users], { dialect: 'postgresql' });
const lite = compileModels([users], { dialect: 'sqlite' });

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'mtool-state-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('model state file', () => {
  it('is absent until written', async () => {
    expect(await readModelState(root)).toBeUndefined();
  });

  it('stores one entry per database as canonical JSON and keeps other entries on update', async () => {
    await updateModelState(root, 'app', 'postgresql', pg);
    await updateModelState(root, 'cache', 'sqlite', lite);
    const text = await readFile(modelStatePath(root), 'utf8');
    expect(text).toBe(canonicalJson(JSON.parse(text)));
    const state = await readModelState(root);
    expect(state).toEqual({
      format_version: 1,
      databases: {
        app: { database_type: 'postgresql', checksum: schemaChecksum(pg), schema: JSON.parse(JSON.stringify(pg)) },
        cache: { database_type: 'sqlite', checksum: schemaChecksum(lite), schema: JSON.parse(JSON.stringify(lite)) },
      },
    });
    await updateModelState(root, 'app', 'postgresql', lite);
    expect((await readModelState(root))!.databases.app!.checksum).toBe(schemaChecksum(lite));
    expect((await readModelState(root))!.databases.cache!.database_type).toBe('sqlite');
  });

  it('refuses a hand-edited or broken file and says how to regenerate it', async () => {
    await updateModelState(root, 'app', 'postgresql', pg);
    const path = modelStatePath(root);
    await writeFile(path, (await readFile(path, 'utf8')).replace('"text"', '"varchar"'));
    await expect(readModelState(root)).rejects.toThrow(/database 'app' does not match its checksum.*export-models/);
    await writeFile(path, '{ nope');
    await expect(readModelState(root)).rejects.toMatchObject({ code: 'MTOOL_SNAPSHOT' });
    await writeFile(path, JSON.stringify({ format_version: 7, databases: {} }));
    await expect(readModelState(root)).rejects.toThrow(/format_version 1/);
  });

  it('writes and reads a file at any path (export-models --output), creating its folder', async () => {
    const path = join(root, 'out', 'state.json');
    await putModelStateEntry(path, 'app', modelStateEntry('postgresql', pg).entry);
    expect(await readModelStateFile(path)).toEqual({ format_version: 1, databases: { app: { database_type: 'postgresql', checksum: schemaChecksum(pg), schema: JSON.parse(JSON.stringify(pg)) } } });
    expect(await readModelStateFile(join(root, 'out', 'missing.json'))).toBeUndefined();
  });

  it('replaces a broken entry of the database being written, but not while another entry is broken', async () => {
    const path = join(root, 'state.json');
    await putModelStateEntry(path, 'app', modelStateEntry('postgresql', pg).entry);
    await putModelStateEntry(path, 'cache', modelStateEntry('sqlite', lite).entry);
    const broken = JSON.parse(await readFile(path, 'utf8'));
    broken.databases.app.checksum = 'f'.repeat(64);
    await writeFile(path, JSON.stringify(broken));
    await expect(readModelStateFile(path)).rejects.toThrow(/database 'app' does not match its checksum/);
    await expect(putModelStateEntry(path, 'cache', modelStateEntry('sqlite', lite).entry)).rejects.toThrow(/database 'app' does not match its checksum.*delete it/);
    await putModelStateEntry(path, 'app', modelStateEntry('postgresql', lite).entry);
    expect((await readModelStateFile(path))!.databases.app!.checksum).toBe(schemaChecksum(lite));
  });

  it('writes the same canonical bytes whether or not the schema text computed for the checksum is handed over', async () => {
    const a = join(root, 'a.json');
    const b = join(root, 'b.json');
    for (const [name, type, schema] of [['app', 'postgresql', pg], ['cache', 'sqlite', lite], ['app', 'postgresql', lite]] as const) {
      const { entry, schemaText } = modelStateEntry(type, schema);
      expect(schemaText).toBe(canonicalJson(schema));
      await putModelStateEntry(a, name, entry, schemaText);
      await putModelStateEntry(b, name, entry);
    }
    const text = await readFile(a, 'utf8');
    expect(await readFile(b, 'utf8')).toBe(text);
    expect(text).toBe(canonicalJson(JSON.parse(text)));
  });

  it('refuses an entry whose schema lacks one of tables, enums, indexes, constraints', async () => {
    const path = join(root, 'state.json');
    const schema = { tables: {}, enums: {}, indexes: {} };
    await writeFile(path, JSON.stringify({ format_version: 1, databases: { app: { database_type: 'sqlite', checksum: schemaChecksum(schema as never), schema } } }));
    await expect(readModelStateFile(path)).rejects.toThrow(/database 'app' has no valid schema/);
  });
});
