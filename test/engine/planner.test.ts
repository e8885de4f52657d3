import { describe, expect, it } from 'vitest';
import { ChecksumMismatchError, MtoolError } from '../../src/errors.js';
import type { MigrationFile } from '../../src/parser/migration-file.js';
import { parseMigrationFile } from '../../src/parser/migration-file.js';
import { missingAppliedWarning, planMigrate, planRollback, statusEntries, verifyApplied } from '../../src/main/engine/planner.js';
import type { MigrationRecord } from '../../src/main/engine/types.js';

const file = (filename: string, content = '-- upgrade\nSELECT 1;\n-- rollback\nSELECT 2;\n'): MigrationFile =>
  parseMigrationFile({ filename, path: `/m/app/${filename}`, content, database: 'app', dialect: 'postgresql' });

const applied = (f: MigrationFile, checksum = f.checksum): MigrationRecord => ({
  filename: f.filename,
  version: f.version ?? null,
  checksum,
  type: f.kind,
  description: f.description,
  appliedAt: '2026-01-01T00:00:00.000Z',
  executionMs: 1,
  appliedBy: 'me@host',
});

const v1 = file('app__0001_a.sql');
const v2 = file('app__0002_b.sql');
const v3 = file('V__0003_c.sql');
const ra = file('RA__views.sql');
const roc = file('ROC__grants.sql');

describe('planMigrate', () => {
  it('orders pending versioned files by version and puts repeatables after them', () => {
    const plan = planMigrate([ra, v2, roc, v1], [], 'app');
    expect(plan.versioned.map((f) => f.filename)).toEqual(['app__0001_a.sql', 'app__0002_b.sql']);
    expect(plan.repeatables.map((r) => r.file.filename)).toEqual(['RA__views.sql', 'ROC__grants.sql']);
  });

  it('runs RA files every time and ROC files only when new or changed', () => {
    const records = [applied(v1), applied(ra), applied(roc)];
    expect(planMigrate([v1, ra, roc], records, 'app').repeatables.map((r) => r.file.filename)).toEqual(['RA__views.sql']);
    const changed = [applied(v1), applied(ra), applied(roc, 'f'.repeat(64))];
    const plan = planMigrate([v1, ra, roc], changed, 'app');
    expect(plan.repeatables.map((r) => [r.file.filename, r.existing !== undefined])).toEqual([
      ['RA__views.sql', true],
      ['ROC__grants.sql', true],
    ]);
  });

  it('cuts the versioned list with --count and --to-version', () => {
    expect(planMigrate([v1, v2, v3], [], 'app', { count: 2 }).versioned.map((f) => f.version)).toEqual(['0001', '0002']);
    expect(planMigrate([v1, v2, v3], [], 'app', { toVersion: '0002' }).versioned.map((f) => f.version)).toEqual(['0001', '0002']);
    expect(planMigrate([v1, v2, v3], [], 'app', { toVersion: '2' }).versioned.map((f) => f.version)).toEqual(['0001', '0002']);
  });

  it('baseline plans record versioned files only', () => {
    const plan = planMigrate([v1, v2, ra], [], 'app', { toVersion: '0001', baseline: true });
    expect(plan).toMatchObject({ baseline: true, repeatables: [] });
    expect(plan.versioned.map((f) => f.version)).toEqual(['0001']);
  });

  it('refuses an unknown --to-version and a pending version below the applied one', () => {
    expect(() => planMigrate([v1], [], 'app', { toVersion: '0007' })).toThrow(/no migration has version 0007/);
    expect(() => planMigrate([v1], [], 'app', { toVersion: '0007' })).toThrow(expect.objectContaining({ code: 'MTOOL_NOT_FOUND', exitCode: 1 }));
    // An applied migration whose file is gone still names its version.
    expect(planMigrate([v2], [applied(v1)], 'app', { toVersion: '0001' }).versioned).toEqual([]);
    expect(() => planMigrate([v1, v2], [applied(v2)], 'app')).toThrow(/app__0001_a.sql \(version 0001\) is pending but version 0002 is already applied/);
  });
});

describe('missingAppliedWarning', () => {
  it('names the applied versioned files gone from the folder, and none for repeatables or files present', () => {
    expect(missingAppliedWarning([v1, v2], [applied(v1), applied(v2), applied(ra)], 'app')).toBeUndefined();
    expect(missingAppliedWarning([v2], [applied(v1), applied(v2)], 'app')).toBe(
      'an applied migration is no longer in migrations/app/: app__0001_a.sql. It stays applied, but rollback and downgrade cannot go past it: restore the file as applied (from version control; `mtool history --database app` shows the checksums)',
    );
    const many = Array.from({ length: 7 }, (_, i) => file(`app__000${i + 1}_m${i + 1}.sql`));
    expect(missingAppliedWarning([], many.map((f) => applied(f)), 'app')).toMatch(/^7 applied migrations are no longer in migrations\/app\/: app__0001_m1\.sql, .*app__0005_m5\.sql and 2 more\. They stay applied/);
  });
});

