/**
 * Introspection and rendering are members of the Dialect contract: introspectors load on first
 * use, renderers with the dialect (pure, synchronous), and `schemaIo(type)` is the dialect itself.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { moduleGraph } from '../support/module-graph.js';
import { afterAll, describe, expect, it } from 'vitest';
import { getDialect } from '../../src/dialects/index.js';
import { DATABASE_TYPES } from '../../src/dialects/types.js';
import { col, compileModels, index, table } from '../../src/schema/index.js';
import { schemaIo } from '../../src/schema/schema-io.js';
import { connectTo } from '../support/databases.js';
import { canon, execAll } from './round-trip.js';

describe('Dialect schema members', () => {
  it('schemaIo(type) hands out the dialect members themselves, for every type', async () => {
    for (const type of DATABASE_TYPES) {
      const dialect = getDialect(type);
      const io = await schemaIo(type);
      expect(io.introspect).toBe(dialect.introspect);
      expect(io.renderSchema).toBe(dialect.renderSchema);
      expect(io.renderTable).toBe(dialect.renderTable);
    }
    await expect(schemaIo('oracle' as never)).rejects.toMatchObject({ code: 'MTOOL_CONFIG' });
  });

  it('renders on demand and names the known tables when asked for a missing one', async () => {
    const ir = compileModels([table('users', { id: col.integer().primaryKey() })], { dialect: 'postgresql' });
    const statements = await getDialect('postgresql').renderSchema(ir);
    expect(Array.isArray(statements)).toBe(true);
    expect(statements[0]).toMatch(/^CREATE TABLE "users"/);
    for (const type of DATABASE_TYPES.filter((t) => t !== 'clickhouse')) {
      await expect(getDialect(type).renderTable(compileModels([table('users', { id: col.integer().primaryKey() })], { dialect: type }), 'nope')).rejects.toThrow(
        expect.objectContaining({ code: 'MTOOL_USAGE', message: expect.stringMatching(/table 'nope' is not in the schema; known tables: users/) }),
      );
    }
  });

  it('reaches every introspector only through a dynamic import (loaded on the first introspect)', async () => {
    const metafile = await moduleGraph('src/dialects/index.ts', 'all-packages');
    const edges = Object.entries(metafile.inputs).flatMap(([from, input]) => input.imports.filter((i) => /\/introspector\.ts$/.test(i.path)).map((i) => ({ from, to: i.path, kind: i.kind })));
    const reached = new Set(edges.map((e) => e.to));
    expect([...reached].sort()).toEqual(['src/dialects/clickhouse/introspector.ts', 'src/dialects/mysql/introspector.ts', 'src/dialects/postgresql/introspector.ts', 'src/dialects/sqlite/introspector.ts']);
    expect(edges.filter((e) => e.kind !== 'dynamic-import')).toEqual([]);
  });

  describe('on SQLite, through the dialect alone', () => {
    const dirs: string[] = [];
    afterAll(async () => {
      for (const d of dirs) await rm(d, { recursive: true, force: true });
    });

    it('renders compiled models, applies them, and introspects the same IR', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'mtool-dialect-'));
      dirs.push(dir);
      const users = table('users', { id: col.integer().primaryKey(), email: col.varchar(100).notNull().comment('login') }, { indexes: [index('email').unique()] });
      const compiled = compileModels([users], { dialect: 'sqlite' });
      const dialect = getDialect('sqlite');
      const conn = await connectTo('sqlite', `sqlite:///${join(dir, 'app.db')}`, { root: dir });
      try {
        await execAll(conn, await dialect.renderSchema(compiled));
        expect(canon(await dialect.introspect(conn))).toBe(canon(compiled));
      } finally {
        await conn.close();
      }
    });
  });
});
