/**
 * Objects named like members of `Object.prototype` (`__proto__`, `constructor`, `toString`):
 * schema maps are plain objects keyed by database names, where `map['__proto__'] = x` sets the
 * prototype instead of adding an entry, so such a column, table or enum used to vanish without a
 * word from check-db, snapshot, generate-models and the snapshot files. Every path is driven end to
 * end here: live database → check-db (json, txt, yaml) → `snapshot TABLE` → the schema snapshot
 * `migrate` wrote, read back → generate-models (type-checked) → export-models → check-db --out sql
 * applied to an empty database.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseType } from '../../src/dialects/types.js';
import { canonicalJson } from '../../src/schema/canonical-json.js';
import { readSnapshot, writeSnapshot } from '../../src/main/snapshot/snapshot-store.js';
import { connectTo, randomName, serverStatus, TEST_URLS, withDatabase } from '../support/databases.js';
import { SchemaProject } from './schema-project.js';

const pg = await serverStatus('postgresql');
const mysql = await serverStatus('mysql');

/** Databases of this file are named `fix_proto_*` and dropped after it. */
async function protoDatabase(server: 'postgresql' | 'mysql'): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = randomName('fix_proto');
  const admin = async (sql: string) => {
    const conn = await connectTo(server, TEST_URLS[server], { databaseName: 'fix-proto-admin' });
    try {
      await conn.query(sql);
    } finally {
      await conn.close();
    }
  };
  await admin(server === 'mysql' ? `CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin` : `CREATE DATABASE "${name}"`);
  return { url: withDatabase(TEST_URLS[server], name), drop: () => admin(server === 'mysql' ? `DROP DATABASE IF EXISTS \`${name}\`` : `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`) };
}

interface Case {
  type: DatabaseType;
  url: string;
  emptyUrl: string;
  schema: string;
  /** Table key → the column names it must list, in order. */
  columns: Record<string, string[]>;
  /** Enum keys the schema must list. */
  enums?: string[];
  /** `snapshot TABLE` of this table must name the `__proto__` column. */
  snapshotTable: string;
}

