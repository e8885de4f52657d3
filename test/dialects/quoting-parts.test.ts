import { describe, expect, it } from 'vitest';
import { getDialect } from '../../src/dialects/index.js';
import { DATABASE_TYPES } from '../../src/dialects/types.js';

describe('quoting shared by every dialect', () => {
  it.each(DATABASE_TYPES)('%s: qualified() quotes each non-empty part and joins them with dots', (type) => {
    const q = getDialect(type).quote;
    expect(q.qualified('app', undefined, '', 'users')).toBe(`${q.ident('app')}.${q.ident('users')}`);
    expect(q.qualified('users')).toBe(q.ident('users'));
  });

  it.each(DATABASE_TYPES)('%s: refuses an invalid Date as a literal (MTOOL_USAGE)', (type) => {
    expect(() => getDialect(type).quote.literal(new Date(Number.NaN))).toThrow(expect.objectContaining({ code: 'MTOOL_USAGE', message: 'cannot write an invalid Date as a SQL literal' }));
  });
});
