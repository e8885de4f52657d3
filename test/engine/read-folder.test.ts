import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import fc from 'fast-check';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureParsed, loadMigrations, parseAhead } from '../../src/main/engine/load-migrations.js';
import { parseMigrationFile, type MigrationFile } from '../../src/parser/migration-file.js';

/**
 * loadMigrations reads a folder's files into one growing buffer (readFolder): every file's
 * checksum and statements must be those of its own bytes, whatever the sizes around it: empty
 * files, files larger than the buffer's first size (64 KiB), a buffer that grows while a file is
 * being read.
 */
describe('loadMigrations on the main thread: one buffer for the whole folder', () => {
  let dir: string;
  const sizes = [0, 94, 70_000, 12, 200_000, 65_536, 1, 131_072, 500];
  const body = (i: number, size: number): string => {
    if (size === 0) return '';
    const head = `-- upgrade\nCREATE TABLE t_${i} (id integer);\n-- rollback\nDROP TABLE t_${i};\n`;
    return size <= head.length ? head.slice(0, size) : head + '-- '.padEnd(size - head.length - 1, String(i % 10)) + '\n';
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'mtool-read-folder-'));
    await Promise.all(sizes.map((size, i) => writeFile(join(dir, `app__${String(i + 1).padStart(4, '0')}_f.sql`), body(i, size))));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('gives each file the checksum and statements of its own bytes', async () => {
    const files = await loadMigrations(dir, { database: 'app', dialect: 'postgresql' });
    expect(files.map((f) => f.filename)).toEqual(sizes.map((_, i) => `app__${String(i + 1).padStart(4, '0')}_f.sql`));
    for (const file of files) {
      const bytes = await readFile(file.path);
      expect(file.checksum, file.filename).toBe(createHash('sha256').update(bytes).digest('hex'));
      if (bytes.length < 60) continue; // empty or cut short: not a whole migration
      const direct = parseMigrationFile({ filename: file.filename, path: file.path, content: bytes, database: 'app', dialect: 'postgresql' });
      expect(file.upgrade, file.filename).toEqual(direct.upgrade);
      expect(file.rollback, file.filename).toEqual(direct.rollback);
    }
    // A file cut short fails when parsed, naming it, as before.
    expect(() => ensureParsed([files[0]!])).toThrow(/app__0001_f\.sql/);
  });

  it('checksums the bytes of files that are not UTF-8, or hold a BOM, a replacement character or any other text', async () => {
    const head = Buffer.from('-- upgrade\nSELECT ');
    const tail = Buffer.from(';\n');
    const bodies = [
      Buffer.from([0xff, 0xfe, 0x41]), // not UTF-8
      Buffer.from([0xc3]), // a sequence cut short
      Buffer.from([0xc0, 0xaf]), // an overlong form
      Buffer.from([0xed, 0xa0, 0x80]), // an encoded surrogate
      Buffer.from('\uFFFD is a real character here', 'utf8'),
      Buffer.from('crème brûlée 🍮\r\n', 'utf8'),
      Buffer.alloc(0),
    ];
    const files = [Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), head, Buffer.from('1'), tail]), ...bodies.map((b) => Buffer.concat([head, b, tail]))];
    const folder = join(dir, 'bytes');
    await mkdir(folder);
    await Promise.all(files.map((bytes, i) => writeFile(join(folder, `app__${String(i + 1).padStart(4, '0')}_b.sql`), bytes)));
    const loaded = await loadMigrations(folder, { database: 'app', dialect: 'postgresql' });
    expect(loaded.map((f) => f.checksum)).toEqual(files.map((bytes) => createHash('sha256').update(bytes).digest('hex')));
    // Parsed (only when pending), a file that is not UTF-8 is refused, the same either way.
    const outcome = (parse: () => { upgrade: unknown }) => {
      try {
        return parse().upgrade;
      } catch (error) {
        return (error as Error).message;
      }
    };
    const refused: string[] = [];
    for (const [i, file] of loaded.entries()) {
      const direct = outcome(() => parseMigrationFile({ filename: file.filename, path: file.path, content: files[i]!, database: 'app', dialect: 'postgresql' }));
      expect(outcome(() => file), file.filename).toEqual(direct);
      if (typeof direct === 'string') refused.push(direct.replace(/^.*app__(\d+)_b\.sql:\d+: /, '$1: '));
    }
    expect(refused).toEqual(['0002', '0003', '0004', '0005'].map((v, i) => `${v}: byte 0x${['FF', 'C3', 'C0', 'ED'][i]} is not UTF-8: the file is in another encoding (Latin-1 or Windows-1252, say); save it as UTF-8`));
  });

  it('checksums any bytes as the bytes themselves (property)', async () => {
    const folder = join(dir, 'random');
    await mkdir(folder);
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(fc.uint8Array({ maxLength: 40 }), { minLength: 1, maxLength: 6 }), async (contents) => {
        const here = join(folder, String(run++));
        await mkdir(here);
        await Promise.all(contents.map((bytes, i) => writeFile(join(here, `app__${String(i + 1).padStart(4, '0')}_r.sql`), bytes)));
        const loaded = await loadMigrations(here, { database: 'app', dialect: 'postgresql' });
        expect(loaded.map((f) => f.checksum)).toEqual(contents.map((bytes) => createHash('sha256').update(bytes).digest('hex')));
      }),
      { numRuns: 150 },
    );
  });
});

/**
 * parseAhead (migrate parses files while it waits for the database) touches each file's
 * statements newest first, a slice at a time, stops when asked, and leaves a file that does not
 * parse for ensureParsed to report.
 */
describe('parseAhead', () => {
  /** Files whose statements take `ms` of the main thread each to produce, and that say when they were asked for. */
  const files = (count: number, ms: number, asked: number[], broken = -1): MigrationFile[] =>
    Array.from({ length: count }, (_, i) => ({
      get upgrade() {
        asked.push(i);
        const until = performance.now() + ms;
        while (performance.now() < until);
        if (i === broken) throw new Error(`file ${i} does not parse`);
        return [];
      },
    }) as unknown as MigrationFile);

  it('goes newest first, gives the event loop its turn between slices, and stops when asked', async () => {
    const asked: number[] = [];
    const stop = { stopped: false };
    // Runs only once parseAhead gives the event loop a turn (after its first slice of ~1 ms).
    setImmediate(() => (stop.stopped = true));
    await parseAhead(files(200, 0.1, asked), stop);
    expect(asked.length).toBeGreaterThan(0);
    expect(asked.length).toBeLessThan(200);
    expect(asked).toEqual(Array.from({ length: asked.length }, (_, k) => 199 - k));
  });

  it('parses every file when nothing stops it, and skips one that does not parse', async () => {
    const asked: number[] = [];
    await expect(parseAhead(files(50, 0, asked, 20), { stopped: false })).resolves.toBeUndefined();
    expect(asked).toEqual(Array.from({ length: 50 }, (_, k) => 49 - k));
  });
});
