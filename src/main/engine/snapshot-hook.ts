import { performance } from 'node:perf_hooks';
import type { Connection } from '../../dialects/types.js';
import type { MigrationFile } from '../../parser/migration-file.js';
import type { DatabaseEntry } from '../config/types.js';
import type { Logger } from '../log.js';
import { formatMs, type EngineHooks } from './executor.js';

export interface SnapshotHookOptions {
  /** Project root (`.mtool/schemas` lives under it). */
  root: string;
  /** The configured databases; the hook finds the one an event names. */
  databases: readonly DatabaseEntry[];
  log: Logger;
}

/**
 * `migrate`'s schema snapshots (spec "Schema snapshot"): after each applied versioned migration
 * the live schema is introspected (tracking tables left out) and written as
 * `.mtool/schemas/<db>__<NNNN>_<desc>.schema.json`; with `--defer-snapshots` only once, for the
 * last migration of the batch. The engine never calls these hooks on `--dry-run` or for
 * repeatable migrations, and turns a thrown error into a warning (the migration stays applied).
 * Logs `snapshot written in N ms` at INFO.
 * @example await engine.migrate(entry, ctx, { hooks: snapshotHooks({ root, databases: config.databases, log }) })
 */
export function snapshotHooks(options: SnapshotHookOptions): EngineHooks {
  const write = async (database: string, conn: Connection, file: MigrationFile): Promise<void> => {
    const entry = options.databases.find((d) => d.name === database);
    if (!entry || file.version === undefined) return;
    const started = performance.now();
    // Loaded here, not at the top: a migrate that applies nothing must not pay for introspection.
    const [{ schemaIo }, { trackingTables }, { writeSnapshot }] = await Promise.all([
      import('../../schema/schema-io.js'),
      import('../models/live-schema.js'),
      import('../snapshot/snapshot-store.js'),
    ]);
    const schema = await (await schemaIo(entry.type)).introspect(conn, { exclude: trackingTables(entry) });
    const { path } = await writeSnapshot(options.root, { migrationId: `${entry.name}__${file.version}_${file.description}`, databaseName: entry.name, databaseType: entry.type, schema });
    options.log.child({ db_name: entry.name, db_type: entry.type }).info(`snapshot written in ${formatMs(performance.now() - started)}`, { file: path });
  };
  return {
    async afterVersionedMigration(event) {
      await write(event.database, event.conn, event.file);
    },
    async afterBatch(event) {
      const last = event.applied[event.applied.length - 1];
      if (event.deferred && last) await write(event.database, event.conn, last.file);
    },
  };
}
