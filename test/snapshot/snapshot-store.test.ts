import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { canonicalJsonCompact } from '../../src/schema/canonical-json.js';
import { canonicalJson, col, compileModels, index, pgEnum, sha256Hex, table, type SchemaIR } from '../../src/schema/index.js';
import {
  findLatestSnapshot,
  listSnapshots,
  readSnapshot,
  snapshotChecksum,
  snapshotDir,
  snapshotText,
  writeSnapshot,
} from '../../src/main/snapshot/index.js';

const status = pgEnum('status', ['on', 'off']);
const users = table('users', { id: col.integer().primaryKey(), email: col.varchar(100).notNull(), state: col.enum(status) }, { indexes: [index('email').unique()] });
const schema = compileModels([status, users], { dialect: 'postgresql' });
const at = new Date('2025-03-01T10:00:00Z');

function warnings() {
  const lines: string[] = [];
  return { lines, log: { warn: (m: string) => void lines.push(m) } };
}

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'mtool-snap-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('writeSnapshot / readSnapshot', () => {
  it('writes the spec fields to .mtool/schemas/<db>__<NNNN>_<desc>.schema.json and reads them back', async () => {
    const { path, snapshot } = await writeSnapshot(root, { migrationId: 'app__0001_init', databaseName: 'app', databaseType: 'postgresql', schema, appliedAt: at });
    expect(path).toBe(join(root, '.mtool', 'schemas', 'app__0001_init.schema.json'));
    const text = await readFile(path, 'utf8');
    const json = JSON.parse(text);
    expect(Object.keys(json).sort()).toEqual(['applied_at', 'checksum', 'constraints', 'database_name', 'database_type', 'enums', 'format_version', 'indexes', 'migration_id', 'previous_checksum', 'tables']);
    expect(json).toMatchObject({ format_version: 2, migration_id: 'app__0001_init', database_name: 'app', database_type: 'postgresql', applied_at: '2025-03-01T10:00:00.000Z', previous_checksum: null });
    const { checksum, ...rest } = json;
    expect(checksum).toBe(sha256Hex(snapshotText(rest)));
    expect(text).toBe(snapshotText(json));
    // One line per table, index, enum and constraint: the file is the hashed text plus the checksum line.
    const lines = text.split('\n');
    expect(lines).toContain(`    "users": ${canonicalJsonCompact(json.tables.users)}`);
    expect(text.replace(/  "checksum": "[0-9a-f]{64}",\n/, '')).toBe(snapshotText(rest));
    const back = await readSnapshot(path);
    expect(back).toEqual(snapshot);
    expect({ tables: back!.tables, enums: back!.enums, indexes: back!.indexes, constraints: back!.constraints }).toEqual(JSON.parse(JSON.stringify(schema)));
  });

  it('gives identical bytes for the same schema built with keys in another order', async () => {
    const reversed = JSON.parse(JSON.stringify(schema), (_k, v) => (v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).reverse()) : v)) as SchemaIR;
    expect(Object.keys(reversed.tables.users!.columns)).toEqual(['state', 'email', 'id']);
    const a = await writeSnapshot(root, { migrationId: 'a__0001_x', databaseName: 'a', databaseType: 'postgresql', schema, appliedAt: at });
    const b = await writeSnapshot(root, { migrationId: 'b__0001_x', databaseName: 'b', databaseType: 'postgresql', schema: reversed, appliedAt: at });
    const ta = (await readFile(a.path, 'utf8')).replaceAll('"a__0001_x"', '"ID"').replace('"database_name": "a"', '"database_name": "N"');
    const tb = (await readFile(b.path, 'utf8')).replaceAll('"b__0001_x"', '"ID"').replace('"database_name": "b"', '"database_name": "N"');
    const strip = (t: string) => t.replace(/"checksum": "[0-9a-f]+"/, '');
    expect(strip(ta)).toBe(strip(tb));
  });

  it('links each snapshot to the previous one by checksum, also when a version is re-applied', async () => {
    const s1 = await writeSnapshot(root, { migrationId: 'app__0001_init', databaseName: 'app', databaseType: 'postgresql', schema, appliedAt: at });
    const s2 = await writeSnapshot(root, { migrationId: 'app__0002_more', databaseName: 'app', databaseType: 'postgresql', schema, appliedAt: new Date('2025-03-02T00:00:00Z') });
    const s10 = await writeSnapshot(root, { migrationId: 'app__0010_later', databaseName: 'app', databaseType: 'postgresql', schema });
    await writeSnapshot(root, { migrationId: 'other__0005_x', databaseName: 'other', databaseType: 'postgresql', schema });
    expect(s2.snapshot.previous_checksum).toBe(s1.snapshot.checksum);
    expect(s10.snapshot.previous_checksum).toBe(s2.snapshot.checksum);
    const again = await writeSnapshot(root, { migrationId: 'app__0002_more', databaseName: 'app', databaseType: 'postgresql', schema, appliedAt: new Date('2025-04-01T00:00:00Z') });
    expect(again.snapshot.previous_checksum).toBe(s1.snapshot.checksum);
    expect((await listSnapshots(root, 'app')).map((e) => e.migrationId)).toEqual(['app__0001_init', 'app__0002_more', 'app__0010_later']);
    expect((await listSnapshots(root)).map((e) => e.databaseName)).toEqual(['app', 'app', 'app', 'other']);
  });

  it('still reads a snapshot written in the earlier fully indented layout, whose checksum hashed that text', async () => {
    const { path, snapshot } = await writeSnapshot(root, { migrationId: 'app__0001_init', databaseName: 'app', databaseType: 'postgresql', schema, appliedAt: at });
    const { checksum: _c, ...rest } = JSON.parse(await readFile(path, 'utf8'));
    const legacy = { ...rest, checksum: sha256Hex(canonicalJson(rest)) };
    await writeFile(path, canonicalJson(legacy));
    const w = warnings();
    const back = await readSnapshot(path, w);
    expect(w.lines).toEqual([]);
    expect(back).toEqual({ ...snapshot, checksum: legacy.checksum });
    // Edited after the fact: neither rule matches.
    await writeFile(path, canonicalJson({ ...legacy, applied_at: '2030-01-01T00:00:00.000Z' }));
    expect(await readSnapshot(path, w)).toBeUndefined();
    expect(w.lines[0]).toContain('checksum mismatch');
  });

  it('rejects a file whose checksum does not match, with a warning naming it', async () => {
    const { path } = await writeSnapshot(root, { migrationId: 'app__0001_init', databaseName: 'app', databaseType: 'postgresql', schema });
    await writeFile(path, (await readFile(path, 'utf8')).replace('"varchar"', '"text"'));
    const w = warnings();
    expect(await readSnapshot(path, w)).toBeUndefined();
    expect(w.lines).toHaveLength(1);
    expect(w.lines[0]).toContain(path);
    expect(w.lines[0]).toContain('checksum mismatch');
  });

  it('rejects bad JSON and unknown format versions', async () => {
    const dir = snapshotDir(root);
    const { path } = await writeSnapshot(root, { migrationId: 'app__0001_init', databaseName: 'app', databaseType: 'postgresql', schema });
    const text = await readFile(path, 'utf8');
    await writeFile(path, text.slice(0, text.length / 2));
    const w = warnings();
    expect(await readSnapshot(path, w)).toBeUndefined();
    expect(w.lines[0]).toMatch(/not valid JSON/);
    const v3 = { format_version: 3, checksum: 'x' };
    await writeFile(join(dir, 'app__0002_x.schema.json'), JSON.stringify(v3));
    expect(await readSnapshot(join(dir, 'app__0002_x.schema.json'), w)).toBeUndefined();
    expect(w.lines[1]).toMatch(/format_version 3 is not supported/);
  });

  it('findLatestSnapshot picks the highest version and falls back past corrupt files', async () => {
    const w = warnings();
    expect(await findLatestSnapshot(root, 'app', w)).toBeUndefined();
    await writeSnapshot(root, { migrationId: 'app__0002_b', databaseName: 'app', databaseType: 'postgresql', schema });
    await writeSnapshot(root, { migrationId: 'app__0009_c', databaseName: 'app', databaseType: 'postgresql', schema });
    const latest = await writeSnapshot(root, { migrationId: 'app__0010_d', databaseName: 'app', databaseType: 'postgresql', schema });
    await writeSnapshot(root, { migrationId: 'app__x__0099_z', databaseName: 'app__x', databaseType: 'postgresql', schema });
    await writeFile(join(snapshotDir(root), '.app__0011_e.schema.json.123.abc.tmp'), '{"trunc');
    expect((await findLatestSnapshot(root, 'app', w))?.migration_id).toBe('app__0010_d');
    expect((await findLatestSnapshot(root, 'app__x', w))?.migration_id).toBe('app__x__0099_z');
    await writeFile(latest.path, '{"format_version": 2, "trunc');
    const prev = await findLatestSnapshot(root, 'app', w);
    expect(prev?.migration_id).toBe('app__0009_c');
    expect(prev?.path).toBe(join(snapshotDir(root), 'app__0009_c.schema.json'));
    expect(w.lines.some((l) => l.includes('app__0010_d.schema.json'))).toBe(true);
  });

  it('refuses a migration id of another database and a malformed schema', async () => {
    await expect(writeSnapshot(root, { migrationId: 'other__0001_x', databaseName: 'app', databaseType: 'postgresql', schema })).rejects.toThrow(/not of the form app__<NNNN>_<description>/);
    await expect(writeSnapshot(root, { migrationId: 'app__0001_x', databaseName: 'app', databaseType: 'postgresql', schema: { tables: {} } as SchemaIR })).rejects.toThrow(/'enums' must be an object/);
  });

  it('accepts the V__ file form of a migration id', async () => {
    const { path, snapshot } = await writeSnapshot(root, { migrationId: 'V__0003_add', databaseName: 'app', databaseType: 'sqlite', schema });
    expect(path.endsWith('app__0003_add.schema.json')).toBe(true);
    expect(snapshot.migration_id).toBe('app__0003_add');
  });
});

