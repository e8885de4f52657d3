import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { findTopLevelKeyword, matchingParen, matchingParenEscaped, splitTopLevel, type ScanOptions } from '../../src/schema/ddl-scan.js';

/**
 * The scanners as plainly as they can be written: one state machine over every character, no
 * shortcuts. The real ones skip characters they have no interest in and texts without the
 * keyword; on any text they must give the same answers.
 */
function reference(text: string, options: ScanOptions = {}, from = 0): { i: number; depth: number }[] {
  const visible: { i: number; depth: number }[] = [];
  let depth = 0;
  for (let i = from; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === "'" || ch === '"' || ch === '`' || ch === '[') {
      const close = ch === '[' ? ']' : ch;
      let j = i + 1;
      while (j < text.length) {
        if (options.backslash && ch !== '[' && text[j] === '\\') j += 2;
        else if (text[j] === close && close !== ']' && text[j + 1] === close) j += 2;
        else if (text[j] === close) break;
        else j++;
      }
      i = j;
    } else if (text.startsWith('--', i)) {
      const end = text.indexOf('\n', i);
      i = end < 0 ? text.length : end;
    } else if (text.startsWith('/*', i)) {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 1;
    } else {
      visible.push({ i, depth });
      if (ch === '(') depth++;
      if (ch === ')') depth--;
    }
  }
  return visible;
}

const isWord = (ch: string | undefined) => ch !== undefined && /[A-Za-z0-9_$]/.test(ch);

function referenceKeyword(text: string, keyword: string, options: ScanOptions): number[] {
  const upper = (s: string) => s.replace(/[a-z]/g, (c) => c.toUpperCase());
  return reference(text, options)
    .filter(({ i, depth }) => depth === 0 && !isWord(text[i - 1]) && upper(text.slice(i, i + keyword.length)) === keyword && !isWord(text[i + keyword.length]))
    .map(({ i }) => i);
}

function referenceSplit(text: string, options: ScanOptions): string[] {
  const parts: string[] = [];
  let start = 0;
  for (const { i, depth } of reference(text, options)) {
    if (text[i] === ',' && depth === 0) {
      parts.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  parts.push(text.slice(start).trim());
  return parts.filter((p) => p !== '');
}

function referenceClosing(text: string, open: number, options: ScanOptions): number {
  return reference(text, options, open).find(({ i, depth }) => text[i] === ')' && depth === 1)?.i ?? -1;
}

/** Texts made of the characters the scanners react to, and bits of keywords. */
const ddlText = fc
  .array(fc.constantFrom('a', 'S', 's', 'A', 'as', 'AS', 'check', 'CHECK', 'x', '_', '$', '9', ' ', '\n', ',', '(', ')', "'", '"', '`', '[', ']', '\\', '-', '--', '/', '*', '/*', '*/', 'ı', 'é'), { maxLength: 40 })
  .map((parts) => parts.join(''));
const options = fc.constantFrom<ScanOptions>({}, { backslash: true });

describe('the DDL scanners', () => {
  it('find a keyword at depth 0 as the plain scanner does, for any text', () => {
    fc.assert(
      fc.property(ddlText, fc.constantFrom('AS', 'CHECK', 'A'), options, (text, keyword, opts) => {
        expect(findTopLevelKeyword(text, keyword, opts)).toEqual(referenceKeyword(text, keyword, opts));
      }),
      { numRuns: 2000 },
    );
  });

  it('split at top-level commas as the plain scanner does, for any text', () => {
    fc.assert(
      fc.property(ddlText, options, (text, opts) => {
        expect(splitTopLevel(text, opts)).toEqual(referenceSplit(text, opts));
      }),
      { numRuns: 2000 },
    );
  });

  it('find the closing parenthesis as the plain scanner does, for any text and opening', () => {
    fc.assert(
      fc.property(ddlText, fc.nat(), (tail, at) => {
        const text = `${tail.slice(0, at % (tail.length + 1))}(${tail.slice(at % (tail.length + 1))}`;
        const open = text.indexOf('(', at % (tail.length + 1));
        expect(matchingParen(text, open)).toBe(referenceClosing(text, open, {}));
        expect(matchingParenEscaped(text, open)).toBe(referenceClosing(text, open, { backslash: true }));
      }),
      { numRuns: 2000 },
    );
  });

  it('take keywords case-insensitively in ASCII only, as SQL does', () => {
    expect(findTopLevelKeyword('a as b, c As d, e aS f', 'AS')).toEqual([2, 10, 18]);
    // U+0131 (dotless i) upper-cases to 'I' in JavaScript; to SQL it is no letter of UNIQUE.
    expect(findTopLevelKeyword('x unıque', 'UNIQUE')).toEqual([]);
    expect(findTopLevelKeyword('x unique', 'UNIQUE')).toEqual([2]);
  });

  it('skip quotes, comments and nested parentheses, and see word boundaries', () => {
    const text = `"as" 'as' \`as\` [as] -- as\n/* as */ (as) $as as_ x_as AS`;
    expect(findTopLevelKeyword(text, 'AS')).toEqual([text.length - 2]);
    expect(findTopLevelKeyword("'it''s' AS", 'AS')).toEqual([8]);
    expect(findTopLevelKeyword("'a\\' AS b' AS", 'AS', { backslash: true })).toEqual([11]);
  });
});
