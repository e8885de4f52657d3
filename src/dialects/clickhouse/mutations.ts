import { setTimeout as sleep } from 'node:timers/promises';
import { MtoolError } from '../../errors.js';
import type { BackgroundWork, Connection } from '../types.js';
import { clickhouseQuoting } from './quoting.js';

/**
 * ClickHouse mutations: `ALTER TABLE ... UPDATE / DELETE` (and `MATERIALIZE ...`, a column's type
 * change) return once the mutation is queued, and the server rewrites the table's parts in the
 * background (unless `mutations_sync` is set, as chdb does by default). A migration whose
 * statement after it reads the table would read it unchanged, and a mutation that fails would be
 * recorded as applied. So after an ALTER TABLE the migration waits for the mutations it started:
 * those of the table it names that were not running before it (other clients' mutations on other
 * tables are none of its business).
 * Current servers say why a mutation fails (`latest_fail_reason`); 18.x servers do not, and
 * cannot kill one (no `KILL MUTATION`): there the wait goes on, saying so every few seconds,
 * until it is done or the run is stopped.
 */

/** Every ALTER TABLE may start one; the two catalog reads cost little beside the ALTER itself. */
const MAY_MUTATE = /^ALTER\s+TABLE\b/i;

/** How often a long wait says what it waits for. */
const PROGRESS_EVERY_MS = 10_000;
/** Polling backs off from the first to the last interval. */
const FIRST_POLL_MS = 10;
const LAST_POLL_MS = 500;

interface Mutation {
  database: string;
  table: string;
  id: string;
  command: string;
  partsToDo: number;
  done: boolean;
  /** Why its last attempt failed; empty while it goes well, undefined where the server does not say. */
  failure: string | undefined;
}

const keyOf = (m: Pick<Mutation, 'database' | 'table' | 'id'>): string => `${m.database}.${m.table}/${m.id}`;

/** Whether the server's system.mutations has `latest_fail_reason` (not 18.x), asked once per connection. */
const reportsFailures = new WeakMap<Connection, Promise<boolean>>();

function failuresReported(conn: Connection): Promise<boolean> {
  let known = reportsFailures.get(conn);
  if (!known) {
    known = conn
      .query("SELECT count() AS n FROM system.columns WHERE database = 'system' AND table = 'mutations' AND name = 'latest_fail_reason'")
      .then(({ rows }) => Number(rows[0]?.n) > 0);
    reportsFailures.set(conn, known);
  }
  return known;
}

async function mutations(conn: Connection, where: string): Promise<Mutation[]> {
  const withReason = await failuresReported(conn);
  const { rows } = await conn.query(
    `SELECT database, table, mutation_id, command, parts_to_do, is_done${withReason ? ', latest_fail_reason' : ''} FROM system.mutations WHERE ${where}`,
  );
  return rows.map((r) => ({
    database: String(r.database),
    table: String(r.table),
    id: String(r.mutation_id),
    command: String(r.command),
    partsToDo: Number(r.parts_to_do),
    done: Number(r.is_done) === 1,
    failure: withReason ? String(r.latest_fail_reason ?? '') : undefined,
  }));
}

// Current servers show the command in parentheses.
const named = (m: Mutation): string => `mutation ${m.id} of ${m.database}.${m.table} (${m.command.replace(/^\(([\s\S]*)\)$/, '$1')})`;

function failed(m: Mutation): MtoolError {
  const kill = `KILL MUTATION WHERE database = ${clickhouseQuoting.literal(m.database)} AND table = ${clickhouseQuoting.literal(m.table)} AND mutation_id = ${clickhouseQuoting.literal(m.id)}`;
  return new MtoolError(
    'MTOOL_DATABASE',
    `${named(m)} failed on the server: ${m.failure}; it stays queued, retried, and holds up the table's later mutations until it is killed: ${kill}`,
  );
}

function removed(m: Mutation): MtoolError {
  return new MtoolError('MTOOL_DATABASE', `${named(m)} was removed before it finished (killed, or its table dropped); the parts it had rewritten stay rewritten`);
}

