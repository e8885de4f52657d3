import { describe, expect, it } from 'vitest';
import type { SplitDialect } from '../../src/dialects/types.js';
import { errorOf, parseFile } from './parse-file.js';

/**
 * A directive spelled so that it reads as a plain comment (`-- mtool no-transaction`, or
 * `# mtool: no-transaction` where `#` starts a comment) used to be ignored without a word: the
 * file ran inside a transaction, or claimed a rollback, against what its author declared.
 */
const parse = (content: string, dialect: SplitDialect = 'postgresql') => parseFile(content, dialect);


describe('a directive that would be read as a comment', () => {
  it.each([
    ['postgresql', '-- mtool no-transaction\n-- upgrade\nSELECT 1;\n', 1, '-- mtool no-transaction', 'no-transaction'],
    ['sqlite', '-- upgrade\nSELECT 1;\n-- mtool = irreversible\n', 3, '-- mtool = irreversible', 'irreversible'],
    ['mysql', '# mtool: no-transaction\n-- upgrade\nSELECT 1;\n', 1, '# mtool: no-transaction', 'no-transaction'],
    ['mysql', '-- upgrade\nSELECT 1;\n#mtool:No-Transaction\n', 3, '#mtool:No-Transaction', 'no-transaction'],
    ['clickhouse', '# mtool: irreversible\n-- upgrade\nSELECT 1;\n', 1, '# mtool: irreversible', 'irreversible'],
  ] as const)('%s: refuses %j with its line and the spelling that works', (dialect, content, line, text, word) => {
    const message = errorOf(() => parse(content, dialect)).message;
    expect(message).toContain(`app__0001_init.sql:${line}`);
    expect(message).toContain(`'${text}' is not read as a directive, so '${word}' would not apply; write it as '-- mtool: ${word}'`);
  });

  it('leaves lines alone that are not comments there, or not about a directive', () => {
    // `#` is no comment on ClickHouse before a letter: the splitter reads the line as SQL, as before.
    expect(errorOf(() => parse('#mtool: no-transaction\n-- upgrade\nSELECT 1;\n', 'clickhouse')).message).toContain(":1: SQL before the '-- upgrade' section");
    const file = parse('-- mtool keeps this table small\n-- upgrade\nSELECT $$\n-- mtool no-transaction\n$$;\n-- mtool: no-transaction\n', 'postgresql');
    expect(file.directives).toEqual(['no-transaction']);
    expect(parse('-- upgrade\n/* mtool no-transaction */\nSELECT 1;\n').directives).toEqual([]);
  });
});
