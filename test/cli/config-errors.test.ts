import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runMtool, tempProject } from '../support/cli.js';
import { type DbFields, writeProject } from './helpers/project.js';

let project: Awaited<ReturnType<typeof tempProject>>;
beforeEach(async () => {
  project = await tempProject();
});
afterEach(async () => project.dispose());

const sqlite = (name: string, extra: DbFields = {}): DbFields => ({ databaseName: name, databaseType: 'sqlite', databaseUrl: `sqlite:///${name}.db`, ...extra });

/** Spec rule 6: every validation failure aborts the command before it runs, exit code 2. */
const CASES: { rule: string; databases: DbFields[]; files?: Record<string, string>; message: RegExp }[] = [
  {
    rule: 'no default database',
    databases: [sqlite('a', { modelPaths: ['models/a'] }), sqlite('b', { modelPaths: ['models/b'] })],
    message: /^error: No default database: set default: true on exactly one of a, b$/m,
  },
  {
    rule: 'two default databases',
    databases: [sqlite('a', { default: true, modelPaths: ['models/a'] }), sqlite('b', { default: true, modelPaths: ['models/b'] })],
    message: /^error: Several default databases: a, b all have default: true; keep it on exactly one$/m,
  },
  {
    rule: 'duplicate database name',
    databases: [sqlite('a', { default: true, modelPaths: ['models/a'] }), { ...sqlite('a', { modelPaths: ['models/b'] }), databaseUrl: 'sqlite:///other.db' }],
    message: /^error: Duplicate database_?[nN]ame 'a'$/m,
  },
  {
    rule: 'duplicate URL',
    databases: [
      { databaseName: 'a', default: true, databaseType: 'postgresql', databaseUrl: 'postgresql://u@127.0.0.1:5432/app', pgSchema: 'public', modelPaths: ['models/a'] },
      { databaseName: 'b', databaseType: 'postgresql', databaseUrl: 'postgresql://u@127.0.0.1:5432/app', pgSchema: 'public', modelPaths: ['models/b'] },
    ],
    message: /^error: Databases 'a' and 'b' have the same databaseUrl postgresql:\/\/u@127\.0\.0\.1:5432\/app; each database needs its own$/m,
  },
  {
    rule: 'duplicate physical target',
    databases: [
      { databaseName: 'a', default: true, databaseType: 'postgresql', databaseUrl: 'postgresql://alice@127.0.0.1:5432/app', pgSchema: 'public', modelPaths: ['models/a'] },
      { databaseName: 'b', databaseType: 'postgresql', databaseUrl: 'postgresql://bob@localhost:5432/app', pgSchema: 'public', modelPaths: ['models/b'] },
    ],
    message: /^error: Databases 'a' and 'b' reach the same physical database \(.*\) with different URLs; each database needs its own target$/m,
  },
  {
    rule: 'missing modelPaths with several databases',
    databases: [sqlite('a', { default: true, modelPaths: ['models/a'] }), sqlite('b')],
    message: /^error: Missing modelPaths for 'b': with several databases every database needs modelPaths/m,
  },
  {
    rule: 'overlapping modelPaths',
    databases: [sqlite('a', { default: true, modelPaths: ['models'] }), sqlite('b', { modelPaths: ['models/billing'] })],
    files: { 'models/billing/invoice.ts': 'export {};\n' },
    message: /^error: Databases 'a' and 'b' have overlapping modelPaths.*Separate them, or set overlapModels: true on one of them$/m,
  },
];

describe('configuration validation through the binary', () => {
  it.each(CASES)('$rule: exit 2 and a message naming the problem', async ({ databases, files, message }) => {
    await writeProject(project.dir, databases, files);
    for (const args of [['settings', 'show'], ['new', 'x']]) {
      const result = await runMtool(args, { cwd: project.dir });
      expect(result.stderr).toMatch(message);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
    }
  });

  it('lets overlapModels permit overlapping modelPaths', async () => {
    await writeProject(project.dir, [sqlite('a', { default: true, modelPaths: ['models'], overlapModels: true }), sqlite('b', { modelPaths: ['models/billing'] })]);
    const result = await runMtool(['database', 'list', '--json'], { cwd: project.dir });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).databases.map((d: { database_name: string }) => d.database_name)).toEqual(['a', 'b']);
  });
});
