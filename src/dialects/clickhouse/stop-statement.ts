import { setTimeout as sleep } from 'node:timers/promises';
import { MtoolError } from '../../errors.js';
import type { QueryResult } from '../types.js';

/** How long {@link stopStatement} tries to see a statement stopped before it gives up. */
const STOP_WITHIN_MS = 10_000;
/** How long one round waits for the statement's answer after its KILL, before killing again. */
const ANSWER_WAIT_MS = 200;
/** Between rounds. */
const POLL_MS = 50;

/**
 * A statement a transport sent: how a second session finds it in `system.processes`, and
 * whether its answer has come (a statement is over on the engine once its whole answer has come,
 * whatever it says; an answer lost with the connection tells nothing).
 */
export class SentStatement {
  #match: string | (() => string);
  /** Settles (never rejects) when the answer has come or the request failed. */
  readonly answered: Promise<void>;
  #settled = false;
  /** The request failed without an answer from the engine (refused, reset, timed out). */
  #lost = false;

  /** `match`: given as a function where making it costs (a hash of the text), made only when asked for. */
  constructor(match: string | (() => string), result: Promise<unknown>, isAnswer: (error: unknown) => boolean) {
    this.#match = match;
    this.answered = result.then(
      () => {
        this.#settled = true;
      },
      (error: unknown) => {
        this.#settled = true;
        this.#lost = !isAnswer(error);
      },
    );
  }

  /** A condition on `system.processes` that holds for this statement's row alone. */
  get match(): string {
    if (typeof this.#match === 'function') this.#match = this.#match();
    return this.#match;
  }

  /** The engine's answer has come: the statement is over there. */
  get over(): boolean {
    return this.#settled && !this.#lost;
  }

  /** The request ended, with or without the engine's answer. */
  get settled(): boolean {
    return this.#settled;
  }
}

/** Run one statement on a session beside the connection's own, given up when `signal` aborts. */
export type SideQuery = (sql: string, signal: AbortSignal) => Promise<QueryResult>;

export interface StopOptions {
  /**
   * `KILL QUERY ... SYNC`: the KILL returns once the statement has stopped (servers); else
   * `ASYNC` (chdb, where a SYNC KILL waits for a process-list entry the engine keeps until the
   * killed session's next statement).
   */
  sync: boolean;
  /**
   * Whether `system.processes` tells when a statement whose answer was lost has ended (a server
   * behind HTTP). Not for an engine in this process, whose answers are never lost.
   */
  processList: boolean;
  /** For the error: `clickhouse (app): statement <id>`. */
  what: string;
}

/** Ask once, from the side session, that the statement stop (it then fails with QUERY_WAS_CANCELLED). */
export async function askToStop(side: SideQuery, statement: SentStatement, options: StopOptions): Promise<void> {
  await side(killSql(statement, options), AbortSignal.timeout(STOP_WITHIN_MS));
}

/**
 * Stop the statement and confirm it no longer runs: its answer has come, or (its answer lost
 * with the connection) the server's process list no longer holds it. The KILL is repeated until
 * then: a request still on its way reaches the engine, and starts, only after an earlier KILL.
 * @throws MtoolError `MTOOL_DATABASE` when that is not confirmed within 10 s; the side
 *   session's own error when it cannot reach the engine. Either way the statement may still complete.
 */
export async function stopStatement(side: SideQuery, statement: SentStatement, options: StopOptions): Promise<void> {
  const deadline = Date.now() + STOP_WITHIN_MS;
  const bounded = (): AbortSignal => AbortSignal.timeout(Math.max(500, deadline - Date.now()));
  for (;;) {
    const signal = bounded();
    try {
      await side(killSql(statement, options), signal);
    } catch (error) {
      // A SYNC KILL still waiting for the statement: the checks below say where it stands.
      if (!signal.aborted) throw error;
    }
    if (!statement.settled) await Promise.race([statement.answered, sleep(ANSWER_WAIT_MS)]);
    if (statement.over) return;
    if (statement.settled && options.processList) {
      const { rows } = await side(`SELECT count() AS n FROM system.processes WHERE ${statement.match}`, bounded());
      if (Number(rows[0]?.n) === 0) return;
    }
    if (Date.now() >= deadline) {
      throw new MtoolError('MTOOL_DATABASE', `${options.what} was told to stop (KILL QUERY) and is still running after ${STOP_WITHIN_MS / 1000} s`);
    }
    await sleep(POLL_MS);
  }
}

function killSql(statement: SentStatement, options: StopOptions): string {
  return `KILL QUERY WHERE ${statement.match} ${options.sync ? 'SYNC' : 'ASYNC'}`;
}
