/**
 * Runs a batch of migrations through `engine.migrate` with the real snapshot hook, and after EACH
 * migration (while the lock is still held, on the same connection) introspects the whole database
 * and compares it with the snapshot the hook just wrote. Hook errors become warnings inside the
 * engine, so comparisons are collected here and asserted by the tests.
 */
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { loadConfig, selectDatabases } from '../../src/main/config/load-config.js';
import * as engine from '../../src/main/engine/engine.js';
import type { EngineHooks } from '../../src/main/engine/hooks.js';
import { snapshotHooks } from '../../src/main/engine/snapshot-hook.js';
import { configureLogging, logger } from '../../src/main/log.js';
import { trackingTables } from '../../src/main/models/live-schema.js';
import { readSnapshot } from '../../src/main/snapshot/index.js';
import { canonicalJson } from '../../src/schema/canonical-json.js';
import type { SchemaIR } from '../../src/schema/ir.js';
import { tempProject } from '../support/temp-project.js';

/** One migration's comparison: the snapshot against a full introspection right after it. */
export interface Step {
  filename: string;
  /** How the hook read the schema: `full`, `partial` or `none` (from its INFO line). */
  introspection: string | undefined;
  snapshot: string;
  live: string;
}

const lines: string[] = [];

/** Capture mtool's JSON log lines for the enclosing file. */
export function captureLogs(): void {
  beforeEach(() => {
    lines.length = 0;
    configureLogging({ level: 'debug', json: true, sink: { write: (line) => void lines.push(line) } });
  });
  afterEach(() => configureLogging({ level: 'info', json: false, sink: undefined }));
}

const body = (ir: SchemaIR) => canonicalJson({ tables: ir.tables, enums: ir.enums, indexes: ir.indexes, constraints: ir.constraints });

/**
 * Apply `migrations` (upgrade SQL of each, in order) as `app__0001_m1.sql` ... to the database at
 * `url`, checking every snapshot against the live schema.
 */
export async function runBatch(type: string, url: string, migrations: readonly string[], options: { check?: boolean } = {}): Promise<{ steps: Step[]; dir: string; warnings: string[] }> {
  const files: Record<string, string> = {
    'mtool.config.ts': `import { databaseConfig } from 'mtool';\ndatabaseConfig({ databaseName: 'app', default: true, databaseType: '${type}', databaseUrl: ${JSON.stringify(url)} });\n`,
  };
  migrations.forEach((sql, i) => {
    files[`migrations/app/app__${String(i + 1).padStart(4, '0')}_m${i + 1}.sql`] = `-- upgrade\n${sql}\n`;
  });
  const dir = await tempProject(files, 'mtool-snapshot-incremental-');
  const config = await loadConfig({ cwd: dir, env: {} });
  const entry = selectDatabases(config, {})[0]!;
  const inner = snapshotHooks({ root: dir, databases: config.databases, log: logger });
  const steps: Step[] = [];
  const hooks: EngineHooks = {
    async afterVersionedMigration(event) {
      const before = lines.length;
      await inner.afterVersionedMigration!(event);
      const written = lines.slice(before).map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => String(l.message).startsWith('snapshot written in'));
      const snap = await readSnapshot(join(dir, '.mtool', 'schemas', `app__${event.file.version}_${event.file.description}.schema.json`));
      const live = options.check === false ? '' : body(await event.dialect.introspect(event.conn, { exclude: trackingTables(entry) }));
      steps.push({ filename: event.file.filename, introspection: written?.introspection as string | undefined, snapshot: snap ? body(snap) : '(no snapshot)', live });
    },
    afterBatch: (event) => inner.afterBatch!(event),
  };
  await engine.migrate(entry, { root: dir, log: logger }, { hooks });
  const warnings = lines.map((l) => JSON.parse(l) as { level: string; message: string }).filter((l) => l.level === 'WARNING' && /snapshot|hook/i.test(l.message)).map((l) => l.message);
  return { steps, dir, warnings };
}
