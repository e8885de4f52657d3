import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { disposeDialects, getDialect } from '../../src/dialects/index.js';
import { trackingTables } from '../../src/main/models/live-schema.js';
import { findLatestSnapshot, listSnapshots, readSnapshot } from '../../src/main/snapshot/index.js';
import { canonicalJson } from '../../src/schema/canonical-json.js';
import type { SchemaIR } from '../../src/schema/ir.js';
import { testEntry } from '../support/database-entry.js';
import { connectTo } from '../support/databases.js';
import { provision, TARGETS, targetReachable } from '../engine/support/targets.js';
import { BUILT_SNAPSHOT_WORKER, captureLogs, runBatch } from './harness.js';

captureLogs();
afterAll(() => disposeDialects());

const COUNT = 200;

/**
 * A varied batch: tables, columns, indexes created and dropped, foreign keys, checks, data, and
 * now and then a statement that is not recognised (a view).
 */
function migrations(dialect: 'postgresql' | 'mysql' | 'sqlite'): string[] {
  const out: string[] = [];
  for (let i = 1; i <= COUNT; i++) {
    const back = (k: number) => i - k;
    switch (i % 8) {
      case 1:
        out.push(`CREATE TABLE t_${i} (id int PRIMARY KEY, name varchar(40), note text)`);
        break;
      case 2:
        out.push(`ALTER TABLE t_${back(1)} ADD COLUMN c_${i} int DEFAULT ${i}`);
        break;
      case 3:
        out.push(`CREATE INDEX ix_${i} ON t_${back(2)} (name)`);
        break;
      case 4:
        out.push(`INSERT INTO t_${back(3)} (id, name) VALUES (${i}, 'row ${i}')`);
        break;
      case 5:
        out.push(dialect === 'mysql' ? `DROP INDEX ix_${back(2)} ON t_${back(4)}` : `DROP INDEX ix_${back(2)}`);
        break;
      case 6:
        out.push(`CREATE TABLE fk_${i} (id int PRIMARY KEY, t_id int REFERENCES t_${back(5)} (id))`);
        break;
      case 7:
        if (i % 24 === 7) out.push(`CREATE VIEW v_${i} AS SELECT 1 AS one`);
        else if (dialect === 'sqlite') out.push(`ALTER TABLE fk_${back(1)} ADD COLUMN flag int NOT NULL DEFAULT 0 CHECK (flag IN (0, 1))`);
        else out.push(`ALTER TABLE fk_${back(1)} ADD CONSTRAINT ck_${i} CHECK (id > 0)`);
        break;
      default:
        out.push(i % 16 === 0 ? `DROP TABLE IF EXISTS fk_${back(2)}` : `ALTER TABLE t_${back(7)} DROP COLUMN c_${back(6)}`);
    }
  }
  return out;
}

const body = (ir: SchemaIR) => canonicalJson({ tables: ir.tables, enums: ir.enums, indexes: ir.indexes, constraints: ir.constraints });

// Written on the migration thread, and by the snapshot thread (snapshot-thread.ts), which large
// batches use: the same files either way.
const RUNS = [
  { id: 'postgresql', writer: 'main' },
  { id: 'postgresql', writer: 'thread' },
  { id: 'mysql', writer: 'main' },
  { id: 'sqlite', writer: 'main' },
  { id: 'sqlite', writer: 'thread' },
] as const;

for (const { id, writer } of RUNS) {
  const target = TARGETS.find((t) => t.id === id)!;
  describe.skipIf(!(await targetReachable(target)))(`a ${COUNT}-migration batch (${id}, snapshots written ${writer === 'thread' ? 'by the snapshot thread' : 'on the migration thread'})`, () => {
    it('gives every migration a snapshot equal to a full introspection after it, intact and chained, most read in part', async () => {
      const db = await provision(target);
      try {
        const hook = writer === 'thread' ? { threadMinTables: 0, threadWorkerUrl: BUILT_SNAPSHOT_WORKER } : {};
        const { steps, dir, warnings, summary } = await runBatch(target.type, db.url, migrations(id), { hook });
        expect(warnings).toEqual([]);
        expect(summary).toMatchObject({ count: COUNT, writer });
        expect(steps).toHaveLength(COUNT);
        for (const step of steps) expect(step.snapshot, step.filename).toBe(step.live);
        const modes = steps.map((s) => s.introspection);
        // Views are read in full (9 of them); data-only migrations read nothing.
        expect(modes.filter((m) => m === 'full').length).toBe(Math.ceil((COUNT - 7) / 24));
        expect(modes.filter((m) => m === 'none').length).toBe(COUNT / 8);

        const latest = await findLatestSnapshot(dir, 'app');
        expect(latest?.migration_id).toBe(`app__${String(COUNT).padStart(4, '0')}_m${COUNT}`);
        const conn = await connectTo(target.type, db.url);
        try {
          const live = await getDialect(target.type).introspect(conn, { exclude: trackingTables(testEntry(dir, 'app', target.type, db.url)) });
          // 25 t_* tables and 25 fk_* tables less the 12 dropped again (every 16th migration).
          expect(Object.keys(live.tables).length).toBe(38);
          expect(body(latest!)).toBe(body(live));
        } finally {
          await conn.close();
        }

        let previous: string | null = null;
        for (const entry of await listSnapshots(dir, 'app')) {
          const snap = await readSnapshot(join(entry.path));
          expect(snap, entry.path).toBeDefined();
          expect(snap!.previous_checksum).toBe(previous);
          previous = snap!.checksum;
        }
      } finally {
        await disposeDialects();
        await db.drop();
      }
    }, 120_000);
  });
}
