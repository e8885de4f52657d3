import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { performance } from 'node:perf_hooks';
import { processExists } from '../../process-exists.js';
import { scrubLogText } from '../log.js';
import { sessionRunsTooAdvice, sessionStillRunsAdvice, type HolderSession } from './holder-session.js';
import type { LockHolder } from './types.js';

/**
 * What this host can tell of a lock holder's process. A pid alone proves little: after a reboot,
 * a restarted container or enough time, another process has the holder's pid (pid 1 of a
 * container always exists). On Linux /proc tells when that process started and what it runs.
 */
export interface HolderProcess {
  /**
   * `running`: a process with the holder's pid runs (and, when `verified`, it started before the
   * lock was taken and runs node or mtool); `pid-reused`: a process with that pid runs but is
   * not the holder; `gone`: no process has that pid; `elsewhere`: the holder ran on another host.
   */
  state: 'running' | 'pid-reused' | 'gone' | 'elsewhere';
  /** False where /proc cannot tell (not Linux, unreadable): `running` then only means the pid exists. */
  verified: boolean;
  /** The process's command line, where readable. */
  commandLine?: string;
  /** When the process started (ISO 8601 UTC, to the second), where /proc tells. */
  startedAt?: string;
  /** Why a running process is not the holder (`pid-reused`). */
  notHolderBecause?: string;
}

/**
 * Slack between a process's start and the lock's `locked_at`: /proc's boot time is in whole
 * seconds and some backends store `locked_at` to the second.
 */
const START_SLACK_MS = 3000;
/** The holder is a node process (`node …/mtool/dist/cli/bin.js`, an app using the engine) or an mtool binary. */
const NODE_LIKE = /(^|[/\\])(node|nodejs|bun|deno|mtool)[^/\\]*$/i;

const inspected = new WeakMap<LockHolder, HolderProcess>();

/**
 * Look at the holder's process on this host, once per holder object: `lock-status` reports
 * `holder_running` and its advice from the same look.
 */
export function inspectHolder(holder: LockHolder): HolderProcess {
  let found = inspected.get(holder);
  if (!found) {
    found = lookAtHolder(holder);
    inspected.set(holder, found);
  }
  return found;
}

function lookAtHolder(holder: LockHolder): HolderProcess {
  if (holder.host !== hostname()) return { state: 'elsewhere', verified: false };
  if (!processExists(holder.pid)) return { state: 'gone', verified: true };
  const proc = readProc(holder.pid);
  if (proc === 'gone') return { state: 'gone', verified: true };
  if (proc === undefined) return { state: 'running', verified: false };
  const about = { verified: true, startedAt: proc.startedAt, ...(proc.commandLine !== undefined ? { commandLine: proc.commandLine } : {}) };
  const lockedAt = Date.parse(holder.lockedAt);
  if (Date.parse(proc.startedAt) > lockedAt + START_SLACK_MS) {
    return { state: 'pid-reused', ...about, notHolderBecause: `it started at ${proc.startedAt}, after the lock was taken at ${holder.lockedAt}` };
  }
  if (proc.commandLine !== undefined && !looksLikeMtool(proc.commandLine)) {
    // Only the program's name: the rest of another program's command line is none of our business.
    const program = proc.commandLine.split(' ')[0]?.split(/[/\\]/).pop() || '(no command line)';
    return { state: 'pid-reused', ...about, notHolderBecause: `it runs '${program}', not node or mtool` };
  }
  return { state: 'running', ...about };
}

function looksLikeMtool(commandLine: string): boolean {
  const [program = '', ...args] = commandLine.split(' ');
  return NODE_LIKE.test(program) || args.some((arg) => /mtool/i.test(arg));
}

/**
 * Start time and command line of a process from /proc; `gone` for a zombie or a process that
 * ended meanwhile; undefined where /proc cannot tell (not Linux, hidden, unknown clock ticks).
 */
function readProc(pid: number): { startedAt: string; commandLine?: string } | 'gone' | undefined {
  if (process.platform !== 'linux') return undefined;
  const stat = readProcFile(`/proc/${pid}/stat`);
  if (stat === 'gone' || stat === undefined) return stat;
  // Field 2 (the name, in parentheses) may hold spaces and parentheses: count from its end.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  if (fields[0] === 'Z') return 'gone';
  const startTicks = Number(fields[19]); // field 22: start time, in clock ticks after boot
  const clock = bootClock();
  if (!clock || !Number.isFinite(startTicks)) return undefined;
  const startedMs = clock.bootMs + (startTicks * 1000) / clock.ticksPerSecond;
  const cmdline = readProcFile(`/proc/${pid}/cmdline`);
  // Scrubbed: it is printed, and a command line may carry a connection URL.
  const commandLine = typeof cmdline === 'string' ? scrubLogText(cmdline.replace(/\0+$/, '').split('\0').join(' ')).slice(0, 200) : undefined;
  return { startedAt: new Date(Math.floor(startedMs / 1000) * 1000).toISOString().replace('.000Z', 'Z'), ...(commandLine !== undefined ? { commandLine } : {}) };
}

function readProcFile(path: string): string | 'gone' | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'gone' : undefined;
  }
}

let clockCache: { bootMs: number; ticksPerSecond: number } | null | undefined;

/**
 * Boot time (/proc/stat `btime`) and clock ticks per second. Node cannot ask sysconf for the
 * ticks (100 on Linux nearly everywhere), so they are checked against this process's own start:
 * the one that puts it where `performance.timeOrigin` says; null when none does.
 */