describe('version 1 snapshots are normalized to version 2 on read', () => {
  it('maps clickhouse_options, pg_table, per-table indexes, foreign keys and primary_key', async () => {
    const v1: Record<string, unknown> = {
      format_version: 1,
      migration_id: 'app__0001_init',
      database_name: 'app',
      database_type: 'postgresql',
      applied_at: '2024-01-01T00:00:00Z',
      tables: {
        users: {
          columns: {
            id: { name: 'id', type: 'integer', nullable: true, pg_column: { native_type: 'integer' } },
            email: { name: 'email', type: 'varchar', length: 100, nullable: false, default: "'x@y'::character varying" },
            n: { name: 'n', type: 'integer', nullable: true, default: '0' },
            at: { name: 'at', type: 'timestamp', nullable: true, default: 'now()' },
          },
          primary_key: ['id'],
          pg_table: { tablespace: 'fast' },
          indexes: [{ name: 'uq_users_email', columns: ['email'], unique: true, using: 'btree' }],
          foreign_keys: [{ name: 'fk_x', columns: ['n'], ref_table: 'other', ref_columns: ['id'], on_delete: 'cascade' }],
        },
        events: {
          object_type: 'table',
          columns: [{ name: 'ts', type: 'timestamp', nullable: false }],
          clickhouse_options: { engine: 'MergeTree()', order_by: ['ts'], settings: { index_granularity: 8192 } },
        },
      },
      enums: { status: ['on', 'off'] },
    };
    v1.checksum = snapshotChecksum(v1);
    const path = join(root, 'app__0001_init.schema.json');
    await writeFile(path, JSON.stringify(v1));
    const snap = await readSnapshot(path);
    expect(snap).toBeDefined();
    expect(snap!.format_version).toBe(2);
    expect(snap!.checksum).toBe(v1.checksum);
    const u = snap!.tables.users!;
    expect(u).toMatchObject({ name: 'users', object_type: 'table', primary_key: ['id'], comment: null, backend_table_spec: { backend: 'postgresql', tablespace: 'fast' } });
    expect(u.columns.id).toMatchObject({ position: 0, primary_key: true, nullable: false, default: null, comment: null, pg_column: { native_type: 'integer' } });
    expect(u.columns.email).toMatchObject({ position: 1, length: 100, default: { kind: 'literal', value: 'x@y' } });
    expect(u.columns.n!.default).toEqual({ kind: 'literal', value: 0 });
    expect(u.columns.at!.default).toEqual({ kind: 'expression', sql: 'now()' });
    expect(snap!.indexes['users.uq_users_email']).toMatchObject({ table: 'users', unique: true, using: null, columns: ['email'] });
    expect(snap!.constraints['users.fk_x']).toMatchObject({ kind: 'foreign_key', on_delete: 'CASCADE', on_update: 'NO ACTION', deferrable: false });
    expect(snap!.tables.events!.backend_table_spec).toEqual({
      backend: 'clickhouse',
      engine: 'MergeTree()',
      order_by: 'ts',
      partition_by: null,
      primary_key: null,
      sample_by: null,
      ttl: null,
      settings: { index_granularity: '8192' },
      projections: [],
    });
    expect(snap!.enums).toEqual({ status: { name: 'status', values: ['on', 'off'] } });
  });

  it('rejects a v1 file whose checksum does not match', async () => {
    const path = join(root, 'app__0001_init.schema.json');
    await writeFile(path, JSON.stringify({ format_version: 1, checksum: 'abc', migration_id: 'app__0001_init', database_name: 'app', database_type: 'postgresql', applied_at: 'x', tables: {} }));
    const w = warnings();
    expect(await readSnapshot(path, w)).toBeUndefined();
    expect(w.lines[0]).toMatch(/checksum mismatch/);
  });
});

describe('listSnapshots ignores unrelated files', () => {
  it('skips temp files and names that are not snapshots', async () => {
    await writeSnapshot(root, { migrationId: 'app__0001_a', databaseName: 'app', databaseType: 'postgresql', schema });
    await writeFile(join(snapshotDir(root), 'notes.txt'), 'x');
    await writeFile(join(snapshotDir(root), '.app__0002_b.schema.json.1.ff.tmp'), 'x');
    expect((await readdir(snapshotDir(root))).length).toBe(3);
    expect((await listSnapshots(root)).map((e) => e.migrationId)).toEqual(['app__0001_a']);
  });
});
