import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureParsed, loadMigrations } from '../../src/main/engine/load-migrations.js';
import { parseMigrationFile } from '../../src/parser/migration-file.js';

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
});
