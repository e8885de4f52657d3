import { performance } from 'node:perf_hooks';
import type { Connection, Dialect } from '../../dialects/types.js';
import type { MigrationFile } from '../../parser/migration-file.js';
import type { DatabaseEntry } from '../config/types.js';
import type { Logger } from '../log.js';
import type { SchemaReader } from '../snapshot/schema-window.js';
import { formatMs } from './format-ms.js';

/**
 * The modules `migrate`'s snapshots need, loaded on a batch's first migration (not at the top of
 * the hooks: a `migrate` that applies nothing must not pay for them).
 */
export const loadSnapshotModules = async () => {
  const [{ trackingTables }, { SnapshotWriter }, { snapshotDir }, { SnapshotQueue }, { ThreadedSnapshotQueue }, { SchemaWindow }, { SchemaFollower }, targets] = await Promise.all([
    import('../models/live-schema.js'),
    import('../snapshot/snapshot-writer.js'),
    import('../snapshot/snapshot-store.js'),
    import('../snapshot/snapshot-queue.js'),
    import('../snapshot/snapshot-thread.js'),
    import('../snapshot/schema-window.js'),
    import('../snapshot/schema-follower.js'),
    import('./ddl-targets.js'),
  ]);
  return { trackingTables, SnapshotWriter, snapshotDir, SnapshotQueue, ThreadedSnapshotQueue, SchemaWindow, SchemaFollower, targets };
};

export type SnapshotModules = Awaited<ReturnType<typeof loadSnapshotModules>>;

/**
 * How the snapshots read one connection's schema (the tracking tables left out) and its
 * {@link DatabaseCode}: for a {@link SchemaWindow}, a deferred snapshot's read ahead and a
 * {@link SchemaFollower}.
 */
export function schemaReader(dialect: Dialect, conn: Connection, modules: SnapshotModules, entry: DatabaseEntry, log: Logger): SchemaReader {
  const { targets } = modules;
  const syntax = targets.ddlSyntax(dialect);
  const exclude = modules.trackingTables(entry);
  return {
    read: async (tables) => {
      const started = performance.now();
      const schema = await dialect.introspect(conn, tables ? { exclude, tables } : { exclude });
      log.debug(`schema read for snapshots in ${formatMs(performance.now() - started)}`, { asked: tables ? tables.length : 'all', tables: Object.keys(schema.tables).length });
      return schema;
    },
    code: async () => (syntax.codeCheck ? targets.databaseCode((await conn.query(syntax.codeCheck)).rows[0]) : targets.NO_CODE),
  };
}

/** A snapshot's migration id: `<db>__<version>_<description>`. */
export const migrationId = (entry: DatabaseEntry, file: MigrationFile) => `${entry.name}__${file.version}_${file.description}`;

/** Milliseconds to one decimal, for log fields. */
export const round = (ms: number) => Math.round(ms * 10) / 10;
