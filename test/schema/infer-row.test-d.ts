import { describe, expectTypeOf, it } from 'vitest';
import { col, pgEnum, sql, table, type InferRow } from '../../src/schema/index.js';

describe('InferRow gives the row type of a model', () => {
  it('maps column types and respects nullability', () => {
    const userStatus = pgEnum('user_status', ['active', 'banned']);
    const users = table('users', {
      id: col.bigint().primaryKey(),
      email: col.varchar(255).notNull(),
      status: col.enum(userStatus).notNull().default('active'),
      created_at: col.timestamp().notNull().default(sql`CURRENT_TIMESTAMP`),
      nickname: col.text(),
      score: col.integer().notNull(),
      ok: col.boolean(),
      price: col.numeric(10, 2).notNull(),
      data: col.bytes().notNull(),
      payload: col.jsonb<{ a: number }>().notNull(),
      kind: col.enum(['x', 'y']),
      other: col.raw<string>('tsvector'),
    });
    expectTypeOf<InferRow<typeof users>>().toEqualTypeOf<{
      id: number | bigint;
      email: string;
      status: 'active' | 'banned';
      created_at: Date;
      nickname: string | null;
      score: number;
      ok: boolean | null;
      price: string | number;
      data: Uint8Array;
      payload: { a: number };
      kind: 'x' | 'y' | null;
      other: string | null;
    }>();
  });

  it('treats an explicit nullable() after notNull() as nullable again', () => {
    const t = table('t', { a: col.integer().notNull().nullable() });
    expectTypeOf<InferRow<typeof t>>().toEqualTypeOf<{ a: number | null }>();
  });
});
