import { createRequire } from 'node:module';
import { afterEach, describe, expect, it } from 'vitest';
import { configureLogging, isoTimestampMicros, logAlways, logger, parseLogLevel, registerSecrets, scrubLogText, usePino } from '../../src/main/log.js';

const lines: string[] = [];
const sink = { write: (line: string) => void lines.push(line) };
function capture(level: string | number, json: boolean): void {
  lines.length = 0;
  configureLogging({ level, json, sink });
}
const records = () => lines.map((l) => JSON.parse(l) as Record<string, unknown>);

const nodeModulesPino = () => createRequire(import.meta.url)('pino') as typeof import('pino');
afterEach(() => {
  usePino(nodeModulesPino);
  configureLogging({ level: 'info', json: false, sink: undefined });
});

describe('logger', () => {
  it('maps names and numbers to the spec levels', () => {
    expect(['trace', 'DEBUG', 'info', 'warn', 'Warning', 'error', 'critical'].map((n) => parseLogLevel(n))).toEqual(['trace', 'debug', 'info', 'warning', 'warning', 'error', 'critical']);
    expect([5, '10', 20, '30', 40, 50].map((n) => parseLogLevel(n))).toEqual(['trace', 'debug', 'info', 'warning', 'error', 'critical']);
    expect(parseLogLevel('7')).toBeUndefined();
    expect(parseLogLevel('verbose')).toBeUndefined();
  });

  it('filters below the configured level and labels levels as the spec spells them', () => {
    capture('trace', true);
    logger.trace('t');
    logger.debug('d');
    logger.info('i');
    logger.warn('w');
    logger.error('e');
    logger.critical('c');
    expect(records().map((r) => r.level)).toEqual(['TRACE', 'DEBUG', 'INFO', 'WARNING', 'ERROR', 'CRITICAL']);
    capture(30, true);
    logger.info('hidden');
    logger.warn('shown');
    expect(records().map((r) => r.message)).toEqual(['shown']);
    expect(logger.isEnabled('info')).toBe(false);
    expect(logger.isEnabled('error')).toBe(true);
  });

  it('writes exactly the spec fields plus caller fields, nothing pino adds', () => {
    capture('info', true);
    logger.child({ db_name: 'app', db_type: 'postgresql' }).info('lock acquired in 3.1 ms', { duration_ms: 3.1 });
    const [record] = records();
    expect(Object.keys(record).sort()).toEqual(['db_name', 'db_type', 'duration_ms', 'level', 'logger', 'message', 'timestamp']);
    expect(record).toMatchObject({ level: 'INFO', logger: 'mtool', message: 'lock acquired in 3.1 ms', db_name: 'app', db_type: 'postgresql', duration_ms: 3.1 });
    expect(record.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
  });

  it('puts an error stack in `exception`', () => {
    capture('info', true);
    logger.error('migration failed', { error: new Error('boom') });
    expect(records()[0].exception).toMatch(/^Error: boom\n {4}at /);
  });

  it('formats human lines with the database and keeps stacks for debug level', () => {
    capture('info', false);
    logger.child({ db_name: 'app', db_type: 'postgresql' }).info('lock acquired in 3.1 ms');
    logger.warn('no database', { count: 2 });
    logger.error('failed', { error: new Error('boom') });
    expect(lines[0]).toBe('INFO  [app/postgresql] lock acquired in 3.1 ms\n');
    expect(lines[1]).toBe('WARNING no database count=2\n');
    expect(lines[2]).toBe('ERROR failed\n    Error: boom\n');
    capture('debug', false);
    logger.error('failed', { error: new Error('boom') });
    expect(lines[0]).toMatch(/^ERROR failed\n {4}Error: boom\n {8}at /);
  });

  it('masks URLs, secret assignments and registered secrets in messages and fields', () => {
    registerSecrets(['pa55-word']);
    capture('info', true);
    logger.info('connecting to postgresql://app:s%40cret@db:5432/app', { url: 'mysql://root:toor@127.0.0.1/x', dsn: 'host=db password=hunter2 user=app' });
    logger.info('driver said: password authentication failed (pa55-word)');
    const text = lines.join('');
    for (const secret of ['s%40cret', 'toor', 'hunter2', 'pa55-word']) expect(text).not.toContain(secret);
    expect(records()[0]).toMatchObject({ message: 'connecting to postgresql://app:***@db:5432/app', url: 'mysql://root:***@127.0.0.1/x', dsn: 'host=db password=*** user=app' });
    expect(scrubLogText('primary key: id')).toBe('primary key: id');
  });

  it('logAlways passes the level threshold', () => {
    capture('critical', true);
    logger.error('dropped');
    logAlways('error', 'kept');
    expect(records().map((r) => r.message)).toEqual(['kept']);
  });

  it('prints timestamps with six fraction digits in UTC', () => {
    expect(isoTimestampMicros(Date.UTC(2026, 10, 21, 8, 30, 0, 123) + 0.4567)).toBe('2026-11-21T08:30:00.123456Z');
    expect(isoTimestampMicros(Date.UTC(2026, 0, 1))).toBe('2026-01-01T00:00:00.000000Z');
  });

  it('loads pino from the source usePino names, only when the first record passes the level filter', () => {
    capture('warning', true);
    const loads: string[] = [];
    usePino(() => {
      loads.push('pino');
      return nodeModulesPino();
    });
    logger.info('filtered out');
    logger.debug('filtered out');
    expect(loads).toEqual([]);
    logger.warn('written');
    logger.error('written too');
    expect(loads).toEqual(['pino']);
    expect(records().map((r) => [r.level, r.message])).toEqual([
      ['WARNING', 'written'],
      ['ERROR', 'written too'],
    ]);
  });

  it('writes human lines of plain fields without loading pino, each field as its JSON reads back', () => {
    const loads: string[] = [];
    usePino(() => {
      loads.push('pino');
      return nodeModulesPino();
    });
    const fields = { count: 2, name: 'x y', list: [1, 'a'], when: new Date(0), nan: NaN, nothing: undefined, fn: () => 1, url: 'postgresql://app:s3cret@db/app' };
    capture('info', false);
    logger.child({ db_name: 'app', db_type: 'sqlite' }).info('lock acquired in 1.0 ms', fields);
    logger.error('failed', { error: new Error('boom') });
    expect(loads).toEqual([]);
    const human = 'INFO  [app/sqlite] lock acquired in 1.0 ms count=2 name=x y list=[1,"a"] when=1970-01-01T00:00:00.000Z nan=null url=postgresql://app:***@db/app\n';
    expect(lines).toEqual([human, 'ERROR failed\n    Error: boom\n']);
    // The same record through pino (JSON mode) reads back to the same fields.
    capture('info', true);
    logger.child({ db_name: 'app', db_type: 'sqlite' }).info('lock acquired in 1.0 ms', fields);
    expect(loads).toEqual(['pino']);
    const { timestamp: _t, level, logger: _l, message, db_name, db_type, ...extra } = records()[0];
    const pairs = Object.entries(extra).map(([k, v]) => ` ${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`);
    expect(`${String(level).padEnd(5)} [${String(db_name)}/${String(db_type)}] ${String(message)}${pairs.join('')}\n`).toBe(human);
  });

  it("leaves human records only pino can write to pino: a bigint, a field named like pino's keys", () => {
    const loads: string[] = [];
    usePino(() => {
      loads.push('pino');
      return nodeModulesPino();
    });
    capture('info', false);
    logger.info('big', { rows: 10n });
    expect(loads).toEqual(['pino']);
    expect(lines).toEqual(['INFO  big rows=10\n']);
    configureLogging({ json: false });
    usePino(() => {
      loads.push('pino again');
      return nodeModulesPino();
    });
    logger.warn('named like a pino key', { logger: 'x' });
    expect(loads).toEqual(['pino', 'pino again']);
    expect(lines[1]).toMatch(/ named like a pino key\n$/);
  });
});
