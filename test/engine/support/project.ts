import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll } from 'vitest';
import type { DatabaseType } from '../../../src/dialects/types.js';
import { runMtool, type CliResult } from '../../support/cli.js';
import { provision, type EngineTarget, type ProvisionedDatabase } from './targets.js';

export interface ProjectDatabase {
  name: string;
  type: DatabaseType;
  url: string;
  default?: boolean;
  skipIfMissing?: boolean;
  migrationTable?: string;
}

/** A temporary mtool project: config file, migration folders, and the built binary run inside it. */
export class TestProject {
  readonly dir: string;
  readonly databases: ProjectDatabase[];

  private constructor(dir: string, databases: ProjectDatabase[]) {
    this.dir = dir;
    this.databases = databases;
  }

  static async create(databases: ProjectDatabase[]): Promise<TestProject> {
    const dir = await mkdtemp(join(tmpdir(), 'mtool-engine-'));
    const project = new TestProject(dir, databases);
    const entries = databases.map((db, i) => {
      const fields = [
        `databaseName: ${JSON.stringify(db.name)}`,
        `default: ${db.default ?? i === 0}`,
        `databaseType: ${JSON.stringify(db.type)}`,
        `databaseUrl: ${JSON.stringify(db.url)}`,
        ...(databases.length > 1 ? [`modelPaths: [${JSON.stringify(`models/${db.name}`)}]`] : []),
        ...(db.skipIfMissing ? ['skipIfMissing: true'] : []),
        ...(db.migrationTable ? [`migrationTable: ${JSON.stringify(db.migrationTable)}`] : []),
      ];
      return `databaseConfig({ ${fields.join(', ')} });`;
    });
    await writeFile(join(dir, 'mtool.config.ts'), `import { databaseConfig } from 'mtool';\n\n${entries.join('\n')}\n`);
    for (const db of databases) await mkdir(join(dir, 'migrations', db.name), { recursive: true });
    return project;
  }

  /** Path of a migration file of a database (the first one by default). */
  path(filename: string, database = this.databases[0].name): string {
    return join(this.dir, 'migrations', database, filename);
  }

  async write(filename: string, content: string, database?: string): Promise<string> {
    await writeFile(this.path(filename, database), content);
    return createHash('sha256').update(content).digest('hex');
  }

  async read(filename: string, database?: string): Promise<string> {
    return readFile(this.path(filename, database), 'utf8');
  }

  async remove(filename: string, database?: string): Promise<void> {
    await rm(this.path(filename, database));
  }

  /** Run `mtool <args>` in the project. */
  run(args: readonly string[], env?: Record<string, string>): Promise<CliResult> {
    return runMtool(args, { cwd: this.dir, env, timeoutMs: 60_000 });
  }

  /** Run `mtool <args> --json` and parse stdout. */
  async json(args: readonly string[]): Promise<{ result: CliResult; data: any }> {
    const result = await this.run([...args, '--json']);
    let data: unknown;
    try {
      data = JSON.parse(result.stdout);
    } catch {
      throw new Error(`mtool ${args.join(' ')} --json printed no JSON (exit ${result.code}):\n${result.stdout}\n${result.stderr}`);
    }
    return { result, data };
  }

  dispose(): Promise<void> {
    return rm(this.dir, { recursive: true, force: true });
  }
}

/** A migration file body with both sections. */
export function migration(upgrade: string[], rollback?: string[], directives: string[] = []): string {
  const lines = [...directives.map((d) => `-- mtool: ${d}`), '-- upgrade', ...upgrade.map((s) => `${s};`)];
  if (rollback) lines.push('-- rollback', ...rollback.map((s) => `${s};`));
  return `${lines.join('\n')}\n`;
}

/**
 * Two migrations whose second fails only at COMMIT: `parent`/`child` with a DEFERRABLE INITIALLY
 * DEFERRED foreign key (PostgreSQL and SQLite), then an orphan child row.
 */
export const DEFERRED_ORPHAN: Readonly<Record<string, string>> = {
  'app__0001_schema.sql': migration([
    'CREATE TABLE parent (id integer primary key)',
    'CREATE TABLE child (id integer primary key, parent_id integer REFERENCES parent (id) DEFERRABLE INITIALLY DEFERRED)',
  ]),
  'app__0002_orphan.sql': migration(['INSERT INTO child VALUES (1, 42)']),
};

/** Message for failed expectations: the whole CLI result. */
export function explain(result: CliResult): string {
  return `exit ${result.code}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`;
}

/**
 * For the enclosing describe block: a fresh database of `target` and a project whose database
 * `app` uses it (at the URL `url` makes of the database's, when given), both removed after the block.
 */
export function projectOn(target: EngineTarget, url: (db: ProvisionedDatabase) => string | Promise<string> = (db) => db.url): { readonly db: ProvisionedDatabase; readonly project: TestProject } {
  let db: ProvisionedDatabase | undefined;
  let project: TestProject | undefined;
  beforeAll(async () => {
    db = await provision(target);
    project = await TestProject.create([{ name: 'app', type: target.type, url: await url(db) }]);
  });
  afterAll(async () => {
    await project?.dispose();
    await db?.drop();
  });
  return {
    get db() {
      return db!;
    },
    get project() {
      return project!;
    },
  };
}

/**
 * For each test of the enclosing block that calls `create`: a fresh database of `target` and a
 * project whose database `app` uses it (at the URL `url` makes of the database's, when given),
 * both removed after the test.
 */
export function projectPerTest(target: EngineTarget): { create(url?: (db: ProvisionedDatabase) => string): Promise<TestProject>; readonly db: ProvisionedDatabase } {
  let db: ProvisionedDatabase | undefined;
  let project: TestProject | undefined;
  afterEach(async () => {
    await project?.dispose();
    await db?.drop();
    project = undefined;
    db = undefined;
  });
  return {
    async create(url = (created) => created.url) {
      db = await provision(target);
      project = await TestProject.create([{ name: 'app', type: target.type, url: url(db) }]);
      return project;
    },
    get db() {
      return db!;
    },
  };
}

/**
 * `projectOf(target, files)` for the tests of the enclosing block: a fresh database of the
 * target, a project whose database `app` uses it holding `files` (name to content), both removed
 * after the test; a test may make several.
 */
export function projectsPerTest(): (target: EngineTarget, files: Record<string, string>) => Promise<TestProject> {
  const made: { db: ProvisionedDatabase; project: TestProject }[] = [];
  afterEach(async () => {
    for (const { db, project } of made.splice(0)) {
      await project.dispose();
      await db.drop();
    }
  });
  return async (target, files) => {
    const db = await provision(target);
    const project = await TestProject.create([{ name: 'app', type: target.type, url: db.url }]);
    made.push({ db, project });
    for (const [name, content] of Object.entries(files)) await project.write(name, content);
    return project;
  };
}
