import type { RecordMany, StatementStep, StepPart } from '../types.js';

/**
 * What one multi-statement query of migration steps sends ({@link import('./driver.js')}): its
 * statements, which step and part each belongs to (the server stops at the first failing one,
 * and mysql2's count of the results before it names it), and what each answer tells.
 */
export interface MessagePlan {
  sql: string[];
  parts: { part: StepPart; step: number }[];
  /** By part index: the part records these steps; grouped, the part before it returned their execution times as one row. */
  events: Map<number, { recorded: readonly number[] }>;
  /** Grouped: by part index, the record step whose end the part marks and its place in its group (1, 2, ...: its mark is `@mtool_m<place>`). */
  marks: Map<number, { step: number; place: number }>;
}

/**
 * Migrations recorded by one statement in a grouped message: a group pays one commit of the
 * tracking table instead of one per migration (on MariaDB 10.11 with its log flushed at each
 * commit, 1000 small migrations took 1.15x the time of the same statements unrecorded when each
 * row had its own commit, 0.99x with a row statement per 10: bench/README.md), and at most this
 * many migrations can be left run but unrecorded when the session ends mid-group.
 */
export const RECORD_GROUP = 10;

/** Whole milliseconds since the migration's first statement in the message began (`@mtool_started`, set before it). */
const ELAPSED_MS_SQL = '(TIMESTAMPDIFF(MICROSECOND, @mtool_started, NOW(6)) DIV 1000)';

/** Marks the start of a migration whose record follows in the same message. */
const MARK_STARTED = 'SET @mtool_started = NOW(6)';

/** The server's time in UTC with milliseconds, as a DATETIME(3) `applied_at` holds it (the session's time zone never shifts it). */
const NOW_UTC_SQL = 'UTC_TIMESTAMP(3)';

/** The end mark of the migration at `place` in its group (0: the group's start), in UTC so it is also its `applied_at`. */
const mark = (place: number): string => `@mtool_m${place}`;

/**
 * The row values of the record step at `place`: its time from the mark before it to its own end
 * mark, or to now when its end was not marked (the mark itself failed, after the migration ran).
 */
export function groupedRow(step: number, place: number, marked = true): { step: number; elapsedMsSql: string; appliedAtSql: string } {
  const end = marked ? mark(place) : 'UTC_TIMESTAMP(6)';
  return { step, elapsedMsSql: `(TIMESTAMPDIFF(MICROSECOND, ${mark(place - 1)}, ${end}) DIV 1000)`, appliedAtSql: marked ? `CAST(${end} AS DATETIME(3))` : NOW_UTC_SQL };
}

/**
 * Each step's own record after its last statement; each migration's execution time starts with
 * its first step in the message (`@mtool_started`), so its last statement's own time is in it.
 */
export function recordEachPlan(steps: readonly StatementStep[]): MessagePlan {
  const plan: MessagePlan = { sql: [], parts: [], events: new Map(), marks: new Map() };
  // A step starts a migration when the step before it carried a record; the migration's record
  // is then the first one at or after it.
  const recordAhead = new Array<boolean>(steps.length);
  for (let i = steps.length - 1, ahead = false; i >= 0; i--) recordAhead[i] = ahead ||= steps[i]!.record !== undefined;
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i]!;
    if (step.begin) add(plan, 'begin', i, 'START TRANSACTION');
    if (recordAhead[i] && (i === 0 || steps[i - 1]!.record !== undefined)) add(plan, 'begin', i, MARK_STARTED);
    add(plan, 'statement', i, step.sql);
    if (step.record) {
      plan.events.set(plan.parts.length, { recorded: [i] });
      add(plan, 'record', i, step.record(ELAPSED_MS_SQL, NOW_UTC_SQL));
    }
  }
  return plan;
}

/**
 * The records of up to {@link RECORD_GROUP} migrations in one statement, after the last of them
 * (steps outside a transaction: each commits as it runs). Each migration's end is marked by a
 * `SET` after its last statement (a statement's own cost, a few hundredths of a millisecond of
 * the server's time in a message, against a commit's log flush), and each group's start by one
 * after the record before it; the group's record reads them, and a `SELECT` before it returns
 * the same times to the client (the answers of a fast server reach it in bursts, too close
 * together to time each migration by).
 */
export function recordGroupedPlan(steps: readonly StatementStep[], recordMany: RecordMany): MessagePlan {
  const plan: MessagePlan = { sql: [], parts: [], events: new Map(), marks: new Map() };
  let group: number[] = [];
  let started = false;
  const lastRecord = steps.findLastIndex((s) => s.record !== undefined);
  for (let i = 0; i < steps.length; i++) {
    if (!started && i <= lastRecord) {
      add(plan, 'begin', i, `SET ${mark(0)} = UTC_TIMESTAMP(6)`);
      started = true;
    }
    add(plan, 'statement', i, steps[i]!.sql);
    if (steps[i]!.record === undefined) continue;
    group.push(i);
    plan.marks.set(plan.parts.length, { step: i, place: group.length });
    add(plan, 'record', i, `SET ${mark(group.length)} = UTC_TIMESTAMP(6)`);
    if (group.length < RECORD_GROUP && i < lastRecord) continue;
    const rows = group.map((step, k) => groupedRow(step, k + 1));
    add(plan, 'record', i, timesSql(rows));
    plan.events.set(plan.parts.length, { recorded: group });
    add(plan, 'record', i, recordMany(rows));
    group = [];
    started = false;
  }
  return plan;
}

/** One row of the rows' execution times, in their order. */
export function timesSql(rows: readonly { elapsedMsSql: string }[]): string {
  return `SELECT ${rows.map((row, k) => `${row.elapsedMsSql} AS e${k}`).join(', ')}`;
}

function add(plan: MessagePlan, part: StepPart, step: number, text: string): void {
  plan.parts.push({ part, step });
  plan.sql.push(text);
}
