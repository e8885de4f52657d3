import { readFileSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { relative } from 'node:path';
import { performance } from 'node:perf_hooks';
import { getDialect } from '../../dialects/index.js';
import type { MigrationFile } from '../../parser/migration-file.js';
import type { DatabaseEntry } from '../config/types.js';
import type { Logger } from '../log.js';
import { appliedBy, withLock, withSession, type DatabaseSession, type EngineRunContext } from './database-session.js';
import { explainChecksumDrift } from './checksum-drift.js';
import { Executor } from './executor.js';
import { checkStatementSizes } from './statement-size.js';
import { holderAdvice, holderRunning } from './holder-process.js';
import { lookAtHolderSession } from './holder-session.js';
import { BatchHooks } from './batch-hooks.js';
import type { AppliedMigration, EngineHooks } from './hooks.js';
import { ensureParsed, loadMigrations, parseAhead } from './load-migrations.js';
import { checkMigrateTarget, checkRollbackTarget, currentVersion, fileHasVersion, missingAppliedWarning, planMigrate, planRollback, statusEntries, verifyApplied, type MigratePlan, type RollbackPlanOptions } from './planner.js';
import { noteCompleted } from './partial-run.js';
import { TrackingStore } from './tracking-store.js';
import { tracedConnection } from './traced-connection.js';
import type { HistoryResult, LockStatusResult, MigrationOutcome, MigrationRecord, RunResult, StatusResult, TrackedMigration, UnlockResult } from './types.js';

/**
 * The migration engine's entry points, one database at a time. Commands call these and render
 * the returned result objects; nothing here prints.
 */

export interface EngineContext {
  /** Project root (relative SQLite paths resolve against it). */
  root: string;
  log: Logger;
  /** Ctrl-C / SIGTERM handling; absent in library use. */
  run?: EngineRunContext;
}

export interface MigrateOptions {
  count?: number;
  toVersion?: string;
  /** With `toVersion`: record without executing. */
  baseline?: boolean;
  /** Print the SQL that would run; never writes, creates a table or takes the lock. */
  dryRun?: boolean;
  deferSnapshots?: boolean;
  verbose?: boolean;
  perf?: boolean;
  hooks?: EngineHooks;
  /** Written to the lock row's `command` column. Default `migrate`. */
  commandLine?: string;
}

/** The database's migration files; a warning when its folder does not exist (a fresh project, or a `databaseName` that does not match the folder). */
async function readFiles(entry: DatabaseEntry, ctx: EngineContext): Promise<MigrationFile[]> {
  const files = await loadMigrations(entry.migrationsDir, { database: entry.name, dialect: getDialect(entry.type).splitDialect });
  if (files.length === 0 && !(await isDirectory(entry.migrationsDir))) {
    ctx.log.warn(`${relative(ctx.root, entry.migrationsDir) || entry.migrationsDir} does not exist: no migration files for database '${entry.name}'; \`mtool init\` creates the folder`);
  }
  return files;
}

/** How a changed applied file differs when only its line endings, BOM or final line break do; read only on that error's path. */
function explainDrift(file: MigrationFile, appliedChecksum: string): string | undefined {
  try {
    return explainChecksumDrift(readFileSync(file.path), appliedChecksum);
  } catch {
    return undefined;
  }
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Open the connection and run `fn` while the migration folder is read: `fn` gets the files as a
 * promise and awaits it where it first needs them (planning), so reading the files overlaps the
 * connection's opening, the tracking-table check, the lock and the tracking read, which mostly
 * wait for the database (the folder is read in slices that give their answers a turn).
 * A problem with the files wins over one with the connection or the lock, as when they were read
 * first; the lock, if taken, is released before it is thrown.
 */
async function withFilesAndSession<T>(
  entry: DatabaseEntry,
  ctx: EngineContext,
  fn: (session: DatabaseSession, files: Promise<MigrationFile[]>) => Promise<T>,
  options: { readOnly?: boolean; ahead?: { stopped: boolean } } = {},
): Promise<T> {
  const reading = readFiles(entry, ctx);
  reading.catch(() => undefined); // awaited below on every path
  const ahead = options.ahead;
  // The files parse while the connection opens and the database answers, until `fn` stops it
  // (or the session ends): see parseAhead.
  if (ahead) void reading.then((files) => parseAhead(files, ahead), () => undefined);
  try {
    return await withSession(entry, ctx.root, ctx.log, (session) => fn(session, reading), options);
  } catch (error) {
    await reading;
    throw error;
  } finally {
    if (ahead) ahead.stopped = true;
  }
}

/**
 * How long `migrate` keeps adding migrations to one transaction where a single writer locks the
 * whole database anyway (SQLite): each commit costs several fsyncs, so grouping makes a long batch
 * several times faster while each migration still rolls back alone (savepoints). A crash loses at
 * most this much work, and loses it whole.
 */
const GROUP_WINDOW_MS = 1000;

/** How many pending migrations the per-migration hooks see when they say how many may run together. */
const RUN_LOOKAHEAD = 128;

function executor(
  session: DatabaseSession,
  ctx: EngineContext,
  options: { perf?: boolean; verbose?: boolean },
  onCommit?: (committed: readonly AppliedMigration[]) => Promise<void>,
): Executor {
  const caps = session.dialect.capabilities;
  const group = onCommit !== undefined && caps.singleWriter && caps.transactionalDdl && caps.savepoints;
  return new Executor(session.conn, session.dialect, session.store, session.log, session.entry.name, {
    perf: options.perf ?? false,
    verbose: options.verbose ?? false,
    signal: ctx.run?.signal,
    appliedBy: appliedBy(),
    ...(group ? { groupWindowMs: GROUP_WINDOW_MS } : {}),
    ...(onCommit ? { onCommit } : {}),
  });
}

/**
 * `migrate` on one database: pending versioned migrations in version order, then due repeatables.
 * @throws ChecksumMismatchError, LockError, MigrationFailedError, MtoolError.
 * @example await migrate(entry, { root, log }, { toVersion: '0003' })
 */
export async function migrate(entry: DatabaseEntry, ctx: EngineContext, options: MigrateOptions = {}): Promise<RunResult> {
  const started = performance.now();
  // Parsing ahead stops once the plan says which files will run (ensureParsed does the rest).
  const ahead = { stopped: false };
  return withFilesAndSession(entry, ctx, async (session, reading) => {
    if (options.dryRun) return dryRun(session, ctx, await reading, options, started);
    // Read and planned once, under the lock: first to tell withLock whether anything will run.
    let planned: Promise<{ records: TrackedMigration[]; plan: MigratePlan }> | undefined;
    const planOnce = () =>
      (planned ??= Promise.all([session.store.tracked(), reading])
        .then(([records, files]) => {
          verifyApplied(files, records, entry.name, explainDrift);
          const missing = missingAppliedWarning(files, records, entry.name);
          if (missing !== undefined) session.log.warn(missing);
          return { records, plan: planMigrate(files, records, entry.name, options) };
        })
        .finally(() => (ahead.stopped = true)));
    const readOnly = async () => {
      const { plan } = await planOnce();
      return plan.versioned.length === 0 && plan.repeatables.length === 0;
    };
    if (options.toVersion !== undefined) await checkMigrateTargetEarly(session, reading, options.toVersion);
    return withLock(session, options.commandLine ?? 'migrate', ctx.run, async () => {
      const { records, plan } = await planOnce();
      const outcomes: MigrationOutcome[] = [];
      let applied: MigrationRecord[] = [];
      try {
        // Nothing to run (a no-op): no executor, hooks or who-applied-it lookup.
        if (plan.versioned.length > 0 || plan.repeatables.length > 0) applied = await runPlan(session, ctx, options, plan, outcomes);
      } catch (error) {
        await noteMigrated(error, session, records, outcomes, started);
        throw error;
      }
      const after = [...records, ...applied, ...(plan.baseline ? plan.versioned.map((f) => ({ version: f.version ?? null })) : [])];
      return {
        database: entry.name,
        databaseType: entry.type,
        command: 'migrate',
        outcomes,
        currentVersion: currentVersion(after),
        durationMs: performance.now() - started,
      };
    }, { readOnly });
  }, options.dryRun === true ? { readOnly: true } : { ahead });
}

/**
 * `migrate --to-version` names no migration: said before the lock is taken, so a typo neither
 * waits for nor holds up another run. The files settle it unless none has the version; then only
 * the tracking table can (an applied migration whose file is gone). Planning checks it again
 * under the lock.
 */
async function checkMigrateTargetEarly(session: DatabaseSession, reading: Promise<MigrationFile[]>, target: string): Promise<void> {
  const files = await reading;
  if (fileHasVersion(files, target)) return;
  checkMigrateTarget(files, await trackedIfAny(session), session.entry.name, target);
}

/** The tracking table's rows, none when it does not exist yet (read-only: creates nothing). */
async function trackedIfAny(session: DatabaseSession): Promise<TrackedMigration[]> {
  return (await session.store.tableExists(session.entry.migrationTable)) ? session.store.tracked() : [];
}

/**
 * After a failed `migrate`: keep beside the error what this run applied before it, as the
 * tracking table now says (a migration the executor reported is counted only if its record is
 * there: a failure may have undone a group of them), and the version the database is left at;
 * also when nothing was applied (the first migration failed). Nothing when the table cannot be
 * read from any connection.
 */
async function noteMigrated(error: unknown, session: DatabaseSession, before: readonly TrackedMigration[], outcomes: readonly MigrationOutcome[], started: number): Promise<void> {
  const now = await trackedAfterFailure(session);
  if (!now) return;
  const had = new Set(before.map((r) => r.filename));
  const has = new Set(now.map((r) => r.filename));
  const done = outcomes.filter((o) => has.has(o.filename) && (o.type !== 'versioned' || !had.has(o.filename)));
  noteCompleted(error, {
    database: session.entry.name,
    databaseType: session.entry.type,
    command: 'migrate',
    outcomes: done,
    currentVersion: currentVersion(now),
    durationMs: performance.now() - started,
  });
}

/**
 * The tracking table after a run failed: read on the run's session, or, when that session cannot
 * answer, on a new connection. The run's session is often the casualty of the failure: lost
 * (`pg_terminate_backend`, `KILL CONNECTION`, the network), still busy on the server with the
 * statement whose answer timed out (ClickHouse refuses a second query in a session while one
 * runs), or left unusable by the failed statement (chdb). Undefined when neither can read it.
 */
async function trackedAfterFailure(session: DatabaseSession): Promise<TrackedMigration[] | undefined> {
  try {
    return await session.store.tracked();
  } catch (error) {
    session.log.debug('the tracking table could not be read on the run\'s session after the failure; reading it on a new connection', { error });
  }
  try {
    // Outside a PostgreSQL pool whose only session the lost one may still count as.
    const other = tracedConnection(await session.dialect.connect({ ...session.connectOptions, second: 'urgent' }), session.log);
    try {
      return await new TrackingStore(other, session.dialect, session.store.tracking, session.entry.migrationTable).tracked();
    } finally {
      await other.close().catch(() => undefined);
    }
  } catch (error) {
    session.log.warn(`could not read the tracking table after the failure, so what this run completed is not shown: see \`mtool status --database ${session.entry.name}\``, { error });
    return undefined;
  }
}

/**
 * Run a `migrate` plan under the lock: versioned migrations (or their baseline), the batch hooks,
 * then the due repeatables. Each outcome goes to `outcomes` as it comes, also before a failure.
 * Returns the records of the versioned migrations applied.
 */
async function runPlan(session: DatabaseSession, ctx: EngineContext, options: MigrateOptions, plan: MigratePlan, outcomes: MigrationOutcome[]): Promise<MigrationRecord[]> {
  const files = [...plan.versioned, ...plan.repeatables.map((r) => r.file)];
  ensureParsed(files);
  if (!plan.baseline) await checkStatementSizes(session.conn, session.entry.type, session.entry.name, files, (f) => f.upgrade);
  const hooks = new BatchHooks(session, options.hooks, options.deferSnapshots ?? false);
  const exec = executor(session, ctx, options, hooks.committed);
  if (plan.baseline) {
    await exec.baselineAll(plan.versioned, (outcome) => outcomes.push(outcome));
    return [];
  }
  try {
    if (hooks.perMigration) {
      await applyWithHooks(exec, hooks, plan.versioned, outcomes);
    } else {
      // Nothing runs between two migrations: the executor may send several in one message. The
      // hooks may start something before the last few (the deferred snapshot's read).
      const onApplied = ({ outcome }: { outcome: MigrationOutcome }) => outcomes.push(outcome);
      const tail = hooks.tailStart(plan.versioned, exec.commitsEach);
      if (tail === undefined) {
        await exec.applyAll(plan.versioned, onApplied);
      } else {
        await exec.applyAll(plan.versioned.slice(0, tail), onApplied);
        await hooks.beforeTail(plan.versioned.slice(tail));
        await exec.applyAll(plan.versioned.slice(tail), onApplied);
      }
    }
    // Before the repeatables: a snapshot is the schema the versioned migrations made (spec:
    // repeatable migrations write no snapshot), deferred or not.
    await exec.finish();
  } catch (error) {
    await hooks.end(true);
    throw error;
  }
  await hooks.end(false);
  for (const step of plan.repeatables) outcomes.push((await exec.apply(step.file, step.existing)).outcome);
  await exec.finish();
  return hooks.applied.map((a) => a.record);
}

/**
 * Versioned migrations with a hook before and after each: where the executor sends migrations
 * together, in runs as long as the hooks allow (EngineHooks.runLength), their after-hooks at the
 * run's end (also for those before a failure); else one at a time.
 */
async function applyWithHooks(exec: Executor, hooks: BatchHooks, versioned: readonly MigrationFile[], outcomes: MigrationOutcome[]): Promise<void> {
  for (let i = 0; i < versioned.length; ) {
    const remaining = versioned.length - i;
    const run = exec.sendsTogether ? await hooks.runLength(versioned.slice(i, i + RUN_LOOKAHEAD), remaining) : undefined;
    if (run === undefined) {
      const file = versioned[i++]!;
      await hooks.before(file, remaining);
      const { outcome, record } = await exec.apply(file);
      outcomes.push(outcome);
      await hooks.after(file, record);
      await hooks.flushCommits();
      continue;
    }
    const files = versioned.slice(i, i + run);
    i += run;
    const records: MigrationRecord[] = [];
    try {
      await exec.applyAll(files, ({ outcome, record }) => {
        outcomes.push(outcome);
        records.push(record);
      });
    } finally {
      for (const [k, record] of records.entries()) await hooks.after(files[k]!, record);
      await hooks.flushCommits();
    }
  }
}

async function dryRun(session: DatabaseSession, ctx: EngineContext, files: MigrationFile[], options: MigrateOptions, started: number): Promise<RunResult> {
  const { entry } = session;
  // Read-only: the tracking table is read only when it already exists; nothing is created or locked.
  const records = (await session.store.tableExists(entry.migrationTable)) ? await session.store.tracked() : [];
  verifyApplied(files, records, entry.name, explainDrift);
  const plan = planMigrate(files, records, entry.name, options);
  const steps = [...plan.versioned, ...plan.repeatables.map((r) => r.file)];
  ensureParsed(steps);
  // Which files the run would take out of a transaction, as it decides that (it runs nothing).
  const exec = plan.baseline ? undefined : executor(session, ctx, options);
  const outside: (string | undefined)[] = [];
  for (const file of steps) outside.push(await exec?.upgradeOutsideTransaction(file));
  return {
    database: entry.name,
    databaseType: entry.type,
    command: 'migrate',
    outcomes: steps.map((f, i) => ({
      filename: f.filename,
      version: f.version ?? null,
      type: f.kind,
      action: plan.baseline ? 'would_baseline' : 'would_apply',
      durationMs: 0,
      ...(outside[i] === undefined ? {} : { outsideTransaction: true }),
    })),
    dryRunSql: steps.map((f, i) => ({
      filename: f.filename,
      statements: plan.baseline ? [] : f.upgrade.map((s) => s.text),
      ...(outside[i] === undefined ? {} : { outsideTransaction: outside[i] }),
    })),
    currentVersion: currentVersion(records),
    durationMs: performance.now() - started,
  };
}

export interface RollbackOptions {
  /** Last N applied versioned migrations (default 1). */
  count?: number;
  /** Every applied versioned migration above this version. */
  toVersion?: string;
  verbose?: boolean;
  perf?: boolean;
  /** `downgrade`: fail unless `toVersion` is applied. */
  command?: 'rollback' | 'downgrade';
  commandLine?: string;
}

/**
 * `rollback` / `downgrade` on one database: run `-- rollback` sections newest first under the
 * lock. Every migration to revert is checked before the first one runs.
 */
export async function rollback(entry: DatabaseEntry, ctx: EngineContext, options: RollbackOptions = {}): Promise<RunResult> {
  const started = performance.now();
  const command = options.command ?? 'rollback';
  return withFilesAndSession(entry, ctx, async (session, reading) => {
    const tracking = await session.store.tableExists(entry.migrationTable);
    // A target that is not applied is refused before the lock (and checked again under it).
    if (options.toVersion !== undefined) checkRollbackTarget(tracking ? await session.store.tracked() : [], entry.name, options.toVersion, command);
    // A database without mtool's tracking table has nothing to roll back: said without creating
    // the tracking and lock tables in it (a mistyped --database must not leave them behind).
    if (!tracking) {
      await reading; // a broken migrations folder is still reported
      return { database: entry.name, databaseType: entry.type, command, outcomes: [], currentVersion: currentVersion([]), durationMs: performance.now() - started };
    }
    return withLock(session, options.commandLine ?? command, ctx.run, async () => {
      const [records, files] = await Promise.all([session.store.records(), reading]);
      verifyApplied(files, records, entry.name, explainDrift);
      const planOptions: RollbackPlanOptions = { count: options.count, toVersion: options.toVersion, command };
      const steps = planRollback(files, records, entry.name, planOptions);
      await checkStatementSizes(session.conn, entry.type, entry.name, steps.map((s) => s.file), (f) => f.rollback ?? []);
      const exec = executor(session, ctx, options);
      const outcomes: MigrationOutcome[] = [];
      const removed = new Set<string>();
      const result = (left: readonly { version: string | null }[]): RunResult => ({
        database: entry.name,
        databaseType: entry.type,
        command,
        outcomes,
        currentVersion: currentVersion(left),
        durationMs: performance.now() - started,
      });
      try {
        for (const step of steps) {
          outcomes.push(await exec.revert(step));
          removed.add(step.record.filename);
        }
      } catch (error) {
        // Each migration is reverted and its record removed before the next one starts, so the
        // outcomes are those before the failure. The version left is the tracking table's: after
        // a lost connection the server may have finished the interrupted one, record and all.
        const left = (await trackedAfterFailure(session)) ?? records.filter((r) => !removed.has(r.filename));
        noteCompleted(error, result(left));
        throw error;
      }
      return result(records.filter((r) => !removed.has(r.filename)));
    });
  }, { readOnly: true }); // read-only until the lock: no SQLite file is created where there is none
}

async function readRecords(session: DatabaseSession): Promise<MigrationRecord[]> {
  return (await session.store.tableExists(session.entry.migrationTable)) ? session.store.records() : [];
}

/**
 * `status` on one database: applied versus pending, read-only (creates nothing).
 * @throws ChecksumMismatchError when an applied versioned file changed (spec: blocks status).
 */
export async function status(entry: DatabaseEntry, ctx: EngineContext): Promise<StatusResult> {
  return withFilesAndSession(entry, ctx, async (session, reading) => {
    const [records, files] = await Promise.all([readRecords(session), reading]);
    verifyApplied(files, records, entry.name, explainDrift);
    const entries = statusEntries(files, records);
    // Applied files were parsed when they ran (and their checksum still matches); validate the rest.
    const pending = new Set(entries.filter((e) => e.state === 'pending' || e.state === 'changed' || e.state === 'blocked').map((e) => e.filename));
    ensureParsed(files.filter((f) => pending.has(f.filename)));
    const holder = await session.lock.current();
    return {
      database: entry.name,
      databaseType: entry.type,
      currentVersion: currentVersion(records),
      appliedMigrations: records.length,
      // A blocked file is not applied either: pending, with its state saying why it cannot run.
      pendingMigrations: entries.filter((e) => e.state === 'pending' || e.state === 'changed' || e.state === 'blocked').length,
      lockActive: holder !== null,
      entries,
    };
  }, { readOnly: true });
}

/** `history` on one database: applied migrations in the order they were applied. */
export async function history(entry: DatabaseEntry, ctx: EngineContext): Promise<HistoryResult> {
  return withSession(entry, ctx.root, ctx.log, async (session) => {
    const records = await readRecords(session);
    // Within one timestamp (ClickHouse keeps whole seconds), in the order a migrate runs them:
    // repeatables by description (ROC__01_views before RA__02_grants), not by file name.
    // Positions read once: indexOf in the comparator scanned the records at every comparison.
    const at = new Map(records.map((record, i) => [record, i]));
    const runOrder = (a: MigrationRecord, b: MigrationRecord): number =>
      a.version === null && b.version === null && a.description !== b.description ? (a.description < b.description ? -1 : 1) : at.get(a)! - at.get(b)!;
    const byTime = [...records].sort((a, b) => (a.appliedAt < b.appliedAt ? -1 : a.appliedAt > b.appliedAt ? 1 : 0) || runOrder(a, b));
    return { database: entry.name, databaseType: entry.type, records: byTime };
  }, { readOnly: true });
}

/** `lock-status` on one database. */
export async function lockStatus(entry: DatabaseEntry, ctx: EngineContext): Promise<LockStatusResult> {
  return withSession(entry, ctx.root, ctx.log, async (session) => {
    const holder = await session.lock.current();
    // Its server session, asked from this one: a killed run's session goes on with what it sent.
    const serverSession = holder ? await lookAtHolderSession(session.conn, session.dialect, holder) : undefined;
    return {
      database: entry.name,
      databaseType: entry.type,
      active: holder !== null,
      holder,
      heldForMs: holder ? Math.max(0, Date.now() - Date.parse(holder.lockedAt)) : null,
      holderRunning: holder ? (holderRunning(holder) ?? null) : null,
      holderSessionRunning: serverSession?.running ?? null,
      advice: holder ? holderAdvice(holder, entry.name, serverSession) : null,
    };
  }, { readOnly: true });
}

/** `unlock` on one database: remove the lock row whoever holds it. */
export async function unlock(entry: DatabaseEntry, ctx: EngineContext): Promise<UnlockResult> {
  return withSession(entry, ctx.root, ctx.log, async (session) => {
    const released = await session.lock.forceRelease((warning) => session.log.warn(warning));
    if (released) session.log.warn(`migration lock released (was held by host '${released.host}', pid ${released.pid}, command '${released.command}')`);
    return { database: entry.name, databaseType: entry.type, released };
  }, { readOnly: true }); // a SQLite database without its file holds no lock: the file is not created
}
