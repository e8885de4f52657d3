import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { VENDOR_WRAPPER } from '../../src/main/startup/vendor.js';

/**
 * src/main/startup/vendor.ts: wrapped CommonJS files run with V8's code cache, written at exit
 * beside the file. Each run is its own process (the cache is written when a process exits), driving tsc's
 * build of the module; `npm test` builds first.
 */
const built = new URL('../../dist/main/startup/vendor.js', import.meta.url);

/** What one process saw: the module's answer and what became of the code cache. */
interface Run {
  answer: unknown;
  cache: string;
}

function run(file: string): Run {
  const script = `
    const { runCachedCommonJs, codeCacheUse } = await import(${JSON.stringify(built.href)});
    const answer = runCachedCommonJs(${JSON.stringify(file)}).answer();
    console.log(JSON.stringify({ answer, cache: codeCacheUse(${JSON.stringify(file)}) }));
  `;
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  expect(result.status, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as Run;
}

/** A CommonJS body inside Node's module wrapper, as the bundle writes vendor files. */
const wrapped = (body: string): string => `${VENDOR_WRAPPER.head}${body}${VENDOR_WRAPPER.tail}\n`;

const caches = (dir: string): string[] => readdirSync(dir).filter((name) => name.endsWith('.v8cache'));

describe.runIf(existsSync(built) || process.env.CI === 'true')('vendor files with a code cache', () => {
  let dir: string;
  let file: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'mtool-vendor-'));
    file = join(dir, 'vendor-demo-ABC.cjs');
    await writeFile(file, wrapped("const path = require('node:path');\nexports.answer = () => ({ value: 6 * 7, sep: path.sep, file: __filename, dir: __dirname });\n"));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('runs the file as CommonJS, writes its cache at exit, and takes that cache in the next run', () => {
    const first = run(file);
    expect(first).toEqual({ answer: { value: 42, sep: '/', file, dir }, cache: 'missing' });
    expect(caches(dir)).toHaveLength(1);
    const cache = readFileSync(join(dir, caches(dir)[0]));
    const second = run(file);
    expect(second).toEqual({ answer: first.answer, cache: 'accepted' });
    // A run that took the cache leaves it as it was; no temporary files stay behind.
    expect(readFileSync(join(dir, caches(dir)[0]))).toEqual(cache);
    expect(readdirSync(dir).sort()).toEqual(['vendor-demo-ABC.cjs', caches(dir)[0]].sort());
  });

  it('compiles without a damaged cache, and replaces it with a good one', async () => {
    run(file);
    const [name] = caches(dir);
    await writeFile(join(dir, name), Buffer.from('not a V8 code cache'));
    expect(run(file)).toEqual({ answer: expect.objectContaining({ value: 42 }), cache: 'rejected' });
    expect(run(file)).toEqual({ answer: expect.objectContaining({ value: 42 }), cache: 'accepted' });
  });

  it('never uses the cache of an earlier content of the file (another size or time, another cache name)', async () => {
    run(file);
    const before = caches(dir);
    // Same length, different code: V8 alone would take the old cache (it checks the source length).
    await writeFile(file, wrapped("const path = require('node:path');\nexports.answer = () => ({ value: 6 + 7, sep: path.sep, file: __filename, dir: __dirname });\n"));
    await utimes(file, new Date(), new Date(Date.now() + 5000));
    expect(run(file)).toEqual({ answer: expect.objectContaining({ value: 13 }), cache: 'missing' });
    expect(caches(dir)).toHaveLength(2);
    expect(caches(dir)).toEqual(expect.arrayContaining(before));
  });

  it('refuses a file that is not wrapped, naming it', async () => {
    const plain = join(dir, 'plain.cjs');
    await writeFile(plain, 'exports.answer = () => 42;\n');
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', `(await import(${JSON.stringify(built.href)})).runCachedCommonJs(${JSON.stringify(plain)})`], { encoding: 'utf8' });
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain(`${plain} is not a vendor file of the CLI bundle`);
  });

  it('runs normally where the cache cannot be written', async () => {
    // A folder in the cache file's place makes the write fail (permissions would not stop root).
    run(file);
    const [name] = caches(dir);
    await rm(join(dir, name));
    await mkdir(join(dir, name));
    const runs = [run(file), run(file)];
    expect(runs).toEqual([
      { answer: expect.objectContaining({ value: 42 }), cache: 'missing' },
      { answer: expect.objectContaining({ value: 42 }), cache: 'missing' },
    ]);
    expect(readdirSync(dir).filter((entry) => entry.endsWith('.tmp'))).toEqual([]);
  });
});
