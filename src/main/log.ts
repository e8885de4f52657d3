import { writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import type { Logger as PinoLogger } from 'pino';
// mask.js directly, not connection-url.js: the logger is on the start-up path of every command.
import { isSecretOptionName, maskUrl, scrubSecrets } from '../net/mask.js';
import { maskSqlSecrets } from '../net/sql-secrets.js';

/**
 * mtool's logger: pino on stderr with the spec's levels (trace 5 … critical 50).
 *
 * Human mode (default) prints one readable line per record:
 * `INFO  [app/postgresql] lock acquired in 3.1 ms`.
 * JSON mode (`MTOOL_LOG_JSON=true` or `--json`) prints one object per line with exactly
 * `timestamp` (UTC, microseconds), `level`, `logger`, `message`, and `db_name`, `db_type`,
 * `exception` when they apply, plus any fields the caller passed.
 *
 * pino is loaded on the first record that passes the level filter, so `mtool --version`
 * and `--help` never pay for it. A human line whose fields are plain JSON data is written
 * without pino ({@link humanLine}): the `lock acquired` line of every `migrate` then costs no
 * logger start-up. Every message and string field goes through {@link scrubLogText}: no
 * credential reaches the log.
 */

/** Level names of the spec, lowest first. */
export const LOG_LEVELS = { trace: 5, debug: 10, info: 20, warning: 30, error: 40, critical: 50 } as const;
export type LogLevelName = keyof typeof LOG_LEVELS;
export type LogFields = Record<string, unknown>;

/** Where formatted lines go; tests pass their own to capture records. */
export interface LogSink {
  write(line: string): void;
}

export interface LoggingOptions {
  /** Name (`warning`, `WARNING`, `warn`) or number (5/10/20/30/40/50). Default `info`. */
  level?: LogLevelName | number | string;
  /** One JSON object per line. Default: `MTOOL_LOG_JSON=true`. */
  json?: boolean;
  /** Default: file descriptor 2, written synchronously so nothing is lost on exit. */
  sink?: LogSink;
}

export interface Logger {
  trace(message: string, fields?: LogFields): void;
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  critical(message: string, fields?: LogFields): void;
  /** True when a record of this level would be written (skip building costly messages). */
  isEnabled(level: LogLevelName): boolean;
  child(fields: { db_name?: string; db_type?: string }): Logger;
}

const LEVEL_BY_NUMBER = new Map<number, LogLevelName>(
  Object.entries(LOG_LEVELS).map(([name, value]) => [value, name as LogLevelName]),
);

/**
 * Parse `--debug-level` input: a level name (any case, `warn` accepted) or one of the numbers.
 * @returns the level name, or undefined when the input is not a level.
 */
export function parseLogLevel(input: string | number): LogLevelName | undefined {
  if (typeof input === 'number' || /^\d+$/.test(input.trim())) return LEVEL_BY_NUMBER.get(Number(input));
  const name = input.trim().toLowerCase();
  if (name === 'warn') return 'warning';
  return name in LOG_LEVELS ? (name as LogLevelName) : undefined;
}

type PinoModule = typeof import('pino');

interface State {
  level: LogLevelName;
  json: boolean;
  sink: LogSink | undefined;
  pino: PinoLogger<LogLevelName, true> | undefined;
  /** Where pino comes from; by default node_modules, see {@link usePino}. */
  loadPino: () => PinoModule;
}

const state: State = {
  level: 'info',
  json: process.env.MTOOL_LOG_JSON === 'true',
  sink: undefined,
  pino: undefined,
  // Loaded synchronously on first use: logging must work from sync code paths,
  // and commands that never log (`--version`) never load pino at all.
  loadPino: () => createRequire(import.meta.url)('pino') as PinoModule,
};

/**
 * Take pino from `load` (called on the first record that is written) instead of node_modules:
 * the CLI passes the copy bundled with it (src/main/startup/bundled-pino.ts), which loads in a
 * fraction of the time.
 */
export function usePino(load: () => PinoModule): void {
  state.loadPino = load;
  state.pino = undefined;
}

/**
 * Set level and format. Called by the CLI once options are parsed; later calls replace
 * the earlier settings (the underlying pino instance is rebuilt on the next record).
 * @example configureLogging({ level: 'debug', json: true })
 */
export function configureLogging(options: LoggingOptions): void {
  if (options.level !== undefined) {
    const level = parseLogLevel(options.level);
    if (level === undefined) throw new TypeError(`unknown log level ${String(options.level)}`);
    state.level = level;
  }
  if (options.json !== undefined) state.json = options.json;
  if ('sink' in options) state.sink = options.sink;
  state.pino = undefined;
}

/** Current settings (read by the CLI to decide whether to print stack traces). */
export function loggingSettings(): { level: LogLevelName; json: boolean } {
  return { level: state.level, json: state.json };
}

/** `2026-11-21T08:30:00.123456Z`: wall clock from the performance time origin, which carries sub-millisecond digits. */
export function isoTimestampMicros(epochMs: number = performance.timeOrigin + performance.now()): string {
  const whole = Math.floor(epochMs);
  const micros = Math.min(999, Math.floor((epochMs - whole) * 1000));
  return `${new Date(whole).toISOString().slice(0, -1)}${String(micros).padStart(3, '0')}Z`;
}

const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s'"<>`]+/gi;
const ASSIGNMENT = /\b([A-Za-z_][\w-]*)(\s*=\s*)("[^"]*"|'[^']*'|[^\s,;&]+)/g;
const knownSecrets = new Set<string>();

/**
 * Remember secrets (passwords of configured URLs, from `urlSecrets`) so that every later log
 * line and CLI error hides them even where they appear outside a URL, as in driver messages.
 */
export function registerSecrets(secrets: Iterable<string>): void {
  for (const secret of secrets) if (secret.length >= 3) knownSecrets.add(secret);
}

/**
 * Mask credentials in free text: every URL goes through `maskUrl`, `password=...`-style pairs (`=` only: `key: id` in a message is not a secret)
 * lose their value, password literals of SQL (`PASSWORD '***'`, `IDENTIFIED BY '***'`: statements in
 * `--perf` and trace lines, driver messages quoting them) are masked, and registered secrets (raw or
 * percent-encoded) are replaced by `***`. Used on every log message and field and on CLI error messages.
 */
export function scrubLogText(text: string): string {
  const masked = maskSqlSecrets(text)
    .replace(URL_IN_TEXT, (url) => maskUrl(url))
    .replace(ASSIGNMENT, (all, name: string, sep: string) => (isSecretOptionName(name) ? `${name}${sep}***` : all));
  return knownSecrets.size === 0 ? masked : scrubSecrets(masked, [...knownSecrets]);
}

function scrubValue(value: unknown): unknown {
  if (typeof value === 'string') return scrubLogText(value);
  if (value instanceof Error) return scrubLogText(value.stack ?? `${value.name}: ${value.message}`);
  return value;
}

const LEVEL_LABEL: Record<LogLevelName, string> = {
  trace: 'TRACE',
  debug: 'DEBUG',
  info: 'INFO',
  warning: 'WARNING',
  error: 'ERROR',
  critical: 'CRITICAL',
};

/** How long a record waits before it tries a full stderr pipe again. */
const FULL_PIPE_WAIT_MS = 2;
const fullPipeWait = new Int32Array(new SharedArrayBuffer(4));

const stderrSink: LogSink = {
  write(line) {
    const bytes = Buffer.from(line, 'utf8');
    let done = 0;
    while (done < bytes.length) {
      try {
        done += writeSync(2, bytes, done);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        // Standard error turns non-blocking once anything builds `process.stderr` (loading pino
        // does: sonic-boom loads node:assert): a full pipe, a reader slower than the run
        // (`mtool migrate 2>&1 | tee log`), then answers EAGAIN. Wait for the reader as a
        // blocking pipe would, so that records stay whole, in order, and never fail the run.
        if (code === 'EAGAIN') {
          Atomics.wait(fullPipeWait, 0, 0, FULL_PIPE_WAIT_MS);
          continue;
        }
        // A terminal that went away (SIGHUP: EIO) or a reader that left (EPIPE) must not turn a log
        // line into a failure of the run, nor stop the cleanup after a signal: the line is dropped.
        if (code !== 'EIO' && code !== 'EPIPE') throw error;
        return;
      }
    }
  },
};

/** Human line: `INFO  [db/type] message key=value`, stack below it only at debug or lower. */
function formatHuman(level: unknown, message: unknown, db_name: unknown, db_type: unknown, exception: unknown, pairs: string): string {
  const where = db_name || db_type ? ` [${[db_name, db_type].filter(Boolean).join('/')}]` : '';
  let out = `${String(level).padEnd(5)}${where} ${String(message ?? '')}${pairs}\n`;
  if (typeof exception === 'string') {
    const verbose = LOG_LEVELS[state.level] <= LOG_LEVELS.debug;
    out += verbose ? `${exception.replace(/^/gm, '    ')}\n` : `    ${exception.split('\n')[0]}\n`;
  }
  return out;
}

/** ` key=value`: a string as it is, anything else as JSON. */
const pair = (key: string, value: unknown): string => ` ${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`;

/** The human form of pino's JSON lines. */
function humanSink(target: LogSink): LogSink {
  return {
    write(line: string) {
      const record = JSON.parse(line) as Record<string, unknown>;
      const { timestamp: _t, level, logger: _l, message, db_name, db_type, exception, ...extra } = record;
      const pairs = Object.entries(extra)
        .map(([k, v]) => pair(k, v))
        .join('');
      target.write(formatHuman(level, message, db_name, db_type, exception, pairs));
    },
  };
}

/** The keys of pino's own JSON line: a record field of the same name would change what {@link humanSink} reads back. */
const PINO_KEYS = new Set(['level', 'timestamp', 'logger', 'message']);

/**
 * The line {@link humanSink} would write for this record, built without pino: each field as its
 * JSON reads back (what JSON leaves out is left out). Undefined when only pino can tell: a field
 * JSON cannot write (a bigint, a cycle), a field named like one of pino's keys, a database name
 * that is not text.
 */
function humanLine(level: LogLevelName, record: LogFields, message: string): string | undefined {
  const { db_name, db_type, exception, ...extra } = record;
  if ((db_name !== undefined && typeof db_name !== 'string') || (db_type !== undefined && typeof db_type !== 'string')) return undefined;
  let pairs = '';
  for (const key of Object.keys(extra)) {
    if (PINO_KEYS.has(key)) return undefined;
    let json: string | undefined;
    try {
      json = JSON.stringify(extra[key]);
    } catch {
      return undefined;
    }
    if (json !== undefined) pairs += pair(key, JSON.parse(json));
  }
  return formatHuman(LEVEL_LABEL[level], message, db_name, db_type, exception, pairs);
}

function pinoInstance(): PinoLogger<LogLevelName, true> {
  if (state.pino) return state.pino;
  const pino = state.loadPino();
  const target = state.sink ?? stderrSink;
  const destination = state.json ? target : humanSink(target);
  state.pino = pino.pino<LogLevelName, true>(
    {
      customLevels: LOG_LEVELS,
      useOnlyCustomLevels: true,
      // Filtering happens in emit(), so that logAlways() can pass records below the threshold.
      level: 'trace',
      base: { logger: 'mtool' },
      messageKey: 'message',
      timestamp: () => `,"timestamp":"${isoTimestampMicros()}"`,
      formatters: { level: (label) => ({ level: LEVEL_LABEL[label as LogLevelName] ?? label.toUpperCase() }) },
    },
    destination,
  );
  return state.pino;
}

function emit(bindings: { db_name?: string; db_type?: string }, level: LogLevelName, message: string, fields?: LogFields, always = false): void {
  if (!always && LOG_LEVELS[level] < LOG_LEVELS[state.level]) return;
  const record: LogFields = {};
  if (bindings.db_name !== undefined) record.db_name = bindings.db_name;
  if (bindings.db_type !== undefined) record.db_type = bindings.db_type;
  for (const [key, value] of Object.entries(fields ?? {})) {
    if (value === undefined) continue;
    // An Error under any key becomes the spec's `exception` field (its stack, scrubbed).
    if (value instanceof Error) record.exception = scrubValue(value);
    else record[key === 'err' || key === 'error' ? 'exception' : key] = scrubValue(value);
  }
  const text = scrubLogText(message);
  const line = state.json ? undefined : humanLine(level, record, text);
  if (line !== undefined) (state.sink ?? stderrSink).write(line);
  else pinoInstance()[level](record, text);
}

/**
 * Write one record whatever the level threshold: the CLI reports a command's final error this way
 * in JSON mode, so stderr stays one JSON object per line even under `--debug-level critical`.
 */
export function logAlways(level: LogLevelName, message: string, fields?: LogFields): void {
  emit({}, level, message, fields, true);
}

function makeLogger(bindings: { db_name?: string; db_type?: string }): Logger {
  return {
    trace: (m, f) => emit(bindings, 'trace', m, f),
    debug: (m, f) => emit(bindings, 'debug', m, f),
    info: (m, f) => emit(bindings, 'info', m, f),
    warn: (m, f) => emit(bindings, 'warning', m, f),
    error: (m, f) => emit(bindings, 'error', m, f),
    critical: (m, f) => emit(bindings, 'critical', m, f),
    isEnabled: (level) => LOG_LEVELS[level] >= LOG_LEVELS[state.level],
    child: (fields) => makeLogger({ ...bindings, ...fields }),
  };
}

/**
 * The process-wide logger.
 * @example logger.child({ db_name: 'app', db_type: 'postgresql' }).info('lock acquired in 3.1 ms')
 */
export const logger: Logger = makeLogger({});
