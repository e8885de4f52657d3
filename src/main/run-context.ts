import { logAlways, loggingSettings } from './log.js';

/**
 * What a running command gets from the CLI besides its options: an AbortSignal that fires on
 * Ctrl-C / SIGTERM / SIGHUP and a place to register cleanup (release the migration lock, close
 * pools). The CLI entry runs the cleanups once, on normal exit, on error, and on a signal before
 * exiting with 128 + the signal's number.
 */
export type Cleanup = () => void | Promise<void>;

/** The signals after which mtool cleans up before it exits, and the exit code each ends with (128 + its number). */
export const SIGNAL_EXIT_CODES = { SIGHUP: 129, SIGINT: 130, SIGTERM: 143 } as const;
export type StopSignal = keyof typeof SIGNAL_EXIT_CODES;

/** Where the CLI writes plain text (standard error). */
export interface TextOutput {
  write(text: string): unknown;
}

/** A migration lock a command holds, as {@link RunContext.trackLock} sees it. */
interface TrackedLock {
  database: string;
  held: () => boolean;
}

export class RunContext {
  readonly #controller = new AbortController();
  readonly #cleanups: Cleanup[] = [];
  readonly #locks = new Set<TrackedLock>();
  #cleaned: Promise<void> | undefined;
  #exitCode: number | undefined;

  /** Aborted when the process receives SIGINT, SIGTERM or SIGHUP; pass it to long operations. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /**
   * The code the process ends with because a signal came (130 for SIGINT ...), whatever the
   * command returns; undefined until then. The final error record reports this one.
   */
  get exitCode(): number | undefined {
    return this.#exitCode;
  }

  /**
   * Register work that must run before the process ends. Cleanups run in reverse order of
   * registration; one failing does not stop the others. Registered once the cleanups have
   * started (a lock taken as the signal came), it starts at once.
   * @returns a function that unregisters it (call it once the resource is released normally).
   */
  onCleanup(cleanup: Cleanup): () => void {
    if (this.#cleaned !== undefined) {
      void (async () => cleanup())().catch(() => undefined);
      return () => undefined;
    }
    this.#cleanups.push(cleanup);
    return () => {
      const index = this.#cleanups.indexOf(cleanup);
      if (index >= 0) this.#cleanups.splice(index, 1);
    };
  }

  /**
   * Note a migration lock the command took on `database`; `held` tells, when asked, whether it
   * is still committed and ours. A forced exit names the ones still held ({@link heldLocks}).
   * @returns a function that stops tracking it (call it once the lock is released).
   */
  trackLock(database: string, held: () => boolean): () => void {
    const lock = { database, held };
    this.#locks.add(lock);
    return () => void this.#locks.delete(lock);
  }

  /** Databases whose migration lock this run holds right now (a process ending now leaves them ACTIVE). */
  heldLocks(): string[] {
    return [...new Set([...this.#locks].filter((lock) => lock.held()).map((lock) => lock.database))];
  }

  /** Abort the signal (the CLI calls this on SIGINT/SIGTERM/SIGHUP, through {@link stop}). */
  abort(reason: string): void {
    this.#controller.abort(new Error(reason));
  }

  /**
   * The first stop signal: record the exit code it ends with, say that cleanup runs, and abort.
   * The notice is a log record in JSON log mode (stderr stays one JSON object per line).
   */
  stop(signal: StopSignal, stderr: TextOutput): void {
    this.#exitCode = SIGNAL_EXIT_CODES[signal];
    const what = signal === 'SIGINT' ? 'interrupted' : signal === 'SIGHUP' ? 'hung up (SIGHUP: terminal or session closed)' : 'terminated';
    notice(stderr, `${what}; cleaning up (send again to exit at once)`, { signal, exit_code: this.#exitCode }, true);
    this.abort(signal);
  }

  /**
   * A second stop signal, just before the process exits without finishing its cleanups: name each
   * migration lock that may now stay ACTIVE and how to recover it. Nothing when none is held.
   */
  forcedExit(signal: StopSignal, stderr: TextOutput): void {
    for (const database of this.heldLocks()) {
      notice(
        stderr,
        `exiting at once (${signal}): the migration lock on '${database}' may be left held (ACTIVE). ` +
          `Check it with \`mtool lock-status --database ${database}\`; once no mtool process is migrating '${database}', release it with \`mtool unlock --database ${database}\``,
        { db_name: database, signal, exit_code: SIGNAL_EXIT_CODES[signal] },
      );
    }
  }

  /**
   * Run every registered cleanup once; later calls wait for the same run.
   * @returns the errors of failed cleanups, for the caller to log.
   */
  async cleanup(): Promise<unknown[]> {
    const errors: unknown[] = [];
    this.#cleaned ??= (async () => {
      for (const cleanup of this.#cleanups.splice(0).reverse()) {
        try {
          await cleanup();
        } catch (error) {
          errors.push(error);
        }
      }
    })();
    await this.#cleaned;
    return errors;
  }
}

/**
 * A message from the process itself, outside any command: `mtool: <text>` on stderr, or in JSON
 * log mode a WARNING record. Never throws: a terminal that went away (SIGHUP) must not stop the
 * cleanup that follows. `newline` first ends the line the terminal echoed `^C` on.
 */
function notice(stderr: TextOutput, text: string, fields: Record<string, unknown>, newline = false): void {
  try {
    if (loggingSettings().json) logAlways('warning', text, fields);
    else stderr.write(`${newline ? '\n' : ''}mtool: ${text}\n`);
  } catch {
    // Nowhere left to say it.
  }
}
