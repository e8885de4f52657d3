import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/main/commands/index.js';
import { runMtool, tempProject } from '../support/cli.js';

let project: Awaited<ReturnType<typeof tempProject>>;
beforeEach(async () => {
  project = await tempProject();
});
afterEach(async () => project.dispose());

const mtool = (...args: string[]) => runMtool(args, { cwd: project.dir });

describe('mtool command line', () => {
  it('prints its version with --version and `version --json`', async () => {
    const { version } = (await import('../../package.json', { with: { type: 'json' } })).default as { version: string };
    const plain = await mtool('--version');
    expect(plain).toMatchObject({ code: 0, stdout: `mtool ${version}\n`, stderr: '' });
    const json = await mtool('version', '--json');
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({ name: 'mtool', version, node: process.versions.node });
  });

  it('lists every command in --help', async () => {
    const { code, stdout } = await mtool('--help');
    expect(code).toBe(0);
    for (const command of COMMANDS) expect(stdout).toContain(`  ${command.name}`);
    expect(stdout).toContain('--debug-level <level>');
  });

  it.each(COMMANDS.map((c) => c.name))('shows usage, options and an example for `%s --help`', async (name) => {
    const { code, stdout, stderr } = await mtool(...name.split(' '), '--help');
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toMatch(new RegExp(`^Usage: mtool \\[global options\\] ${name}`));
    expect(stdout).toMatch(/Examples:\n {2}\S/);
    expect(stdout).toContain('Global options:');
  });

  it('exits 2 with usage for an unknown command', async () => {
    const result = await mtool('migrat');
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error: unknown command 'migrat'\nhint: run `mtool --help`/);
    expect(result.stdout).toBe('');
  });

  it('suggests the subcommands of a known group', async () => {
    const result = await mtool('settings', 'list');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("unknown command 'settings list'; did you mean: settings show");
  });

  it.each(['settings', 'database'])('lists the commands of the group for `%s --help`', async (group) => {
    const { code, stdout, stderr } = await mtool(group, '--help');
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toMatch(new RegExp(`^Usage: mtool \\[global options\\] ${group} <command>`));
    const members = COMMANDS.filter((c) => c.name.startsWith(`${group} `));
    expect(members.length).toBeGreaterThan(0);
    for (const c of members) expect(stdout).toContain(`  ${c.name}  `);
    expect(stdout).toContain(`Run \`mtool ${members[0]!.name} --help\``);
  });

  it('exits 2 with the command usage for an unknown option', async () => {
    const result = await mtool('version', '--verbose');
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error: Unknown option '--verbose'/);
    expect(result.stderr).toContain('hint: usage: mtool [global options] version');
  });

  it('exits 2 for a missing argument, a bad choice and an extra argument', async () => {
    const missing = await mtool('new');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('error: missing argument <description>');
    const choice = await mtool('new', 'x', '--type', 'sometimes');
    expect(choice.code).toBe(2);
    expect(choice.stderr).toContain("--type 'sometimes' is not allowed; use one of: versioned, ra, runs_always, roc, runs_on_change");
    const extra = await mtool('version', 'now');
    expect(extra.code).toBe(2);
    expect(extra.stderr).toContain("error: unexpected argument 'now'");
  });

  it('exits 2 and prints help on stderr without a command', async () => {
    const result = await mtool();
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('Usage: mtool');
  });

  it('accepts global options before and after the command name', async () => {
    const before = await mtool('--json', 'version');
    const after = await mtool('version', '-j');
    const withValue = await mtool('--debug-level', 'error', 'version', '--dev');
    expect(JSON.parse(before.stdout)).toEqual(JSON.parse(after.stdout));
    expect(withValue).toMatchObject({ code: 0, stderr: '' });
    expect(withValue.stdout).toMatch(/^mtool \d+\.\d+\.\d+/);
  });

  it('exits 2 for a --debug-level that is not a level', async () => {
    const result = await mtool('--debug-level', '7', 'version');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--debug-level '7' is not a level");
    expect(result.stderr).not.toContain('    at ');
    // The message lists the levels; the list of commands would not help.
    expect(result.stderr).not.toContain('hint:');
  });

  it('exits 1 telling to install mtool-seeds for any seed subcommand', async () => {
    for (const args of [['seed'], ['seed', 'apply', '--all'], ['seed', 'list', '--database', 'app']]) {
      const result = await mtool(...args);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/^error: seed commands need the mtool-seeds plugin: run `npm install mtool-seeds`/);
    }
  });

  it('exits 2 with a configuration error when no configuration exists', async () => {
    const result = await mtool('settings', 'show');
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error: No mtool configuration found in .*run `mtool init`/);
    // The message says what to do; the general hint (fix mtool.config.ts) would point at no file.
    expect(result.stderr).not.toContain('hint: ');
  });

  it('takes a negative number as an option value, and refuses it as a count', async () => {
    for (const args of [['migrate', '--count', '-1'], ['rollback', '-c', '-2']]) {
      const result = await mtool(...args);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/^error: --count expects a positive whole number, got '-\d'/);
    }
  });

  it('prints stack traces only under --debug', async () => {
    const quiet = await mtool('settings', 'show');
    const loud = await mtool('settings', 'show', '--debug');
    expect(quiet.stderr).not.toMatch(/\n {4}at /);
    expect(loud.stderr).toMatch(/\n {4}at /);
    expect(loud.code).toBe(2);
  });
});
