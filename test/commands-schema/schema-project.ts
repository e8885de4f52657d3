/**
 * A temporary mtool project for the schema-command tests: one database, a migration, the built
 * binary run inside it, and a tsconfig that type-checks generated models against this repo's
 * `mtool/schema` sources.
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DatabaseType } from '../../src/dialects/types.js';
import { runMtool, type CliResult } from '../support/cli.js';

const REPO = fileURLToPath(new URL('../../', import.meta.url));

export class SchemaProject {
  private constructor(
    readonly dir: string,
    readonly name: string,
  ) {}

  static async create(type: DatabaseType, url: string, extra = ''): Promise<SchemaProject> {
    const dir = await mkdtemp(join(tmpdir(), 'mtool-schema-'));
    const project = new SchemaProject(dir, 'app');
    await writeFile(
      join(dir, 'mtool.config.ts'),
      `import { databaseConfig } from 'mtool';\ndatabaseConfig({ databaseName: 'app', default: true, databaseType: ${JSON.stringify(type)}, databaseUrl: ${JSON.stringify(url)}${extra ? `, ${extra}` : ''} });\n`,
    );
    await mkdir(join(dir, 'migrations', 'app'), { recursive: true });
    return project;
  }

  async migration(filename: string, upgrade: string, rollback = ''): Promise<void> {
    await writeFile(join(this.dir, 'migrations', 'app', filename), `-- upgrade\n${upgrade}\n-- rollback\n${rollback}\n`);
  }

  run(args: readonly string[]): Promise<CliResult> {
    return runMtool(args, { cwd: this.dir, timeoutMs: 120_000 });
  }

  /** Run and require exit 0. */
  async ok(args: readonly string[]): Promise<CliResult> {
    const r = await this.run(args);
    if (r.code !== 0) throw new Error(`mtool ${args.join(' ')} exited ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
    return r;
  }

  async json(args: readonly string[]): Promise<any> {
    const r = await this.ok([...args, '--json']);
    return JSON.parse(r.stdout);
  }

  read(path: string): Promise<string> {
    return readFile(join(this.dir, path), 'utf8');
  }

  write(path: string, text: string): Promise<void> {
    return writeFile(join(this.dir, path), text);
  }

  /**
   * Type-check the project's TypeScript (`models/**`) with tsc, `mtool/schema` mapped to this
   * repo's sources. Returns tsc's output; throws when it reports errors.
   */
  async typecheck(include: string[] = ['models/**/*.ts']): Promise<void> {
    await writeFile(join(this.dir, 'package.json'), JSON.stringify({ name: 'schema-test', type: 'module', private: true }));
    await writeFile(
      join(this.dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          baseUrl: '.',
          paths: { 'mtool/schema': [join(REPO, 'src/schema/index.ts')] },
          allowImportingTsExtensions: true,
          typeRoots: [join(REPO, 'node_modules/@types')],
          types: ['node'],
        },
        include,
      }),
    );
    const out = await new Promise<{ code: number | null; text: string }>((resolve, reject) => {
      const child = spawn(process.execPath, [join(REPO, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], { cwd: this.dir, stdio: ['ignore', 'pipe', 'pipe'] });
      let text = '';
      child.stdout.on('data', (d) => (text += d));
      child.stderr.on('data', (d) => (text += d));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, text }));
    });
    if (out.code !== 0) throw new Error(`tsc found errors in the generated models:\n${out.text}`);
  }

  dispose(): Promise<void> {
    return rm(this.dir, { recursive: true, force: true });
  }
}
