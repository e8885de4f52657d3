import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runMtool, tempProject } from '../support/cli.js';
import { serverStatus, useTestDatabase } from '../support/databases.js';
import { writeProject } from './helpers/project.js';

/** The README's claims checked by running the commands it describes (SQLite: no server needed). */

const pg = await serverStatus('postgresql');

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const SRC = new URL('../../src/', import.meta.url);

let project: Awaited<ReturnType<typeof tempProject>>;
beforeEach(async () => {
  project = await tempProject('mtool-readme-');
});
afterEach(async () => project.dispose());

const mtool = (...args: string[]) => runMtool(args, { cwd: project.dir });

/** The command names `mtool --help` lists (`settings show`, `database list` as two words). */
async function listedCommands(): Promise<string[]> {
  const help = await mtool('--help');
  expect(help.code).toBe(0);
  const block = /\nCommands:\n([\s\S]*?)\n\n/.exec(help.stdout)?.[1] ?? '';
  return block.split('\n').map((line) => /^ {2}(\S+(?: (?:show|list))?) {2,}/.exec(line)?.[1] ?? '').filter(Boolean);
}

/** Long options (and short ones) of one help block, e.g. the lines under `Options:` or `Global options:`. */
function optionsOf(help: string, heading: string): string[] {
  const block = new RegExp(`\\n${heading}[^\\n]*:\\n([\\s\\S]*?)(?:\\n\\n|$)`).exec(help)?.[1] ?? '';
  return block.split('\n').flatMap((line) => /^\s+((?:-\w, )?--[\w-]+)/.exec(line)?.[1]?.split(', ') ?? []);
}

/** The spec's commands this release does not have: no help text or message may send a user to them. */
const ABSENT_COMMANDS = /(?<![\w-])(make-migrations|make-rollback|check-impact|diff)(?![\w-])/;

/** Every `.ts` file under src/, as text. */
function sources(dir = SRC.pathname): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : name.endsWith('.ts') ? [readFileSync(path, 'utf8')] : [];
  });
}

