import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isMtoolError } from '../../src/errors.js';

/**
 * The worker-pool path of the migration loader gives exactly what the main-thread path gives.
 * The pool runs the BUILT worker (dist/workers/parse-worker.js), so this test loads the built
 * loader; `npm test` builds first.
 */
const built = new URL('../../dist/main/engine/load-migrations.js', import.meta.url);

describe.runIf(existsSync(built) || process.env.CI === 'true')('loadMigrations: main thread and worker pool agree', () => {
  let dir: string;
  const NEVER = { files: Number.POSITIVE_INFINITY, bytes: Number.POSITIVE_INFINITY };
  const ALWAYS = { files: 0, bytes: 0, minCpus: 0 };
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'mtool-load-'));
    await mkdir(join(dir, 'ok'));
    for (let i = 1; i <= 600; i++) {
      const body = `-- upgrade\nCREATE TABLE t_${i} (id int, note text DEFAULT 'é;ü');\nINSERT INTO t_${i} VALUES (1, $$a;b$$);\n${i % 7 === 0 ? '' : `-- rollback\nDROP TABLE t_${i};\n`}`;
      await writeFile(join(dir, 'ok', `app__${String(i).padStart(4, '0')}_t.sql`), body);
    }
    await writeFile(join(dir, 'ok', 'RA__refresh.sql'), '-- mtool: no-transaction\n-- upgrade\nVACUUM;\n');
    await mkdir(join(dir, 'bad'));
    await writeFile(join(dir, 'bad', 'app__0001_ok.sql'), '-- upgrade\nSELECT 1;\n');
    await writeFile(join(dir, 'bad', 'app__0002_broken.sql'), "-- upgrade\nSELECT 'unterminated;\n");
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('returns the same files, statements and positions', async () => {
    const { loadMigrations } = await import(built.href);
    const options = { database: 'app', dialect: 'postgresql' };
    const main = await loadMigrations(join(dir, 'ok'), { ...options, threshold: NEVER });
    const pooled = await loadMigrations(join(dir, 'ok'), { ...options, threshold: ALWAYS });
    expect(main).toHaveLength(601);
    expect(pooled).toEqual(main);
    expect(main[6].rollback).toBeUndefined();
    expect(main[600].directives).toEqual(['no-transaction']);
  });

  it('keeps the error code and message of a malformed file (the main thread parses it on first use)', async () => {
    const { loadMigrations, ensureParsed } = await import(built.href);
    const options = { database: 'app', dialect: 'postgresql' };
    const errors = await Promise.all(
      [NEVER, ALWAYS].map((threshold) =>
        loadMigrations(join(dir, 'bad'), { ...options, threshold })
          .then((files: unknown[]) => ensureParsed(files))
          .catch((e: unknown) => e),
      ),
    );
    for (const error of errors) {
      expect(isMtoolError(error)).toBe(true);
      expect((error as { code: string }).code).toBe('MTOOL_SQL_SYNTAX');
      expect((error as Error).message).toContain('app__0002_broken.sql');
    }
    expect((errors[1] as Error).message).toBe((errors[0] as Error).message);
  });

  it('loads a folder holding a malformed file on both paths: its name and checksum known, its statements raising the error', async () => {
    const { loadMigrations } = await import(built.href);
    const options = { database: 'app', dialect: 'postgresql' };
    // An applied file that no longer parses must not stop a status or a migrate that does not run it.
    const [main, pooled] = await Promise.all([NEVER, ALWAYS].map((threshold) => loadMigrations(join(dir, 'bad'), { ...options, threshold })));
    for (const files of [main, pooled]) {
      expect(files.map((f: { filename: string }) => f.filename)).toEqual(['app__0001_ok.sql', 'app__0002_broken.sql']);
      expect(files[0].upgrade).toHaveLength(1);
      expect(() => files[1].upgrade).toThrow(/app__0002_broken\.sql/);
      expect(() => files[1].rollback).toThrow(/app__0002_broken\.sql/);
    }
    expect(pooled[1].checksum).toBe(main[1].checksum);
    expect(pooled[1].version).toBe('0002');
  });
});
