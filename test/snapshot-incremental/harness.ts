/**
 * Runs a batch of migrations through `engine.migrate` with the real snapshot hook, and after EACH
 * migration (while the lock is still held, on the same connection) introspects the whole database.
 * The hook writes its snapshots later (windowed reads, a background queue, only once committed):
 * after the batch each snapshot file is compared with the introspection taken right after its
 * migration. Hook errors become warnings inside the engine, so comparisons are collected here and
 * asserted by the tests.
 */
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { loadConfig, selectDatabases } from '../../src/main/config/load-config.js';
import * as engine from '../../src/main/engine/engine.js';
import type { EngineHooks } from '../../src/main/engine/hooks.js';
import { snapshotHooks, type SnapshotHookOptions } from '../../src/main/engine/snapshot-hook.js';
import { configureLogging, logger } from '../../src/main/log.js';
import { trackingTables } from '../../src/main/models/live-schema.js';
import { readSnapshot } from '../../src/main/snapshot/index.js';
import { canonicalJson } from '../../src/schema/canonical-json.js';
import type { SchemaIR } from '../../src/schema/ir.js';
import { tempProject } from '../support/temp-project.js';

/** One migration's comparison: its snapshot against a full introspection right after it. */
export interface Step {
  filename: string;
  /** How the hook found its schema: `full`, `partial` or `none` (from its DEBUG line). */
  introspection: string | undefined;
  snapshot: string;
  live: string;
}

const lines: string[] = [];

/** Capture mtool's JSON log lines (DEBUG and up) for the enclosing file; the lines so far, as records. */
export function captureLogs(): { logged: () => Record<string, unknown>[]; clear: () => void } {
  beforeEach(() => {
    lines.length = 0;
    configureLogging({ level: 'debug', json: true, sink: { write: (line) => void lines.push(line) } });
  });
  afterEach(() => configureLogging({ level: 'info', json: false, sink: undefined }));
  return { logged: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>), clear: () => void (lines.length = 0) };
}

/** A schema as the snapshot files and the comparisons see it: canonical JSON of its objects. */
export const body = (ir: Pick<SchemaIR, 'tables' | 'enums' | 'indexes' | 'constraints'>) => canonicalJson({ tables: ir.tables, enums: ir.enums, indexes: ir.indexes, constraints: ir.constraints });

export interface BatchRun {
  /** One per migration that ran to its end (got its after-migration hook), in order. */
  steps: Step[];
  dir: string;
  warnings: string[];
  /** The batch's INFO line (count, bytes, reads ...). */
  summary: Record<string, unknown> | undefined;
  /** What `migrate` threw (a failing migration). */
  error: unknown;
  /** With `runs`: each run's length, as the hook answered (the engine sent that many together). */
  runs: number[];
}

/** The snapshot thread's entry in tsc's output (`npm test` builds first): the sources have no runnable worker file. */
export const BUILT_SNAPSHOT_WORKER = new URL('../../dist/main/snapshot/snapshot-worker.js', import.meta.url);

/**
 * A project with database `app` at `url` and `migrations` (upgrade SQL of each, in order) as
 * `app__0001_m1.sql` ...; `prepare` runs on its folder before the config is loaded.
 */
export async function batchProject(type: string, url: string, migrations: readonly string[], prepare?: (dir: string) => Promise<void>) {
  const files: Record<string, string> = {
    'mtool.config.ts': `import { databaseConfig } from 'mtool';\ndatabaseConfig({ databaseName: 'app', default: true, databaseType: '${type}', databaseUrl: ${JSON.stringify(url)} });\n`,
  };
  migrations.forEach((sql, i) => {
    files[`migrations/app/app__${String(i + 1).padStart(4, '0')}_m${i + 1}.sql`] = `-- upgrade\n${sql}\n`;
  });
  const dir = await tempProject(files, 'mtool-snapshot-incremental-');
  await prepare?.(dir);
  const config = await loadConfig({ cwd: dir, env: {} });
  return { dir, config, entry: selectDatabases(config, {})[0]! };
}

/**
 * Apply `migrations` (upgrade SQL of each, in order) as `app__0001_m1.sql` ... to the database at
 * `url`, recording the live schema after every migration (unless `check: false`). With `runs`,
 * the hook's `runLength` lets migrations go to the server together where the executor sends them
 * so (not SQLite), as `mtool migrate` runs them: the live schema cannot be read between them
 * then, so `live` is empty (compare with a one-by-one batch's).
 */
export async function runBatch(
  type: string,
  url: string,
  migrations: readonly string[],
  options: { check?: boolean; runs?: boolean; prepare?: (dir: string) => Promise<void>; hook?: Pick<SnapshotHookOptions, 'threadMinTables' | 'threadWorkerUrl'> } = {},
): Promise<BatchRun> {
  const { dir, config, entry } = await batchProject(type, url, migrations, options.prepare);
  const inner = snapshotHooks({ root: dir, databases: config.databases, log: logger, threadMinTables: Number.POSITIVE_INFINITY, ...options.hook });
  const ran: { id: string; filename: string; live: string }[] = [];
  const runs: number[] = [];
  const check = options.check !== false && !options.runs;
  const hooks: EngineHooks = {
    beforeVersionedMigration: (event) => inner.beforeVersionedMigration!(event),
    ...(options.runs
      ? {
          async runLength(event) {
            const length = await inner.runLength!(event);
            runs.push(length);
            return length;
          },
        }
      : {}),
    async afterVersionedMigration(event) {
      await inner.afterVersionedMigration!(event);
      const live = check ? body(await event.dialect.introspect(event.conn, { exclude: trackingTables(entry) })) : '';
      ran.push({ id: `app__${event.file.version}_${event.file.description}`, filename: event.file.filename, live });
    },
    afterCommit: (event) => inner.afterCommit!(event),
    afterBatch: (event) => inner.afterBatch!(event),
  };
  let error: unknown;
  try {
    await engine.migrate(entry, { root: dir, log: logger }, { hooks });
  } catch (e) {
    error = e;
  }
  const logged = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  const steps: Step[] = [];
  for (const { id, filename, live } of ran) {
    const path = join(dir, '.mtool', 'schemas', `${id}.schema.json`);
    const written = logged.find((l) => String(l.message).startsWith('snapshot written in') && l.file === path);
    const snap = await readSnapshot(path, { log: { warn: () => undefined } });
    steps.push({ filename, introspection: written?.introspection as string | undefined, snapshot: snap ? body(snap) : '(no snapshot)', live });
  }
  const warnings = logged.filter((l) => l.level === 'WARNING' && /snapshot|hook/i.test(String(l.message))).map((l) => [l.message, l.exception].filter(Boolean).join(': '));
  const summary = logged.find((l) => l.level === 'INFO' && / snapshots? written \(/.test(String(l.message)));
  return { steps, dir, warnings, summary, error, runs };
}
