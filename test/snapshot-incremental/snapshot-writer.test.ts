import { cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readSnapshot, snapshotDir, SnapshotWriter, writeSnapshot } from '../../src/main/snapshot/index.js';
import type { SchemaStep } from '../../src/main/snapshot/schema-window.js';
import { applyStep } from './apply-step.js';
import { normalizeIndex, type SchemaIR, type TableIR } from '../../src/schema/ir.js';
import { tempProject } from '../support/temp-project.js';

const quiet = { log: { warn: () => undefined } };

function table(name: string, extra: Partial<TableIR> = {}): TableIR {
  return {
    name,
    object_type: 'table',
    columns: {
      id: { name: 'id', position: 0, type: 'integer', nullable: false, primary_key: true, default: null, comment: null },
      // Integer-like and non-ASCII keys: canonical JSON must still sort them as text.
      '10': { name: '10', position: 1, type: 'varchar', length: 20, nullable: true, primary_key: false, default: { kind: 'literal', value: 'a "quoted"\nline' }, comment: 'ünï' },
      '2': { name: '2', position: 2, type: 'numeric', precision: 10, scale: 2, nullable: true, primary_key: false, default: null, comment: null, attrs: { skip: undefined } },
    },
    primary_key: ['id'],
    comment: null,
    backend_table_spec: { backend: 'postgresql' },
    ...extra,
  };
}

function schema(): SchemaIR {
  return {
    tables: { users: table('users'), '7': table('7'), '10': table('10'), 'app.Émoji 🎉': table('Émoji 🎉', { schema: 'app' }) },
    enums: { mood: { name: 'mood', values: ['b', 'a'] } },
    indexes: { 'users.ix': normalizeIndex({ name: 'ix', table: 'users', columns: ['lower(email)'], where: 'id > 0' }) },
    constraints: {},
  };
}

const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s));
const file = (root: string, id: string) => readFile(join(snapshotDir(root), `${id}.schema.json`), 'utf8');

