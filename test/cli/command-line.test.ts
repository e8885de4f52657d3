import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { isMtoolError } from '../../src/errors.js';
import { parseCommandLine, runCli } from '../../src/main/cli.js';
import { runMtool, tempProject } from '../support/cli.js';

/** The parse of one command line, flattened for comparison. */
async function parse(...argv: string[]) {
  const line = await parseCommandLine(argv);
  return { command: line.command?.name, globals: line.globals, help: line.help, version: line.version, ...(line.command && !line.help ? line.input() : {}) };
}

/** The usage error a command line is rejected with. */
async function rejection(...argv: string[]): Promise<string> {
  try {
    const line = await parseCommandLine(argv);
    line.input();
  } catch (error) {
    if (isMtoolError(error) && error.code === 'MTOOL_USAGE' && error.exitCode === 2) return error.message;
    throw error;
  }
  throw new Error(`accepted: ${JSON.stringify(argv)}`);
}

// sade writes help, version and its errors with console and ends the process with process.exit:
// none of that may happen from inside the parser, whatever the input.
let spies: { name: string; calls(): number }[] = [];
beforeEach(() => {
  const exit = vi.spyOn(process, 'exit').mockImplementation((code) => {
    throw new Error(`process.exit(${code}) called`);
  });
  const consoles = (['log', 'error', 'warn', 'info'] as const).map((name) => ({ name, spy: vi.spyOn(console, name).mockImplementation(() => undefined) }));
  spies = [{ name: 'process.exit', calls: () => exit.mock.calls.length }, ...consoles.map(({ name, spy }) => ({ name: `console.${name}`, calls: () => spy.mock.calls.length }))];
});
afterEach(() => {
  for (const { name, calls } of spies) expect(calls(), name).toBe(0);
  vi.restoreAllMocks();
});

describe('parseCommandLine (sade with the mtool pre-pass)', () => {
  it('reads a multi-word command, its positional argument and its options', async () => {
    expect(await parse('settings', 'show', 'app', '--all')).toMatchObject({ command: 'settings show', args: { name: 'app' }, options: { all: true } });
    expect(await parse('database', 'list')).toMatchObject({ command: 'database list', args: {}, options: {} });
  });

  it('accepts global options before the command, with their values, and after it', async () => {
    const before = await parse('--json', '--debug-level', 'error', 'status', '-d', 'app');
    expect(before).toMatchObject({ command: 'status', options: { database: 'app' }, globals: { json: true, debugLevel: 'error' } });
    const after = await parse('status', '-d', 'app', '--debug-level', 'error', '-j');
    expect(after.globals).toEqual(before.globals);
    expect(after.options).toEqual(before.options);
  });

  it('takes values written with = for long and short options', async () => {
    expect(await parse('new', 'x', '--type=ra', '--database=app')).toMatchObject({ options: { type: 'ra', database: 'app' } });
    expect(await parse('new', 'x', '-d=app', '-tra')).toMatchObject({ options: { type: 'ra', database: 'app' } });
    expect(await parse('--debug-level=trace', 'version')).toMatchObject({ globals: { debugLevel: 'trace' } });
    expect(await parse('new', 'x', '--database=a=b')).toMatchObject({ options: { database: 'a=b' } });
  });

  it('gives short groups their GNU meaning', async () => {
    expect(await parse('migrate', '-av', '-c3')).toMatchObject({ options: { all: true, verbose: true, count: '3' } });
    expect(await parse('migrate', '-avc', '3')).toMatchObject({ options: { all: true, verbose: true, count: '3' } });
  });

  it("keeps a command's own -v and --version apart from sade's version flag", async () => {
    expect(await parse('migrate', '-v')).toMatchObject({ command: 'migrate', version: false, options: { verbose: true } });
    expect(await parse('new', 'x', '--version', '0007')).toMatchObject({ version: false, args: { description: 'x' }, options: { version: '0007' } });
    expect(await parse('status', '--version')).toMatchObject({ command: 'status', version: true });
    expect(await parse('--version')).toMatchObject({ command: undefined, version: true });
  });

  it('answers --help and -h for mtool and for a command', async () => {
    expect(await parse('-h')).toMatchObject({ command: undefined, help: true });
    expect(await parse('migrate', '-vh')).toMatchObject({ command: 'migrate', help: true });
    expect(await parse('settings', 'show', '--help')).toMatchObject({ command: 'settings show', help: true });
  });

  it('keeps positional arguments as given: after --, after a boolean flag, with leading zeros', async () => {
    expect(await parse('new', '--', '--json')).toMatchObject({ args: { description: '--json' }, globals: { json: false } });
    expect(await parse('new', '--json', '0001')).toMatchObject({ args: { description: '0001' }, globals: { json: true } });
    expect(await parse('snapshot', '--dev', '-', '--json')).toMatchObject({ args: { table: '-' }, globals: { dev: true, json: true } });
  });

  it('lets the last of a repeated option win and --no-<flag> turn a flag off', async () => {
    expect(await parse('status', '-d', 'a', '--database', 'b')).toMatchObject({ options: { database: 'b' } });
    expect(await parse('version', '--json', '--no-json')).toMatchObject({ globals: { json: false } });
  });

  it('forwards what a pass-through command does not know, unparsed', async () => {
    expect(await parse('seed', 'apply', '--all', '-v', 'x', '--json')).toMatchObject({
      command: 'seed',
      args: { subcommand: ['apply', '--all', '-v', 'x'] },
      globals: { json: true },
    });
  });

  it.each([
    [['version', '--verbose'], "Unknown option '--verbose'"],
    [['version', '-x'], "Unknown option '-x'"],
    [['version', '-v'], "Unknown option '-v'"],
    [['version', '--h'], "Unknown option '--h'"],
    [['version', '---help'], "Unknown option '---help'"],
    [['version', '--mtool-own-version', '1'], "Unknown option '--mtool-own-version'"],
    [['version', '--no-help'], "Unknown option '--no-help'"],
    [['status', '--constructor'], "Unknown option '--constructor'"],
    [['status', '--no-__proto__'], "Unknown option '--no-__proto__'"],
    [['status', '--no-toString'], "Unknown option '--no-toString'"],
    [['status', '--no-database'], "option '--database' needs a value"],
    [['--bogus', 'status'], "Unknown option '--bogus'"],
    [['--bogus'], "Unknown option '--bogus'"],
    [['status', '--database'], "option '--database' needs a value"],
    [['status', '--database', '--all'], "option '--database' needs a value"],
    [['status', '--database='], "option '--database' needs a value"],
    [['status', '-d'], "option '-d' needs a value"],
    [['version', '--json=yes'], "option '--json' takes no value"],
    [['new'], 'missing argument <description>'],
    [['new', '--', ], 'missing argument <description>'],
    [['snapshot', '-d', 'app'], 'missing argument <table>'],
    [['version', 'now'], "unexpected argument 'now'"],
    [['settings', 'show', 'a', 'b'], "unexpected argument 'b'"],
    [['settings', 'list'], "unknown command 'settings list'; did you mean: settings show"],
    [['settings'], "unknown command 'settings'; did you mean: settings show"],
    [['database', 'drop'], "unknown command 'database drop'; did you mean: database list"],
    [['constructor'], "unknown command 'constructor'"],
    [['__all__'], "unknown command '__all__'"],
    [['--', 'version'], "no command before '--'"],
    [['new', 'x', '--type', 'sometimes'], "--type 'sometimes' is not allowed"],
  ])('rejects %j with a usage error (exit 2)', async (argv, message) => {
    expect(await rejection(...argv)).toContain(message);
  });

  it('never prints, exits or throws anything but a usage error, for any mix of tricky tokens', async () => {
    const token = fc.constantFrom(
      'status', 'settings', 'show', 'database', 'list', 'new', 'migrate', 'seed', 'version', 'x', '0001', '-', '--', '---', '--=',
      '-h', '-v', '-hv', '-j', '-a', '-d', '-dx', '-d=', '-c3', '-x', '--help', '--version', '--version=1', '--json', '--json=1',
      '--no-json', '--no-help', '--no-version', '--database', '--database=', '--debug-level', '--debug-level=5', '--h', '--v',
      '--mtool-own-version', '--constructor', '--no-constructor', '--toString=1', '--__proto__', 'constructor', '__proto__',
      '__all__', '__default__', '-=', '--no-h', '--no-v', '--no-mtool-own-version',
    );
    await fc.assert(
      fc.asyncProperty(fc.array(token, { maxLength: 7 }), async (argv) => {
        try {
          const line = await parseCommandLine(argv);
          if (line.command && !line.help) line.input();
        } catch (error) {
          if (!isMtoolError(error) || error.code !== 'MTOOL_USAGE') throw error;
        }
      }),
      { numRuns: 400 },
    );
  });
});