describe('README: commands and their help', () => {
  it('the commands table names exactly the commands `mtool --help` lists', async () => {
    const listed = await listedCommands();
    const rows = README.split('\n').filter((line) => line.startsWith('| `mtool '));
    const inTable = rows.flatMap((row) =>
      [...row.split(' | ')[0]!.matchAll(/`mtool ([a-z-]+(?: (?:show|list))?)/g)].map((m) => m[1]!),
    );
    expect([...new Set(inTable)].sort()).toEqual([...listed].sort());
  });

  it("every option the commands table shows is one the command's --help lists", async () => {
    const rows = README.split('\n').filter((line) => line.startsWith('| `mtool '));
    for (const row of rows) {
      for (const cell of row.split(' | ')[0]!.matchAll(/`mtool ([a-z-]+(?: (?:show|list))?)([^`]*)`/g)) {
        const [, command, rest] = cell as unknown as [string, string, string];
        const shown = [...rest.matchAll(/(?<![\w-])(--?[a-z][\w-]*)/g)].map((m) => m[1]!);
        if (shown.length === 0) continue;
        const help = await mtool(...command.split(' '), '--help');
        expect(help.code, command).toBe(0);
        const accepted = optionsOf(help.stdout, 'Options');
        for (const option of shown) expect(accepted, `${command} ${option}`).toContain(option);
      }
    }
  });

  it('the global options the README lists are the ones --help lists, and work before or after the command', async () => {
    const help = await mtool('--help');
    const global = optionsOf(help.stdout, 'Global options').filter((o) => o.startsWith('--'));
    const line = /Global options work before or after the command:\n([\s\S]*?)\n\n/.exec(README)?.[1] ?? '';
    const inReadme = [...line.matchAll(/`(--[\w-]+)/g)].map((m) => m[1]!);
    expect([...new Set(inReadme)].sort()).toEqual([...global].sort());

    expect((await mtool('init')).code).toBe(0);
    const before = await mtool('--json', 'version');
    const after = await mtool('version', '-j');
    expect(JSON.parse(before.stdout)).toEqual(JSON.parse(after.stdout));
    const levels = /`--debug-level <([^>]+)>`/.exec(README)![1]!.split('|');
    expect(levels).toContain('trace');
    for (const level of levels) expect((await mtool('status', '--debug-level', level)).code, level).toBe(0);
    expect((await mtool('status', '--debug-level', '15')).code).toBe(2);
  });

  it('no help text sends the user to a command mtool does not have', async () => {
    const texts: Array<[string, string]> = [['mtool --help', (await mtool('--help')).stdout]];
    for (const command of await listedCommands()) texts.push([`mtool ${command} --help`, (await mtool(...command.split(' '), '--help')).stdout]);
    for (const [shown, text] of texts) expect(ABSENT_COMMANDS.exec(text)?.[0], shown).toBeUndefined();
    expect(ABSENT_COMMANDS.exec(README)?.[0], 'README').toBeUndefined();
  });
});

describe('README: mtool init', () => {
  it('keeps a configuration found by scanning and creates the folder of its default database, not a second config', async () => {
    await mkdir(join(project.dir, 'src'));
    await writeFile(
      join(project.dir, 'src', 'db.ts'),
      "import { databaseConfig } from 'mtool';\nexport const shop = databaseConfig({ databaseName: 'shop', default: true, databaseType: 'sqlite', databaseUrl: 'sqlite:///shop.db' });\n",
    );
    const init = await mtool('init');
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toMatch(/kept +src\/db\.ts/);
    expect(init.stdout).toMatch(/created +migrations\/shop\//);
    expect(existsSync(join(project.dir, 'mtool.config.ts'))).toBe(false);
    // Every later command still uses the user's configuration.
    const status = await mtool('status', '--json');
    expect(status.code, status.stderr).toBe(0);
    expect(Object.keys(JSON.parse(status.stdout).databases)).toEqual(['shop']);
  });

  it('refuses, rather than writes a root config over them, when several scanned files declare databases', async () => {
    for (const name of ['a', 'b']) {
      await mkdir(join(project.dir, name));
      await writeFile(
        join(project.dir, name, 'db.ts'),
        `import { databaseConfig } from 'mtool';\nexport const ${name} = databaseConfig({ databaseName: '${name}', default: true, databaseType: 'sqlite', databaseUrl: 'sqlite:///${name}.db' });\n`,
      );
    }
    const init = await mtool('init');
    expect(init.code).toBe(2);
    expect(init.stderr).toContain('Ambiguous configuration: several files declare databases: a/db.ts, b/db.ts');
    expect(existsSync(join(project.dir, 'mtool.config.ts'))).toBe(false);
  });
});

describe('README: the migration lock', () => {
  it('a command refused by a lock whose holder still runs on this host says so, as lock-status does', async () => {
    await writeProject(project.dir, [{ databaseName: 'app', default: true, databaseType: 'sqlite', databaseUrl: 'sqlite:///app.db' }], {
      'migrations/app/app__0001_t.sql': '-- upgrade\nCREATE TABLE t (x INTEGER);\n-- rollback\nDROP TABLE t;\n',
    });
    expect((await mtool('migrate')).code).toBe(0);
    await writeFile(join(project.dir, 'migrations/app/app__0002_u.sql'), '-- upgrade\nCREATE TABLE u (x INTEGER);\n-- rollback\nDROP TABLE u;\n');
    // The holder: this test's own process, a node process on this host that started before the lock.
    const db = new Database(join(project.dir, 'app.db'));
    db.prepare('INSERT INTO mtool_lock (id, locked_at, host, pid, command, token) VALUES (1, ?, ?, ?, ?, ?)').run(new Date().toISOString(), hostname(), process.pid, 'migrate', 'held-by-test');
    db.close();

    const status = await mtool('lock-status', '--json');
    expect(JSON.parse(status.stdout)).toMatchObject({ lock_active: true, holder_running: true });
    const refused = await mtool('migrate');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`Another migration may be running: its holder, process ${process.pid} (`);
    expect(refused.stderr).toContain('still runs on this host; wait for it to finish.');
    expect(refused.stderr).toContain('`mtool unlock --database app`');
  });
});

describe('README: messages and variables', () => {
  it('the warning for snapshots migrate could not write names no command mtool does not have', async () => {
    await writeProject(project.dir, [{ databaseName: 'app', default: true, databaseType: 'sqlite', databaseUrl: 'sqlite:///app.db' }], {
      'migrations/app/app__0001_t.sql': '-- upgrade\nCREATE TABLE t (x INTEGER);\n-- rollback\nDROP TABLE t;\n',
    });
    // A file where the snapshot folder belongs: the migration applies, its snapshot cannot be written.
    await mkdir(join(project.dir, '.mtool'), { recursive: true });
    await writeFile(join(project.dir, '.mtool', 'schemas'), '');
    const run = await mtool('migrate');
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain("schema snapshots of database 'app' not written to");
    expect(run.stderr).toContain('the next `migrate` that applies a migration writes a snapshot again.');
    expect(ABSENT_COMMANDS.exec(run.stderr)?.[0]).toBeUndefined();
  });

  it('every MTOOL_* variable the README says has an effect is one mtool reads', () => {
    const section = /## Environment variables\n([\s\S]*?)\n## /.exec(README)?.[1] ?? '';
    const rows = section.split('\n').filter((line) => line.startsWith('| `MTOOL_'));
    expect(rows.length).toBeGreaterThan(0);
    const code = sources().join('\n');
    for (const row of rows) {
      const name = /`(MTOOL_[A-Z_]+)/.exec(row)![1]!;
      if (row.includes('(no effect)')) expect(code, name).not.toMatch(new RegExp(`\\b${name}\\b`));
      else expect(code, name).toMatch(new RegExp(`\\b${name}\\b`));
    }
  });
});

describe.skipIf(!pg.reachable)('README: export-models and recover-model-state on PostgreSQL', () => {
  const db = useTestDatabase('postgresql');

  it('recover-model-state tells when the state was exported as ISO 8601 UTC, as every other time mtool prints', async () => {
    await writeProject(project.dir, [{ databaseName: 'app', default: true, databaseType: 'postgresql', databaseUrl: db.url, pgSchema: 'public', modelPaths: ['models'] }], {
      'models/users.ts': "import { table, col } from 'mtool/schema';\nexport const users = table('users', { id: col.bigint().primaryKey() });\n",
    });
    const exported = await mtool('export-models');
    expect(exported.code, exported.stderr).toBe(0);
    const text = await mtool('recover-model-state');
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/exported \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\) restored to \.mtool\/model_state\.json/);
    const json = await mtool('recover-model-state', '--json');
    expect(json.code, json.stderr).toBe(0);
    expect(json.stdout).toMatch(/"updated_at": "\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"/);
  });
});
