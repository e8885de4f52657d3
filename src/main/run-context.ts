/**
 * What a running command gets from the CLI besides its options: an AbortSignal that fires on
 * Ctrl-C / SIGTERM and a place to register cleanup (release the migration lock, close pools).
 * The CLI entry runs the cleanups once, on normal exit, on error, and on a signal before exiting
 * with 130 / 143.
 */
export type Cleanup = () => void | Promise<void>;

export class RunContext {
  readonly #controller = new AbortController();
  readonly #cleanups: Cleanup[] = [];
  #cleaned: Promise<void> | undefined;

  /** Aborted when the process receives SIGINT or SIGTERM; pass it to long operations. */
  get signal(): AbortSignal {
    return this.#controller.signal;
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

  /** Abort the signal (the CLI calls this on SIGINT/SIGTERM). */
  abort(reason: string): void {
    this.#controller.abort(new Error(reason));
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