function bootClock(): { bootMs: number; ticksPerSecond: number } | null {
  if (clockCache !== undefined) return clockCache;
  clockCache = null;
  const stat = readProcFile('/proc/stat');
  const own = readProcFile('/proc/self/stat');
  const btime = typeof stat === 'string' ? /^btime (\d+)$/m.exec(stat)?.[1] : undefined;
  if (btime === undefined || typeof own !== 'string') return null;
  const bootMs = Number(btime) * 1000;
  const ownTicks = Number(own.slice(own.lastIndexOf(')') + 2).split(' ')[19]);
  for (const ticksPerSecond of [100, 1000, 250, 300]) {
    if (Math.abs(bootMs + (ownTicks * 1000) / ticksPerSecond - performance.timeOrigin) < START_SLACK_MS) {
      clockCache = { bootMs, ticksPerSecond };
      break;
    }
  }
  return clockCache;
}

/**
 * Whether the holder's process still runs: known only for a holder on this host. True also when
 * it runs as another user, and where /proc cannot tell whether the process with its pid is it.
 * Undefined for another host's.
 */
export function holderRunning(holder: LockHolder): boolean | undefined {
  const { state } = inspectHolder(holder);
  return state === 'elsewhere' ? undefined : state === 'running';
}

/**
 * What to do about a lock held by `holder` on `database`, from what this host sees of its process
 * and, where the server tells, of its server session (`session`).
 */
export function holderAdvice(holder: LockHolder, database: string, session?: HolderSession): string {
  const found = inspectHolder(holder);
  const unlock = `\`mtool unlock --database ${database}\``;
  const killed = 'the holder was killed or crashed (unless it ran in a container of its own under this host name)';
  const sessionRuns = session?.running === true ? session : undefined;
  const release = sessionRuns ? sessionStillRunsAdvice(sessionRuns, unlock) : `Release the lock with ${unlock}.`;
  const too = sessionRuns ? ` ${sessionRunsTooAdvice(sessionRuns)}` : '';
  switch (found.state) {
    case 'gone':
      return `No process ${holder.pid} runs on this host: ${killed}. ${release}`;
    case 'pid-reused':
      return `Process ${holder.pid} on this host is not the holder but another process with the same pid (${found.notHolderBecause}): ${killed}. ${release}`;
    case 'running':
      return (
        (found.verified
          ? `Process ${holder.pid} still runs on this host: a migration is most likely in progress on '${database}'; wait for it to finish. It is ${describeProcess(found)}; ${unlock} is for a lock whose holder is gone.`
          : `A process with pid ${holder.pid} runs on this host; this system cannot tell whether it is the holder or a later process that got the same pid. If it is an mtool process, a migration is in progress on '${database}': wait for it to finish; if not, release the lock with ${unlock}.`) + too
      );
    case 'elsewhere':
      if (sessionRuns) return `A migration of host '${holder.host}' may still be in progress on '${database}'. ${release}`;
      if (session?.running === false) {
        return `Its database session ${session.id} no longer runs on the server, so nothing of that run executes there: unless its mtool process on host '${holder.host}' still runs, the holder was killed or crashed. Release the lock with ${unlock}.`;
      }
      return `Warning: another mtool process may be running a migration on '${database}'. If none is (for example it was killed), release the lock with ${unlock}.`;
  }
}

/**
 * The warning `mtool unlock` prints before it releases a lock whose holder still runs on this
 * host, or whose server session still runs (`session`); undefined when neither does.
 */
export function runningHolderWarning(holder: LockHolder, database: string, session?: HolderSession): string | undefined {
  const found = inspectHolder(holder);
  const sessionRuns = session?.running === true ? session : undefined;
  const risk = `a migration ('${holder.command}', locked since ${holder.lockedAt}) may still be in progress. A migrate started now runs beside it, and two at once can corrupt the tracking table.`;
  if (found.state !== 'running') {
    if (!sessionRuns) return undefined;
    return (
      `releasing the migration lock on '${database}' although its database session ${sessionRuns.id} still runs on the server (it goes on with what the run sent even after the run was killed): ${risk} ` +
      `End session ${sessionRuns.id} (\`${sessionRuns.endStatement}\`) or wait until it ends before migrating again.`
    );
  }
  const who = runningHolderText(holder, found);
  const alsoSession = sessionRuns
    ? ` Stopping it does not stop its database session ${sessionRuns.id} on the server, which goes on with what the run sent: end that too (\`${sessionRuns.endStatement}\`), or wait until it ends.`
    : '';
  return `releasing the migration lock on '${database}' although ${who}: ${risk} Stop process ${holder.pid} (or let it finish) before migrating again.${alsoSession}`;
}

/**
 * That the holder's process still runs on this host, with what it is, or undefined when it does
 * not (or ran elsewhere), from what {@link inspectHolder} found (`found`, read once by the caller):
 * `its holder, process 4242 ('node …/bin.js migrate', running since …), still runs on this host`.
 */
export function holderRunsHere(holder: LockHolder, found: HolderProcess): string | undefined {
  return found.state === 'running' ? runningHolderText(holder, found) : undefined;
}

function runningHolderText(holder: LockHolder, found: HolderProcess): string {
  return found.verified
    ? `its holder, process ${holder.pid} (${describeProcess(found)}), still runs on this host`
    : `a process with the holder's pid ${holder.pid} runs on this host (this system cannot tell whether it is the holder)`;
}

/** `'node …/bin.js migrate', running since 2026-…`. */
function describeProcess(found: HolderProcess): string {
  const parts = [found.commandLine ? `'${found.commandLine}'` : 'command unknown', found.startedAt ? `running since ${found.startedAt}` : undefined];
  return parts.filter(Boolean).join(', ');
}
