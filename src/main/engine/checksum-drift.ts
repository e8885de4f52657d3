import { checksumOf } from '../../parser/migration-file.js';

/**
 * Why an applied file's checksum changed, when the change is one that tools make behind the
 * author's back and the SQL is the same: git's `core.autocrlf` turning LF into CRLF (or back) on
 * checkout, an editor adding or dropping a UTF-8 byte order mark or the line break at the end.
 * Found by hashing the file's bytes with those changes undone, in every combination, against the
 * checksum it was applied with. Only ever called for a file whose checksum no longer matches.
 * @returns a sentence for the checksum mismatch error, or undefined when the content changed otherwise.
 */
export function explainChecksumDrift(content: Buffer, appliedChecksum: string): string | undefined {
  const text = content.toString('latin1'); // byte for byte: the changes tried here are ASCII or the BOM's bytes
  const hasBom = text.startsWith(BOM);
  const body = hasBom ? text.slice(BOM.length) : text;
  const crlf = body.includes('\r\n');
  const lf = /(?<!\r)\n/.test(body);
  for (const lineEndings of [undefined, ...(crlf ? ['LF' as const] : []), ...(lf ? ['CRLF' as const] : [])]) {
    const converted = lineEndings === 'LF' ? body.replace(/\r\n/g, '\n') : lineEndings === 'CRLF' ? body.replace(/\r?\n/g, '\r\n') : body;
    const eol = lineEndings === 'CRLF' || (lineEndings === undefined && crlf && !lf) ? '\r\n' : '\n';
    const ends = converted.endsWith('\n');
    // The last line break undone: taken off when the file ends with one (so it was added since), put back otherwise.
    for (const finalBreak of [undefined, ends ? ('added' as const) : ('removed' as const)]) {
      const ended = finalBreak === 'added' ? converted.slice(0, converted.endsWith('\r\n') ? -2 : -1) : finalBreak === 'removed' ? converted + eol : converted;
      for (const bom of [false, true]) {
        if (lineEndings === undefined && finalBreak === undefined && !bom) continue; // the file as it is: known not to match
        const candidate = (hasBom !== bom ? BOM : '') + ended;
        if (checksumOf(Buffer.from(candidate, 'latin1')) !== appliedChecksum) continue;
        return describe({ lineEndings, finalBreak, bom: bom ? (hasBom ? 'added' : 'removed') : undefined });
      }
    }
  }
  return undefined;
}

/** The UTF-8 byte order mark, as latin1 text. */
const BOM = '\xef\xbb\xbf';

interface Drift {
  /** What the file's line endings were when it was applied. */
  lineEndings: 'LF' | 'CRLF' | undefined;
  /** What happened to the file's last line break since. */
  finalBreak: 'added' | 'removed' | undefined;
  /** What happened to a byte order mark at its start since. */
  bom: 'added' | 'removed' | undefined;
}

function describe(drift: Drift): string {
  const parts: string[] = [];
  const fixes: string[] = [];
  if (drift.lineEndings) {
    const now = drift.lineEndings === 'LF' ? 'CRLF' : 'LF';
    parts.push(`its line endings (${now} now, ${drift.lineEndings} when it was applied)`);
    fixes.push(
      `convert them back to ${drift.lineEndings}; git converts them on checkout where core.autocrlf is set, which \`*.sql text eol=${drift.lineEndings.toLowerCase()}\` in .gitattributes stops`,
    );
  }
  if (drift.bom) {
    parts.push(`a UTF-8 byte order mark at its start (${drift.bom} since it was applied)`);
    fixes.push(drift.bom === 'added' ? 'save it without the byte order mark' : 'put the byte order mark back');
  }
  if (drift.finalBreak) {
    parts.push(`the line break at its end (${drift.finalBreak} since it was applied)`);
    fixes.push(drift.finalBreak === 'added' ? 'remove the final line break (an editor setting may add it on save)' : 'put the final line break back');
  }
  return `The file differs from the one applied only in ${joinAnd(parts)}, not in its SQL: ${joinAnd(fixes)}.`;
}

function joinAnd(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}
