import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runMtool, tempProject } from '../support/cli.js';
import { writeProject } from './helpers/project.js';

let project: Awaited<ReturnType<typeof tempProject>>;
beforeEach(async () => {
  project = await tempProject();
  // A PostgreSQL entry without pgSchema makes loading log a WARNING with db_name and db_type;
  // nothing connects, so no server is needed.
  await writeProject(project.dir, [
    { databaseName: 'app', default: true, databaseType: 'postgresql', databaseUrl: 'postgresql://app@127.0.0.1:5432/app', modelPaths: ['models/app'] },
    { databaseName: 'local', databaseType: 'sqlite', databaseUrl: 'sqlite:///local.db', modelPaths: ['models/local'] },
  ]);
});
afterEach(async () => project.dispose());

const mtool = (args: string[], env: Record<string, string> = {}) => runMtool(args, { cwd: project.dir, env });

function jsonLines(stderr: string): Record<string, unknown>[] {
  const lines = stderr.split('\n').filter((l) => l !== '');
  return lines.map((line) => {
    try {
      return JSON.parse(line) as Record<string, unknown>;
    } catch {
      throw new Error(`stderr line is not JSON: ${line}`);
    }
  });
}

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const ALLOWED_KEYS = ['timestamp', 'level', 'logger', 'message', 'db_name', 'db_type', 'exception', 'code', 'exit_code', 'hint'];

describe('log records', () => {
  it('are one JSON object per stderr line under MTOOL_LOG_JSON=true, with the spec fields', async () => {
    const result = await mtool(['new', 'x', '--debug'], { MTOOL_LOG_JSON: 'true' });
    expect(result.code).toBe(0);
    const records = jsonLines(result.stderr);
    expect(records.length).toBeGreaterThanOrEqual(2);
    for (const record of records) {
      expect(record.timestamp).toMatch(TIMESTAMP);
      expect(Math.abs(Date.parse(String(record.timestamp)) - Date.now())).toBeLessThan(60_000);
      expect(['TRACE', 'DEBUG', 'INFO', 'WARNING', 'ERROR', 'CRITICAL']).toContain(record.level);
      expect(record.logger).toBe('mtool');
      expect(typeof record.message).toBe('string');
      for (const key of Object.keys(record)) expect(ALLOWED_KEYS).toContain(key);
    }
    expect(records).toContainEqual(expect.objectContaining({ level: 'WARNING', db_name: 'app', db_type: 'postgresql', message: expect.stringContaining('pgSchema is not set') }));
    expect(records).toContainEqual(expect.objectContaining({ level: 'DEBUG', db_name: 'app', message: 'created migration migrations/app/app__0001_x.sql' }));
  });

  it('are JSON under the global --json flag too, and human lines otherwise', async () => {
    const json = await mtool(['--json', 'database', 'list']);
    expect(jsonLines(json.stderr)[0]).toMatchObject({ level: 'WARNING', db_name: 'app' });
    expect(JSON.parse(json.stdout).databases).toHaveLength(2);
    const human = await mtool(['database', 'list']);
    expect(human.stderr).toMatch(/^WARNING \[app\/postgresql\] Database 'app': pgSchema is not set/m);
  });

  it('report a failing command as one ERROR record in JSON mode', async () => {
    const result = await mtool(['new', 'x', '--database', 'nope'], { MTOOL_LOG_JSON: 'true' });
    expect(result.code).toBe(2);
    const records = jsonLines(result.stderr);
    expect(records.at(-1)).toMatchObject({ level: 'ERROR', code: 'MTOOL_USAGE', exit_code: 2, message: expect.stringContaining("Unknown database 'nope'") });
  });

  it('follow --debug-level over --debug, by name or number', async () => {
    const debugOnly = jsonLines((await mtool(['new', 'a', '--debug'], { MTOOL_LOG_JSON: 'true' })).stderr);
    expect(debugOnly.some((r) => r.level === 'DEBUG')).toBe(true);

    const levelWins = jsonLines((await mtool(['new', 'b', '--debug', '--debug-level', 'error'], { MTOOL_LOG_JSON: 'true' })).stderr);
    expect(levelWins).toEqual([]);

    const numeric = jsonLines((await mtool(['--debug-level', '10', 'new', 'c'], { MTOOL_LOG_JSON: 'true' })).stderr);
    expect(numeric.some((r) => r.level === 'DEBUG')).toBe(true);

    const warningNumber = jsonLines((await mtool(['new', 'd', '--debug-level=30'], { MTOOL_LOG_JSON: 'true' })).stderr);
    expect(warningNumber.map((r) => r.level)).toEqual(['WARNING']);

    const defaultLevel = jsonLines((await mtool(['new', 'e'], { MTOOL_LOG_JSON: 'true' })).stderr);
    expect(defaultLevel.map((r) => r.level)).toEqual(['WARNING']);
  });
});
