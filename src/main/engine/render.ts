import { isConnectionError, isMtoolError } from '../../errors.js';
import type { DatabaseEntry } from '../config/types.js';
import { formatTable } from '../output.js';
import { formatMs } from './format-ms.js';
import { describeHolder, formatDuration } from './migration-lock.js';
import { completedBefore } from './partial-run.js';
import { errorMessage, summaryLine, type DatabaseRun } from './run-many.js';
import type { HistoryResult, LockStatusResult, MigrationOutcome, MigrationRecord, RunResult, StatusResult, UnlockResult } from './types.js';

/**
 * Text and JSON views of engine results. JSON keeps the spec's snake_case field names (the
 * status fields match the web integration's status response).
 */

const label = (entry: DatabaseEntry): string => `${entry.name} (${entry.type})`;

/**
 * The line of a database that was skipped or failed. A failure on one database (no `--all`) has
 * none: the command fails with the error, which goes to stderr.
 */
function failureLines(run: DatabaseRun<unknown>, all: boolean): string {
  if (run.status === 'skipped') return `${label(run.entry)}: skipped: optional database unreachable (skipIfMissing): ${run.reason}`;
  if (run.status === 'failed' && all) return `${label(run.entry)}: FAILED: ${errorMessage(run.error)}`;
  return '';
}

function withSummary(runs: readonly DatabaseRun<unknown>[], blocks: string[], all: boolean): string {
  const shown = blocks.filter((b) => b !== '');
  return all ? [...shown, summaryLine(runs)].join('\n\n') : shown.join('\n\n');
}

/** The code of a failure (`MTOOL_LOCKED`, `MTOOL_CHECKSUM_MISMATCH`, ...), for JSON consumers. */
const codeOf = (error: unknown): string => (isMtoolError(error) ? error.code : 'MTOOL_INTERNAL');

const ACTION_WORD: Record<string, string> = {
  applied: 'applied',
  baselined: 'baselined',
  rolled_back: 'rolled back',
  would_apply: 'would apply',
  would_baseline: 'would baseline',
  would_roll_back: 'would roll back',
};

/** Text of migrate / rollback / downgrade results, one block per database. */
export function runText(runs: readonly DatabaseRun<RunResult>[], all: boolean): string {
  // A dry run prints SQL to pipe into a client: its other lines (failures, the summary) are comments.
  const dry = runs.some((run) => run.status === 'ok' && run.value.dryRunSql !== undefined);
  const note = (text: string) => (dry && text !== '' ? text.replace(/^/gm, '-- ') : text);
  const blocks = runs.map((run) => {
    if (run.status !== 'ok') {
      const done = run.status === 'failed' ? completedBefore(run.error) : undefined;
      return [note(failureLines(run, all)), ...(done ? [runLines(run.entry, done, true)] : [])].filter((b) => b !== '').join('\n');
    }
    return runLines(run.entry, run.value, false);
  });
  return all ? [...blocks.filter((b) => b !== ''), note(summaryLine(runs))].join('\n\n') : withSummary(runs, blocks, false);
}

/** A run's block: what it did on one database (`failed`: before the failure it stopped at). */
function runLines(entry: DatabaseEntry, r: RunResult, failed: boolean): string {
  const at = r.currentVersion === null ? 'no versioned migration applied' : `at version ${r.currentVersion}`;
  if (r.dryRunSql) {
    const head = `-- ${label(entry)}: dry run, ${r.outcomes.length} migration${r.outcomes.length === 1 ? '' : 's'} ${r.outcomes.some((o) => o.action === 'would_baseline') ? 'would be baselined' : 'would be applied'}; nothing was written (${at})`;
    const sql = r.dryRunSql.map((f) => [`-- ${f.filename}`, ...(f.outsideTransaction ? [`-- ${f.outsideTransaction}`] : []), ...f.statements.map((s) => `${s};`)].join('\n'));
    return [head, ...sql].join('\n\n');
  }
  const verb = r.command === 'migrate' ? 'applied' : 'rolled back';
  // A failed run says where it left the database even when its first migration failed.
  if (r.outcomes.length === 0 && !failed) return `${label(entry)}: nothing to ${r.command === 'migrate' ? 'apply' : 'roll back'}, ${at}`;
  const baselined = r.outcomes.length > 0 && r.outcomes.every((o) => o.action === 'baselined');
  const head = failed
    ? `${label(entry)}: ${baselined ? 'baselined' : verb} ${r.outcomes.length} migration${r.outcomes.length === 1 ? '' : 's'} before the failure, now ${at}`
    : `${label(entry)}: ${baselined ? 'baselined' : verb} ${r.outcomes.length} migration${r.outcomes.length === 1 ? '' : 's'} in ${formatMs(r.durationMs)}, now ${at}`;
  const width = Math.max(...r.outcomes.map((o) => o.filename.length));
  const rows = r.outcomes.map(
    (o) =>
      `  ${ACTION_WORD[o.action].padEnd(11)} ${(o.version ?? '-').padEnd(5)} ${o.action === 'baselined' ? o.filename : `${o.filename.padEnd(width)}  ${formatMs(o.durationMs)}`}${o.outsideTransaction ? '  (outside a transaction)' : ''}`,
  );
  return [head, ...rows].join('\n');
}