/** The table an `ALTER TABLE [db.]name ...` names, as written; undefined where it cannot be read. */
async function alteredTable(text: string): Promise<{ database?: string; table: string } | undefined> {
  const [{ tokenize }, { SPLIT_PRESETS }] = await Promise.all([import('../../parser/sql-tokens.js'), import('../../parser/presets.js')]);
  const tokens = tokenize(text, SPLIT_PRESETS.clickhouse);
  if (!tokens) return undefined;
  let i = 0;
  const word = (w: string): boolean => tokens[i]?.kind === 'word' && tokens[i]!.text.toUpperCase() === w;
  const part = (): string | undefined => {
    const t = tokens[i];
    if (t?.kind !== 'word' && t?.kind !== 'ident') return undefined;
    i++;
    return t.text;
  };
  if (!word('ALTER')) return undefined;
  i++;
  if (!word('TABLE')) return undefined;
  i++;
  if (word('IF') && tokens[i + 1]?.kind === 'word' && tokens[i + 1]!.text.toUpperCase() === 'EXISTS') i += 2;
  const first = part();
  if (first === undefined) return undefined;
  if (tokens[i]?.kind !== 'punct' || tokens[i]!.text !== '.') return { table: first };
  i++;
  const second = part();
  return second === undefined ? undefined : { database: first, table: second };
}

/**
 * The mutations an ALTER TABLE statement may start: those of its table (of a materialized view:
 * of the view's storage table too, `.inner.<view>` or `.inner_id.<uuid>`), so that the wait
 * adopts no mutation another client starts meanwhile on another table. Where the name cannot be
 * read, those of the connection's database.
 */
async function scopeOf(statement: string): Promise<string> {
  const target = await alteredTable(statement);
  if (!target) return 'database = currentDatabase()';
  const q = clickhouseQuoting;
  const database = target.database === undefined ? 'currentDatabase()' : q.literal(target.database);
  const table = q.literal(target.table);
  const view = `(SELECT count() FROM system.tables WHERE database = ${database} AND name = ${table} AND engine = 'MaterializedView') > 0`;
  return `database = ${database} AND (table = ${table} OR (table LIKE '.inner%' AND ${view}))`;
}

export const clickhouseMutations: BackgroundWork = {
  mayStart: (text) => MAY_MUTATE.test(text),

  async before(conn, statement) {
    return new Set((await mutations(conn, `is_done = 0 AND ${await scopeOf(statement)}`)).map(keyOf));
  },

  async wait(conn, running, { signal, progress, statement }) {
    const started = (await mutations(conn, `is_done = 0 AND ${await scopeOf(statement)}`)).filter((m) => !running.has(keyOf(m)));
    if (started.length === 0) return;
    const ids = [...new Set(started.map((m) => clickhouseQuoting.literal(m.id)))].join(', ');
    const waitingSince = performance.now();
    let nextProgress = waitingSince + PROGRESS_EVERY_MS;
    let interval = FIRST_POLL_MS;
    let pending = started;
    for (;;) {
      const failure = pending.find((m) => m.failure);
      if (failure) throw failed(failure);
      if (performance.now() >= nextProgress) {
        nextProgress += PROGRESS_EVERY_MS;
        const seconds = Math.round((performance.now() - waitingSince) / 1000);
        const what = pending.map((m) => `${named(m)}: ${m.partsToDo} part${m.partsToDo === 1 ? '' : 's'} to do`).join('; ');
        const old = pending[0]!.failure === undefined ? "; this server does not report a mutation's failure: if its log shows one failing, it never ends, and Ctrl-C stops the run (the migration is then not recorded)" : '';
        progress(`waiting ${seconds} s for ${what}${old}`);
      }
      try {
        await sleep(interval, undefined, { signal });
      } catch {
        return; // stopped: the caller ends the run
      }
      interval = Math.min(interval * 2, LAST_POLL_MS);
      const now = new Map((await mutations(conn, `mutation_id IN (${ids})`)).map((m) => [keyOf(m), m]));
      const next: Mutation[] = [];
      for (const m of pending) {
        const current = now.get(keyOf(m));
        if (!current) throw removed(m);
        if (!current.done) next.push(current);
      }
      if (next.length === 0) return;
      pending = next;
    }
  },
};