describe('SnapshotWriter', () => {
  it('writes the same bytes as writeSnapshot, batch after batch, reusing unchanged objects', async () => {
    const a = await tempProject({}, 'mtool-writer-a-');
    const b = await tempProject({}, 'mtool-writer-b-');
    const writer = new SnapshotWriter(a, 'app', 'postgresql', quiet);
    let ir = schema();
    const steps: SchemaIR[] = [ir];
    // Later schemas share untouched objects with earlier ones, as the snapshot hook's merges do.
    ir = { ...ir, tables: { ...ir.tables, posts: table('posts') } };
    steps.push(ir);
    const { users: _dropped, ...rest } = ir.tables;
    ir = { ...ir, tables: { ...rest, users: table('users', { comment: 'changed' }) }, indexes: {}, enums: { mood: { name: 'mood', values: ['b', 'a', 'c'] } } };
    steps.push(ir);
    steps.push(ir); // nothing changed (a data-only migration)
    for (const [i, step] of steps.entries()) {
      const id = `app__000${i + 1}_step${i + 1}`;
      const written = await writer.write({ migrationId: id, schema: step, appliedAt: at(i) });
      const expected = await writeSnapshot(b, { migrationId: id, databaseName: 'app', databaseType: 'postgresql', schema: step, appliedAt: at(i) }, quiet);
      expect(await file(a, id)).toBe(await file(b, id));
      expect(written.checksum).toBe(expected.snapshot.checksum);
    }
    const last = await readSnapshot(join(snapshotDir(a), 'app__0004_step4.schema.json'));
    expect(last?.previous_checksum).toBe((await readSnapshot(join(snapshotDir(a), 'app__0003_step3.schema.json')))?.checksum);
  });

  it('chains previous_checksum as writeSnapshot does: files of earlier versions between, unusable ones skipped, a re-applied version replaced', async () => {
    const a = await tempProject({}, 'mtool-writer-chain-a-');
    const ir = schema();
    await writeSnapshot(a, { migrationId: 'app__0001_one', databaseName: 'app', databaseType: 'postgresql', schema: ir, appliedAt: at(1) });
    await writeSnapshot(a, { migrationId: 'app__0003_three', databaseName: 'app', databaseType: 'postgresql', schema: ir, appliedAt: at(3) });
    await mkdir(snapshotDir(a), { recursive: true });
    await writeFile(join(snapshotDir(a), 'app__0004_broken.schema.json'), '{"truncated": ');
    // Another database's files are not part of the chain.
    await writeSnapshot(a, { migrationId: 'other__0002_x', databaseName: 'other', databaseType: 'sqlite', schema: ir, appliedAt: at(2) });
    const b = await tempProject({}, 'mtool-writer-chain-b-');
    await cp(join(a, '.mtool'), join(b, '.mtool'), { recursive: true });

    const writer = new SnapshotWriter(a, 'app', 'postgresql', quiet);
    for (const [k, id] of ['app__0002_two', 'app__0005_five', 'app__0002_two', 'app__0006_six'].entries()) {
      await writer.write({ migrationId: id, schema: ir, appliedAt: at(10 + k) });
      await writeSnapshot(b, { migrationId: id, databaseName: 'app', databaseType: 'postgresql', schema: ir, appliedAt: at(10 + k) }, quiet);
      expect(await file(a, id), id).toBe(await file(b, id));
    }
    const five = await readSnapshot(join(snapshotDir(a), 'app__0005_five.schema.json'));
    expect(five?.previous_checksum).toBe((await readSnapshot(join(snapshotDir(a), 'app__0003_three.schema.json')))?.checksum);
  });

  it('refuses a migration id of another database and a schema without its maps', async () => {
    const a = await tempProject({}, 'mtool-writer-bad-');
    const writer = new SnapshotWriter(a, 'app', 'sqlite', quiet);
    await expect(writer.write({ migrationId: 'other__0001_x', schema: schema() })).rejects.toMatchObject({ code: 'MTOOL_SNAPSHOT' });
    await expect(writer.write({ migrationId: 'app__0001_x', schema: { tables: {} } as unknown as SchemaIR })).rejects.toMatchObject({ code: 'MTOOL_SNAPSHOT' });
  });

  it('stageStep patches the last snapshot by a step and writes what stage writes for applyStep of it', async () => {
    const a = await tempProject({}, 'mtool-writer-steps-a-');
    const b = await tempProject({}, 'mtool-writer-steps-b-');
    const byStep = new SnapshotWriter(a, 'app', 'postgresql', quiet);
    const whole = new SnapshotWriter(b, 'app', 'postgresql', quiet);
    // A seeded walk over the kinds of step a batch produces: tables created, replaced and dropped
    // (with their indexes), enums read again, data-only migrations, full reads.
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const start = schema();
    let current = start;
    for (let i = 1; i <= 120; i++) {
      const names = Object.keys(current.tables);
      const pick = names[random(names.length)] ?? 'users';
      const fresh = `t${random(40)}`;
      let step: SchemaStep;
      switch (random(6)) {
        case 0:
          step = { kind: 'none' };
          break;
        case 1:
          step = { kind: 'full', schema: { ...current, tables: { ...current.tables, [fresh]: table(fresh, { comment: `full ${i}` }) } } };
          break;
        case 2: // drop
          step = { kind: 'partial', part: { tables: {}, enums: {}, indexes: {}, constraints: {} }, replaced: [pick], enums: false };
          break;
        case 3: // enums read again: one changed, one the same content in a new object
          step = { kind: 'partial', part: { tables: {}, enums: { mood: { name: 'mood', values: ['b', 'a'] }, [`e${random(3)}`]: { name: 'e', values: [String(i)] } }, indexes: {}, constraints: {} }, replaced: [], enums: true };
          break;
        default: {
          // create or replace a table, with an index on it
          const index = normalizeIndex({ name: `ix_${i}`, table: fresh, columns: ['id'] });
          step = { kind: 'partial', part: { tables: { [fresh]: table(fresh, { comment: `step ${i}` }) }, enums: {}, indexes: { [`${fresh}.ix_${i}`]: index }, constraints: {} }, replaced: [fresh], enums: false };
        }
      }
      const id = `app__${String(i).padStart(4, '0')}_s${i}`;
      const staged = await byStep.stageStep({ migrationId: id, appliedAt: at(i), step, ...(i === 1 ? { start } : {}) });
      expect(await staged.written).toBeUndefined();
      current = applyStep(current, step);
      await whole.write({ migrationId: id, schema: current, appliedAt: at(i) });
      expect(await file(a, id), id).toBe(await file(b, id));
    }
  });

  it('stageStep without a schema to start from is refused, and changes nothing', async () => {
    const a = await tempProject({}, 'mtool-writer-nostart-');
    const writer = new SnapshotWriter(a, 'app', 'sqlite', quiet);
    await expect(writer.stageStep({ migrationId: 'app__0001_x', step: { kind: 'none' } })).rejects.toMatchObject({ code: 'MTOOL_SNAPSHOT', message: expect.stringContaining('no schema before this step') });
    const bad = { kind: 'partial', part: { tables: { t: { name: 't', columns: {}, nan: Number.NaN } }, enums: {}, indexes: {}, constraints: {} } as unknown as SchemaIR, replaced: [], enums: false } as SchemaStep;
    await writer.write({ migrationId: 'app__0001_x', schema: schema() });
    await expect(writer.stageStep({ migrationId: 'app__0002_y', step: bad })).rejects.toThrow(/NaN, which JSON cannot represent/);
    // The failed step left the writer's schema as it was: the next file is the first one's schema.
    expect(await (await writer.stageStep({ migrationId: 'app__0003_z', step: { kind: 'none' } })).written).toBeUndefined();
    const one = JSON.parse(await file(a, 'app__0001_x'));
    const three = JSON.parse(await file(a, 'app__0003_z'));
    expect(three.tables).toEqual(one.tables);
  });
});