/** JSON of migrate / rollback / downgrade results. */
export function runJson(runs: readonly DatabaseRun<RunResult>[]): unknown {
  const databases: Record<string, unknown> = {};
  for (const run of runs) {
    const base = { status: run.status, database_type: run.entry.type };
    if (run.status === 'ok') {
      const r = run.value;
      databases[run.entry.name] = {
        ...base,
        command: r.command,
        current_version: r.currentVersion,
        duration_ms: round(r.durationMs),
        migrations: r.outcomes.map(outcomeJson),
        // Whether a file runs outside a transaction is its migration's `outside_transaction`.
        ...(r.dryRunSql ? { dry_run: true, sql: r.dryRunSql.map((f) => ({ filename: f.filename, statements: f.statements })) } : {}),
        error: null,
      };
    } else if (run.status === 'skipped') {
      databases[run.entry.name] = { ...base, error: run.reason };
    } else {
      // What the run did before it failed, when the tracking table could say.
      const done = completedBefore(run.error);
      databases[run.entry.name] = {
        ...base,
        ...(done ? { command: done.command, current_version: done.currentVersion } : {}),
        migrations: done ? done.outcomes.map(outcomeJson) : [],
        error: errorMessage(run.error),
        code: codeOf(run.error),
      };
    }
  }
  return { databases, summary: counts(runs) };
}

const outcomeJson = (o: MigrationOutcome) => ({
  filename: o.filename,
  version: o.version,
  type: o.type,
  action: o.action,
  duration_ms: round(o.durationMs),
  outside_transaction: o.outsideTransaction ?? false,
});

/** Text of `status`. */
export function statusText(runs: readonly DatabaseRun<StatusResult>[], all: boolean): string {
  const blocks = runs.map((run) => {
    if (run.status !== 'ok') return failureLines(run, all);
    const s = run.value;
    const head =
      `${label(run.entry)}: ${s.appliedMigrations} applied, ${s.pendingMigrations} pending, ` +
      `${s.currentVersion === null ? 'no version applied' : `at version ${s.currentVersion}`}` +
      `${s.lockActive ? ' (migration lock ACTIVE: see `mtool lock-status`)' : ''}`;
    if (s.entries.length === 0) return `${head}\n  no migration files in migrations/${s.database}/`;
    const notes = s.entries.filter((e) => e.note !== null).map((e) => `  ${e.filename}: ${e.note}`);
    const table = formatTable(
      s.entries.map((e) => ({ state: e.state, version: e.version ?? '-', type: e.type, filename: e.filename, applied_at: e.appliedAt ?? '' })),
      ['state', 'version', 'type', 'filename', 'applied_at'],
      ['STATE', 'VERSION', 'TYPE', 'FILE', 'APPLIED AT'],
    );
    return [head, indent(table), ...notes].join('\n');
  });
  return withSummary(runs, blocks, all);
}

/** JSON of `status`: per database the web status fields plus every migration. */
export function statusJson(runs: readonly DatabaseRun<StatusResult>[]): unknown {
  const databases: Record<string, unknown> = {};
  for (const run of runs) {
    if (run.status === 'ok') {
      const s = run.value;
      databases[run.entry.name] = {
        status: 'ok',
        connected: true,
        database_type: s.databaseType,
        current_version: s.currentVersion,
        pending_migrations: s.pendingMigrations,
        applied_migrations: s.appliedMigrations,
        lock_active: s.lockActive,
        error: null,
        migrations: s.entries.map((e) => ({ filename: e.filename, version: e.version, type: e.type, state: e.state, applied_at: e.appliedAt, checksum: e.checksum, note: e.note })),
      };
    } else {
      databases[run.entry.name] = {
        status: run.status,
        // A checksum mismatch or a lock error comes after connecting.
        connected: run.status === 'failed' && !isConnectionError(run.error) && codeOf(run.error) !== 'MTOOL_URL',
        database_type: run.entry.type,
        error: run.status === 'skipped' ? run.reason : errorMessage(run.error),
        ...(run.status === 'failed' ? { code: codeOf(run.error) } : {}),
      };
    }
  }
  return { databases, summary: counts(runs) };
}