describe('why the pre-pass exists (sade on its own)', () => {
  it('prints its version for a -v that means --verbose, and exits 1 on a global option before the command', async () => {
    const { default: sade } = await import('sade');
    const program = () => sade('mtool').option('--json').command('migrate').option('-v, --verbose').action(() => undefined);
    program().parse(['node', 'mtool', 'migrate', '-v'], { lazy: true });
    expect(console.log).toHaveBeenCalledWith('mtool, 0.0.0');
    expect(() => program().parse(['node', 'mtool', '--json', 'migrate'], { lazy: true })).toThrow('process.exit(1) called');
    expect(console.error).toHaveBeenCalledWith(expect.stringContaining('No command specified.'));
    vi.clearAllMocks(); // the calls above were the point; afterEach checks the other tests
  });
});

describe('runCli writes only to its own streams', () => {
  it('puts usage errors on the given stderr with exit code 2', async () => {
    let out = '';
    let err = '';
    const io = { stdout: { write: (t: string) => (out += t) }, stderr: { write: (t: string) => (err += t) }, cwd: process.cwd(), env: {} };
    expect(await runCli(['migrate', '-q'], io)).toBe(2);
    expect(err).toMatch(/^error: Unknown option '-q'\nhint: usage: mtool \[global options\] migrate \[options\]/);
    expect(out).toBe('');
  });
});

describe('the built binary', () => {
  let project: Awaited<ReturnType<typeof tempProject>>;
  beforeEach(async () => {
    project = await tempProject();
  });
  afterEach(async () => project.dispose());
  const mtool = (...args: string[]) => runMtool(args, { cwd: project.dir });

  it('exits 2 without printing help for odd input, and 0 for a valid line in odd spelling', async () => {
    for (const args of [['version', '-v'], ['settings', 'list'], ['status', '--database'], ['--', 'version']]) {
      const result = await mtool(...args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(/^error: /);
    }
    const ok = await mtool('-j', '--debug-level=error', 'version', '--no-json');
    expect(ok).toMatchObject({ code: 0, stderr: '' });
    expect(ok.stdout).toMatch(/^mtool \d+\.\d+\.\d+ \(node /);
  });
});
