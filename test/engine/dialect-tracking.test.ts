import { describe, expect, it } from 'vitest';
import { getDialect } from '../../src/dialects/index.js';
import { DATABASE_TYPES } from '../../src/dialects/types.js';

describe('every dialect hands the engine its tracking SQL', () => {
  it.each(DATABASE_TYPES)('%s: appends row states exactly where there are no transactions, and quotes through the dialect', async (type) => {
    const dialect = getDialect(type);
    const tracking = await dialect.tracking();
    expect(tracking.writeMode).toBe(dialect.capabilities.transactions ? 'sql' : 'append');
    expect(await dialect.tracking()).toBe(tracking);
    const ddl = tracking.createMigrationsTable(dialect.quote, 'my migrations').join('\n');
    expect(ddl).toContain(dialect.quote.ident('my migrations'));
    expect(tracking.isUniqueViolation(new Error('unrelated'))).toBe(false);
  });
});
