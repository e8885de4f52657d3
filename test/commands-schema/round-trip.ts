/**
 * The round trip every dialect goes through (issue 4, "Done when"): a hand-written migration is
 * applied with `mtool migrate`; `generate-models` writes models; they type-check with tsc;
 * `export-models` compiles them to exactly the IR `check-db --out json` reads from the database;
 * `check-db --out sql` applied to an empty database gives the same IR again; `export-models`,
 * deleting the file and `recover-model-state` restore identical bytes.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { DatabaseType } from '../../src/dialects/types.js';
import { canonicalJson } from '../../src/schema/canonical-json.js';
import { SchemaProject } from './schema-project.js';

export interface RoundTripTarget {
  type: DatabaseType;
  /** URL of a fresh empty database. */
  url: string;
  /** URL of a second fresh empty database (for `check-db --out sql`). */
  emptyUrl: string;
  /** Upgrade SQL of the hand-written migration. */
  schema: string;
  /** Extra config fields. */
  extra?: string;
  /** generate-models flags. */
  flags?: string[];
  /** Tables, views and dictionaries the models must cover. */
  objects: string[];
}

export async function roundTrip(t: RoundTripTarget): Promise<void> {
  const project = await SchemaProject.create(t.type, t.url, t.extra);
  const empty = await SchemaProject.create(t.type, t.emptyUrl, t.extra);
  try {
    await project.migration('app__0001_varied_schema.sql', t.schema);
    await project.ok(['migrate']);
    const live = await project.ok(['check-db', '--out', 'json']);
    const ir = JSON.parse(live.stdout);
    expect(Object.keys(ir.tables).length).toBeGreaterThan(1);

    const generated = await project.json(['generate-models', ...(t.flags ?? [])]);
    // Everything in these schemas is expressible: no difference noted.
    expect(generated.differences).toEqual([]);
    expect(generated.objects).toEqual(t.objects);
    expect(Object.keys(ir.tables).sort()).toEqual(t.objects);
    const single = t.flags?.includes('--single-file') === true;
    expect(generated.files).toContain(single ? 'models/models.ts' : 'models/index.ts');
    if (single) expect(generated.files).toHaveLength(1);
    const first = await project.read(generated.files.find((f: string) => f !== 'models/index.ts'));
    expect(first.split('\n')[1]).toContain('REVIEW BEFORE USE');
    await project.typecheck();

    await project.ok(['export-models']);
    const state = JSON.parse(await project.read('.mtool/model_state.json'));
    expect(canonicalJson(state.databases.app.schema)).toBe(canonicalJson(ir));

    // check-db --out sql recreates the schema in an empty database.
    const ddl = await project.ok(['check-db', '--out', 'sql']);
    await empty.migration('app__0001_from_check_db.sql', ddl.stdout);
    await empty.ok(['migrate']);
    const again = await empty.ok(['check-db', '--out', 'json']);
    expect(again.stdout).toBe(live.stdout);

    // The model state survives losing the file.
    const bytes = await project.read('.mtool/model_state.json');
    await rm(join(project.dir, '.mtool', 'model_state.json'));
    await project.ok(['recover-model-state']);
    expect(await project.read('.mtool/model_state.json')).toBe(bytes);
  } finally {
    await project.dispose();
    await empty.dispose();
  }
}
