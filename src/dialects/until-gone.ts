import { setTimeout as sleep } from 'node:timers/promises';
import { MtoolError } from '../errors.js';

/** How long {@link untilGone} waits for a terminated session to end (its rollback included). */
const GONE_WITHIN_MS = 10_000;
const POLL_MS = 50;

/**
 * Wait until `alive()` says a server session that was told to terminate has ended: the server
 * ends it at its next check and first rolls back its open transaction, which may take a moment.
 * @throws MtoolError `MTOOL_DATABASE` naming `what` when it is still there after 10 s.
 */
export async function untilGone(alive: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + GONE_WITHIN_MS;
  while (await alive()) {
    if (Date.now() > deadline) throw new MtoolError('MTOOL_DATABASE', `${what} was told to terminate and is still running after ${GONE_WITHIN_MS / 1000} s`);
    await sleep(POLL_MS);
  }
}
