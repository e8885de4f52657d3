import { describe, expect, it } from 'vitest';
import { findTopLevelKeyword, matchingParen, readIdentifier, splitTopLevel } from '../../src/schema/ddl-scan.js';
import { canonicalNowExpression, literalDefault, numberOrText, readQuoted, stripOuterParens, wholeQuoted } from '../../src/schema/normalize-default.js';

describe('default normalization helpers', () => {
  it('turns text into a number only when no digit or spelling is lost', () => {
    expect(numberOrText('42')).toBe(42);
    expect(numberOrText('-2.5')).toBe(-2.5);
    expect(numberOrText('1.50')).toBe('1.50');
    expect(numberOrText('007')).toBe('007');
    expect(numberOrText('9223372036854775807')).toBe('9223372036854775807');
    expect(numberOrText('1e3')).toBe('1e3');
    expect(numberOrText('abc')).toBe('abc');
  });

  it('reads literals by column type', () => {
    expect(literalDefault('t', { type: 'boolean' })).toEqual({ kind: 'literal', value: true });
    expect(literalDefault('0', { type: 'boolean' })).toEqual({ kind: 'literal', value: false });
    expect(literalDefault('12', { type: 'text' })).toEqual({ kind: 'literal', value: '12' });
    expect(literalDefault('12', { type: 'integer[]', raw: true })).toEqual({ kind: 'literal', value: '12' });
  });

  it('spells the niladic time functions one way', () => {
    expect(canonicalNowExpression('current_timestamp()')).toBe('CURRENT_TIMESTAMP');
    expect(canonicalNowExpression('current_timestamp(6)')).toBe('CURRENT_TIMESTAMP(6)');
    expect(canonicalNowExpression('  now( )')).toBe('now( )');
  });

  it('strips only parentheses that enclose everything', () => {
    expect(stripOuterParens('((a > 0))')).toBe('a > 0');
    expect(stripOuterParens('(a) + (b)')).toBe('(a) + (b)');
    expect(stripOuterParens("(x = ')')")).toBe("x = ')'");
  });

  it('reads quoted literals with doubled quotes and, when asked, backslash escapes', () => {
    expect(readQuoted("'it''s' rest", false)).toEqual({ value: "it's", rest: ' rest' });
    expect(wholeQuoted("'a\\'b\\\\c\\n'", true)).toBe("a'b\\c\n");
    expect(wholeQuoted("'a\\'b'", false)).toBeUndefined();
    expect(wholeQuoted("'a' || 'b'", false)).toBeUndefined();
  });
});

describe('DDL text scanning', () => {
  it('splits at top-level commas only', () => {
    expect(splitTopLevel("a int, b numeric(10, 2), c text DEFAULT 'x, y', /* d, */ e int")).toEqual(['a int', 'b numeric(10, 2)', "c text DEFAULT 'x, y'", '/* d, */ e int']);
  });

  it('finds keywords outside parentheses, quotes and identifiers', () => {
    const text = "x AS (SELECT 1 AS y) WHERE 'AS' = \"AS\" AND ask AS z";
    expect(findTopLevelKeyword(text, 'AS')).toEqual([2, text.lastIndexOf(' AS z') + 1]);
  });

  it('matches parentheses and reads identifiers in every quoting style', () => {
    expect(matchingParen("f(a, ')', (b)) x", 1)).toBe(13);
    expect(readIdentifier('"we""ird" rest')).toEqual({ name: 'we"ird', rest: ' rest' });
    expect(readIdentifier('[x y]z')).toEqual({ name: 'x y', rest: 'z' });
    expect(readIdentifier('`a`.b')).toEqual({ name: 'a', rest: '.b' });
  });
});
