import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { explainChecksumDrift } from '../../src/main/engine/checksum-drift.js';

const sha = (text: string) => createHash('sha256').update(Buffer.from(text, 'utf8')).digest('hex');
const BOM = '\uFEFF';
const applied = '-- upgrade\nCREATE TABLE t (id int);\n-- rollback\nDROP TABLE t;\n';

/** Why a file whose checksum changed differs from the applied one, when only the bytes around its SQL did. */
describe('explainChecksumDrift', () => {
  const explain = (now: string, was = applied) => explainChecksumDrift(Buffer.from(now, 'utf8'), sha(was));

  it('names line endings converted by git (either way), with the .gitattributes line that stops it', () => {
    expect(explain(applied.replace(/\n/g, '\r\n'))).toBe(
      'The file differs from the one applied only in its line endings (CRLF now, LF when it was applied), not in its SQL: ' +
        'convert them back to LF; git converts them on checkout where core.autocrlf is set, which `*.sql text eol=lf` in .gitattributes stops.',
    );
    expect(explain(applied, applied.replace(/\n/g, '\r\n'))).toContain('its line endings (LF now, CRLF when it was applied)');
    expect(explain(applied, applied.replace(/\n/g, '\r\n'))).toContain('`*.sql text eol=crlf`');
  });

  it('names a byte order mark added or removed, and a final line break added or removed', () => {
    expect(explain(BOM + applied)).toBe(
      'The file differs from the one applied only in a UTF-8 byte order mark at its start (added since it was applied), not in its SQL: save it without the byte order mark.',
    );
    expect(explain(applied, BOM + applied)).toContain('(removed since it was applied)');
    expect(explain(applied.slice(0, -1))).toContain('only in the line break at its end (removed since it was applied)');
    expect(explain(`${applied}\n`)).toContain('only in the line break at its end (added since it was applied)');
  });

  it('names several such changes at once', () => {
    expect(explain(BOM + applied.replace(/\n/g, '\r\n'))).toContain(
      'only in its line endings (CRLF now, LF when it was applied) and a UTF-8 byte order mark at its start (added since it was applied)',
    );
  });

  it('says nothing when the SQL itself changed, or the file is as applied', () => {
    expect(explain(applied.replace('id int', 'id bigint'))).toBeUndefined();
    expect(explain(applied.replace('id int', 'id bigint').replace(/\n/g, '\r\n'))).toBeUndefined();
    expect(explain(applied)).toBeUndefined();
  });
});