async function protoRoundTrip(c: Case): Promise<void> {
  const project = await SchemaProject.create(c.type, c.url);
  const empty = await SchemaProject.create(c.type, c.emptyUrl);
  try {
    await project.migration('app__0001_proto_names.sql', c.schema);
    await project.ok(['migrate']);

    // check-db, every format.
    const live = await project.ok(['check-db', '--out', 'json']);
    const ir = JSON.parse(live.stdout);
    expect(Object.keys(ir.tables).sort()).toEqual(Object.keys(c.columns).sort());
    for (const [table, names] of Object.entries(c.columns)) {
      const columns = Object.values(ir.tables[table].columns as Record<string, { name: string; position: number }>);
      expect(columns.sort((a, b) => a.position - b.position).map((col) => col.name)).toEqual(names);
    }
    expect(Object.keys(ir.enums).sort()).toEqual((c.enums ?? []).sort());
    const txt = await project.ok(['check-db']);
    expect(txt.stdout).toMatch(/^ {2}__proto__ /m);
    const yaml = await project.ok(['check-db', '--out', 'yaml']);
    expect(yaml.stdout).toMatch(/^ {6}__proto__:$/m);

    // snapshot TABLE.
    const ddl = await project.ok(['snapshot', c.snapshotTable]);
    expect(ddl.stdout).toMatch(/["`]__proto__["`] /);

    // The snapshot file migrate wrote holds the live schema, and reads back whole.
    const files = (await readdir(join(project.dir, '.mtool', 'schemas'))).filter((f) => f.endsWith('.schema.json'));
    expect(files).toHaveLength(1);
    const snapshot = await readSnapshot(join(project.dir, '.mtool', 'schemas', files[0]!), { log: { warn: (m: string) => expect.fail(m) } });
    const body = (s: { tables: unknown; enums: unknown; indexes: unknown; constraints: unknown }) => canonicalJson({ tables: s.tables, enums: s.enums, indexes: s.indexes, constraints: s.constraints });
    expect(snapshot).toBeDefined();
    expect(body(snapshot!)).toBe(live.stdout);
    // Written again from what was read (as the next migrate does) and read back: the same.
    const again = await writeSnapshot(project.dir, { migrationId: 'app__0002_again', databaseName: 'app', databaseType: c.type, schema: snapshot! });
    expect(body((await readSnapshot(again.path))!)).toBe(live.stdout);

    // generate-models writes the column (and type-checks); export-models compiles it back to the live IR.
    const generated = await project.json(['generate-models']);
    expect(generated.differences).toEqual([]);
    await project.typecheck();
    await project.ok(['export-models']);
    const state = JSON.parse(await project.read('.mtool/model_state.json'));
    expect(canonicalJson(state.databases.app.schema)).toBe(live.stdout);

    // check-db --out sql recreates it all in an empty database.
    const sql = await project.ok(['check-db', '--out', 'sql']);
    await empty.migration('app__0001_from_check_db.sql', sql.stdout);
    await empty.ok(['migrate']);
    expect((await empty.ok(['check-db', '--out', 'json'])).stdout).toBe(live.stdout);
  } finally {
    await project.dispose();
    await empty.dispose();
  }
}

const PG_SCHEMA = `
CREATE TYPE "__proto__" AS ENUM ('a', 'b');
CREATE TABLE "1abc" (
  id integer PRIMARY KEY,
  "constructor" integer,
  "__proto__" integer NOT NULL DEFAULT 0,
  "toString" "__proto__",
  CONSTRAINT "hasOwnProperty" UNIQUE ("constructor")
);
CREATE INDEX ix_proto ON "1abc" ("__proto__" DESC, "constructor");
CREATE TABLE "constructor" (id integer PRIMARY KEY, "__proto__" integer REFERENCES "1abc" (id));
`;

describe.skipIf(!pg.reachable)('postgresql: objects named __proto__, constructor, toString', () => {
  const dbs: { url: string; drop: () => Promise<void> }[] = [];
  beforeAll(async () => {
    for (let i = 0; i < 2; i++) dbs.push(await protoDatabase('postgresql'));
  });
  afterAll(async () => {
    for (const db of dbs) await db.drop();
  });

  it('keeps every one of them through check-db, snapshot, snapshot files, generate-models and export-models', async () => {
    await protoRoundTrip({
      type: 'postgresql',
      url: dbs[0]!.url,
      emptyUrl: dbs[1]!.url,
      schema: PG_SCHEMA,
      columns: { '1abc': ['id', 'constructor', '__proto__', 'toString'], constructor: ['id', '__proto__'] },
      enums: ['__proto__'],
      snapshotTable: '1abc',
    });
  }, 180_000);
});

const PLAIN_SCHEMA = `
CREATE TABLE __proto__ (id INTEGER NOT NULL PRIMARY KEY, \`constructor\` INTEGER, \`__proto__\` INTEGER NOT NULL DEFAULT 0);
CREATE INDEX ix_proto ON __proto__ (\`__proto__\` DESC, \`constructor\`);
CREATE TABLE \`1abc\` (id INTEGER NOT NULL PRIMARY KEY, \`toString\` INTEGER, \`__proto__\` INTEGER, CONSTRAINT fk_1abc_proto FOREIGN KEY (\`toString\`) REFERENCES __proto__ (id));
`;
// A computed key: `{ __proto__: ... }` would set the literal's prototype (the very bug).
const PLAIN_COLUMNS = { ['__proto__']: ['id', 'constructor', '__proto__'], '1abc': ['id', 'toString', '__proto__'] };

describe('sqlite: objects named __proto__, constructor, toString', () => {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'fix-proto-sqlite-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('keeps every one of them through check-db, snapshot, snapshot files, generate-models and export-models', async () => {
    await protoRoundTrip({
      type: 'sqlite',
      url: `sqlite:///${join(dir, 'a.db')}`,
      emptyUrl: `sqlite:///${join(dir, 'b.db')}`,
      schema: PLAIN_SCHEMA.replace(/`/g, '"'),
      columns: { ...PLAIN_COLUMNS },
      snapshotTable: '__proto__',
    });
  }, 120_000);
});

describe.skipIf(!mysql.reachable)('mariadb: objects named __proto__, constructor, toString', () => {
  const dbs: { url: string; drop: () => Promise<void> }[] = [];
  beforeAll(async () => {
    for (let i = 0; i < 2; i++) dbs.push(await protoDatabase('mysql'));
  });
  afterAll(async () => {
    for (const db of dbs) await db.drop();
  });

  it('keeps every one of them through check-db, snapshot, snapshot files, generate-models and export-models', async () => {
    await protoRoundTrip({ type: 'mariadb', url: dbs[0]!.url, emptyUrl: dbs[1]!.url, schema: PLAIN_SCHEMA, columns: { ...PLAIN_COLUMNS }, snapshotTable: '__proto__' });
  }, 180_000);
});
