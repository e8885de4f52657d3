import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/errors.js';

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

describe('README', () => {
  it('lists exactly the error codes of src/errors.ts with their exit codes and meanings', () => {
    const section = /<!-- error-codes:start[^>]*-->\n([\s\S]*?)<!-- error-codes:end -->/.exec(README)?.[1] ?? '';
    const rows = section.split('\n').filter((l) => l.startsWith('| `'));
    const expected = Object.entries(ERROR_CODES).map(([code, row]) => `| \`${code}\` | ${row.exit} | ${row.meaning} |`);
    expect(rows).toEqual(expected);
  });

  it('gives the two fresh-machine commands', () => {
    expect(README).toContain('npm install && npm run example');
    expect(README).toContain('npm install && npm test');
  });
});