describe('verifyApplied', () => {
  it('throws ChecksumMismatchError naming the file, both prefixes, the database and history', () => {
    const stored = 'a'.repeat(64);
    let error: unknown;
    try {
      verifyApplied([v1], [applied(v1, stored)], 'app');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ChecksumMismatchError);
    const message = (error as Error).message;
    expect(message).toContain('app__0001_a.sql');
    expect(message).toContain('aaaaaaaaaaaa');
    expect(message).toContain(v1.checksum.slice(0, 12));
    expect(message).toContain("database 'app'");
    expect(message).toContain('mtool history');
    expect((error as MtoolError).exitCode).toBe(1);
  });

  it('ignores changed repeatables and refuses a renamed applied file reusing its version', () => {
    expect(() => verifyApplied([roc], [applied(roc, 'b'.repeat(64))], 'app')).not.toThrow();
    const renamed = file('app__0001_renamed.sql');
    expect(() => verifyApplied([renamed], [applied(v1)], 'app')).toThrow(/version 0001, which is already applied as app__0001_a.sql/);
  });
});

describe('planRollback', () => {
  const records = [applied(v1), applied(v2), applied(v3), applied(ra)];

  it('reverts newest first: one by default, --count n, or everything above --to-version', () => {
    expect(planRollback([v1, v2, v3], records, 'app', {}).map((s) => s.file.version)).toEqual(['0003']);
    expect(planRollback([v1, v2, v3], records, 'app', { count: 2 }).map((s) => s.file.version)).toEqual(['0003', '0002']);
    expect(planRollback([v1, v2, v3], records, 'app', { toVersion: '0001' }).map((s) => s.file.version)).toEqual(['0003', '0002']);
  });

  it('downgrade and rollback --to-version require the target to be applied (it stays applied)', () => {
    expect(() => planRollback([v1, v2, v3], records, 'app', { toVersion: '0005', command: 'downgrade' })).toThrow(/cannot downgrade to version 0005: it is not applied/);
    expect(() => planRollback([v1, v2, v3], records, 'app', { toVersion: '0005' })).toThrow(/cannot roll back to version 0005: it is not applied \(applied versions: 0001, 0002, 0003\)/);
    // Not a way to say "everything": that would roll back every migration without a word.
    expect(() => planRollback([v1, v2, v3], records, 'app', { toVersion: '0000' })).toThrow(/cannot roll back to version 0000: .*--count 3` to roll back the 3 applied above it/);
    expect(() => planRollback([v1, v2, v3], records, 'app', { toVersion: '0000' })).toThrow(expect.objectContaining({ code: 'MTOOL_ROLLBACK', exitCode: 1 }));
  });

  it('refuses before anything runs when a migration to revert has no rollback, is irreversible or is missing', () => {
    const noRollback = file('app__0002_b.sql', '-- upgrade\nSELECT 1;\n');
    expect(() => planRollback([v1, noRollback, v3], [applied(v1), applied(noRollback), applied(v3)], 'app', { count: 2 })).toThrow(
      /cannot roll back app__0002_b.sql: it has no `-- rollback` section; nothing was rolled back/,
    );
    const irreversible = file('app__0003_c.sql', '-- mtool: irreversible\n-- upgrade\nSELECT 1;\n');
    expect(() => planRollback([irreversible], [applied(irreversible)], 'app', {})).toThrow(/irreversible/);
    expect(() => planRollback([], [applied(v1)], 'app', {})).toThrow(/no longer in the migrations folder/);
    const emptyRollback = file('app__0002_b.sql', '-- upgrade\nSELECT 1;\n-- rollback\n-- nothing to undo?\n');
    expect(() => planRollback([emptyRollback], [applied(emptyRollback)], 'app', {})).toThrow(/its `-- rollback` section has no statements/);
  });

  it('reverts a placeholder whose upgrade has no statements (only its record goes), unless it is irreversible', () => {
    const placeholder = file('app__0002_b.sql', '-- upgrade\n-- kept for numbering\n-- rollback\n');
    const bare = file('app__0002_b.sql', '-- upgrade\n');
    for (const f of [placeholder, bare]) {
      expect(planRollback([v1, f, v3], [applied(v1), applied(f), applied(v3)], 'app', { count: 3 }).map((s) => s.file.version)).toEqual(['0003', '0002', '0001']);
    }
    const marked = file('app__0002_b.sql', '-- mtool: irreversible\n-- upgrade\n');
    expect(() => planRollback([marked], [applied(marked)], 'app', {})).toThrow(/irreversible/);
  });
});

describe('statusEntries', () => {
  it('marks applied, pending, changed repeatables and recorded files missing from disk', () => {
    const gone = applied(file('app__0000_gone.sql'));
    const entries = statusEntries([v1, v2, roc], [applied(v1), applied(roc, 'c'.repeat(64)), gone]);
    expect(entries.map((e) => [e.filename, e.state])).toEqual([
      ['app__0001_a.sql', 'applied'],
      ['app__0002_b.sql', 'pending'],
      ['ROC__grants.sql', 'changed'],
      ['app__0000_gone.sql', 'missing'],
    ]);
  });
});
