import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SCRIPT_CHUNK } from '../../src/main/startup/script-chunks.js';

/**
 * src/main/startup/script-chunks.ts: the CLI bundle's script chunks, run with V8's code cache,
 * their ES module imports loaded first and shared with `import()`. Each run is its own process
 * (caches are written at exit), driving tsc's build of the loader; `npm test` builds first.
 */
const built = new URL('../../dist/main/startup/script-chunks.js', import.meta.url);

/** A script chunk as scripts/bundle-cli.mjs writes one. */
const chunk = (header: { chunks: string[]; imports: string[] }, body: string): string => `${SCRIPT_CHUNK.marker}${JSON.stringify(header)}\n${SCRIPT_CHUNK.head}\n${body}${SCRIPT_CHUNK.tail}\n`;

describe.runIf(existsSync(built) || process.env.CI === 'true')('script chunks', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'mtool-chunks-'));
    await mkdir(join(dir, 'cli'));
    // A public module beside the bundle's folder, as dist/errors.js is beside dist/cli.
    await writeFile(join(dir, 'shared.js'), 'export const registry = [];\nexport default "shared default";\n');
    await writeFile(join(dir, 'package.json'), '{"type":"module"}\n');
    await writeFile(
      join(dir, 'cli', 'util.js'),
      chunk({ chunks: [], imports: ['../shared.js'] }, 'const shared = require("../shared.js");\nshared.registry.push("util");\nexports.twice = (n) => 2 * n;\n'),
    );
    await writeFile(
      join(dir, 'cli', 'main.js'),
      chunk(
        { chunks: ['./util.js'], imports: ['../shared.js'] },
        [
          'const util = require("./util.js");',
          'const shared = require("../shared.js");',
          'const path = require("node:path");',
          'exports.answer = () => util.twice(21);',
          'exports.defaultOf = () => shared.default;',
          'exports.url = __mtoolMeta.url;',
          'exports.sep = path.sep;',
          'exports.later = () => __load("./later.js");',
          'exports.registry = shared.registry;',
        ].join('\n'),
      ),
    );
    await writeFile(join(dir, 'cli', 'later.js'), chunk({ chunks: [], imports: [] }, 'exports.value = "later";\n'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  function run(): Record<string, unknown> {
    const main = join(dir, 'cli', 'main.js');
    const script = `
      const { importChunk, chunkCodeCacheUse } = await import(${JSON.stringify(built.href)});
      const m = await importChunk(${JSON.stringify(main)});
      const shared = await import(${JSON.stringify(pathToFileURL(join(dir, 'shared.js')).href)});
      const later = await m.later();
      console.log(JSON.stringify({
        answer: m.answer(), defaultOf: m.defaultOf(), url: m.url, sep: m.sep, later: later.value,
        sameInstance: m.registry === shared.registry, registry: shared.registry,
        cache: chunkCodeCacheUse(${JSON.stringify(main)}),
      }));
    `;
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(result.status, result.stderr).toBe(0);
    return JSON.parse(result.stdout) as Record<string, unknown>;
  }

  it('runs a chunk with the chunks and ES modules it requires, sharing their instances with import()', () => {
    expect(run()).toEqual({
      answer: 42,
      defaultOf: 'shared default',
      url: pathToFileURL(join(dir, 'cli', 'main.js')).href,
      sep: '/',
      later: 'later',
      sameInstance: true,
      registry: ['util'],
      cache: 'missing',
    });
  });

  it('writes each chunk\'s code cache at exit and takes it in the next run', () => {
    run();
    const caches = readdirSync(join(dir, 'cli')).filter((name) => name.endsWith('.v8cache'));
    expect(caches.map((name) => name.split('.js.')[0]).sort()).toEqual(['later', 'main', 'util']);
    expect(run()).toEqual(expect.objectContaining({ answer: 42, cache: 'accepted' }));
  });

  it('names the copy in stack traces when the folder was copied with its caches (cp -a keeps size and time)', async () => {
    await writeFile(join(dir, 'cli', 'thrower.js'), chunk({ chunks: [], imports: [] }, 'exports.where = () => new Error("here").stack;\n'));
    const whereFrom = (root: string): string => {
      const script = `const { importChunk } = await import(${JSON.stringify(built.href)}); console.log((await importChunk(${JSON.stringify(join(root, 'cli', 'thrower.js'))})).where());`;
      const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
      expect(result.status, result.stderr).toBe(0);
      return result.stdout;
    };
    whereFrom(dir); // writes the cache
    const copy = `${dir}-copy`;
    try {
      expect(spawnSync('cp', ['-a', dir, copy]).status).toBe(0);
      const stack = whereFrom(copy);
      expect(stack).toContain(join(copy, 'cli', 'thrower.js'));
      expect(stack).not.toContain(`${join(dir, 'cli')}/`);
    } finally {
      await rm(copy, { recursive: true, force: true });
    }
  });

  it('imports a file that is not a script chunk as an ES module (tsc\'s output)', async () => {
    const plain = join(dir, 'cli', 'plain.js');
    await writeFile(plain, 'export const value = 7;\n');
    const script = `const { importChunk } = await import(${JSON.stringify(built.href)}); console.log((await importChunk(${JSON.stringify(plain)})).value);`;
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(result.stderr).toBe('');
    expect(result.stdout.trim()).toBe('7');
  });

  it('names the chunk and the module when a chunk requires one its first line does not list', async () => {
    const broken = join(dir, 'cli', 'broken.js');
    await writeFile(broken, chunk({ chunks: [], imports: [] }, 'require("../shared.js");\n'));
    const script = `const { importChunk } = await import(${JSON.stringify(built.href)}); await importChunk(${JSON.stringify(broken)});`;
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain(`${broken}: ../shared.js was not imported before the chunk ran`);
  });
});