const recordJson = (r: MigrationRecord) => ({
  filename: r.filename,
  version: r.version,
  type: r.type,
  description: r.description,
  checksum: r.checksum,
  applied_at: r.appliedAt,
  execution_ms: r.executionMs,
  applied_by: r.appliedBy,
});

/** Text of `history`. */
export function historyText(runs: readonly DatabaseRun<HistoryResult>[], all: boolean): string {
  const blocks = runs.map((run) => {
    if (run.status !== 'ok') return failureLines(run, all);
    const h = run.value;
    if (h.records.length === 0) return `${label(run.entry)}: no migration applied yet`;
    const table = formatTable(
      h.records.map((r) => ({ applied_at: r.appliedAt, version: r.version ?? '-', filename: r.filename, checksum: r.checksum.slice(0, 12), ms: `${r.executionMs} ms`, by: r.appliedBy })),
      ['applied_at', 'version', 'filename', 'checksum', 'ms', 'by'],
      ['APPLIED AT', 'VERSION', 'FILE', 'CHECKSUM', 'TIME', 'APPLIED BY'],
    );
    return `${label(run.entry)}: ${h.records.length} applied migration${h.records.length === 1 ? '' : 's'}, oldest first\n${indent(table)}`;
  });
  return withSummary(runs, blocks, all);
}

export function historyJson(runs: readonly DatabaseRun<HistoryResult>[]): unknown {
  const databases: Record<string, unknown> = {};
  for (const run of runs) {
    databases[run.entry.name] =
      run.status === 'ok'
        ? { status: 'ok', database_type: run.entry.type, migrations: run.value.records.map(recordJson), error: null }
        : run.status === 'skipped'
          ? { status: run.status, database_type: run.entry.type, error: run.reason }
          : { status: run.status, database_type: run.entry.type, error: errorMessage(run.error), code: codeOf(run.error) };
  }
  return { databases, summary: counts(runs) };
}

/** Text of `lock-status`: the spec's exact first line, then who holds it and a warning. */
export function lockStatusText(r: LockStatusResult): string {
  if (!r.active || !r.holder) return 'Migration lock: INACTIVE';
  return [
    'Migration lock: ACTIVE',
    `Held by ${describeHolder(r.holder)}; held for ${formatDuration(r.heldForMs ?? 0)}.`,
    ...(r.advice ? [r.advice] : []),
  ].join('\n');
}

export function lockStatusJson(r: LockStatusResult): unknown {
  return {
    database: r.database,
    database_type: r.databaseType,
    lock_active: r.active,
    holder: r.holder ? { host: r.holder.host, pid: r.holder.pid, command: r.holder.command, locked_at: r.holder.lockedAt } : null,
    held_for_ms: r.heldForMs,
    holder_running: r.holderRunning,
    holder_session_running: r.holderSessionRunning,
  };
}

export function unlockText(r: UnlockResult): string {
  return r.released
    ? `Migration lock on '${r.database}' released (it was held by ${describeHolder(r.released)}).`
    : `Migration lock on '${r.database}' was not held; nothing to release.`;
}

export function unlockJson(r: UnlockResult): unknown {
  return {
    database: r.database,
    database_type: r.databaseType,
    released: r.released !== null,
    holder: r.released ? { host: r.released.host, pid: r.released.pid, command: r.released.command, locked_at: r.released.lockedAt } : null,
  };
}

function counts(runs: readonly DatabaseRun<unknown>[]): { ok: number; skipped: number; failed: number } {
  return {
    ok: runs.filter((r) => r.status === 'ok').length,
    skipped: runs.filter((r) => r.status === 'skipped').length,
    failed: runs.filter((r) => r.status === 'failed').length,
  };
}

const round = (ms: number): number => Math.round(ms * 100) / 100;
const indent = (text: string): string => text.replace(/^/gm, '  ');
