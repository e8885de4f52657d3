/**
 * SQLite reads a lone identifier after DEFAULT (`"dq"`, `dq`, `[dq]`, `` `dq` ``) as a string
 * literal. Introspection must say so: written back as an expression, `DEFAULT ("dq")` is a column
 * reference that makes every insert relying on the default fail.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { sqliteDefault } from '../../src/dialects/sqlite/introspector.js';
import { renderSqliteTable } from '../../src/dialects/sqlite/renderer.js';
import type { Connection } from '../../src/dialects/types.js';
import { connectTo } from '../support/databases.js';
import { canon, execAll, introspect } from './round-trip.js';

const IDENTIFIER_DEFAULTS = [
  'CREATE TABLE t (a TEXT DEFAULT "dq", b INT, c TEXT DEFAULT bare, d TEXT DEFAULT [br], e TEXT DEFAULT `bt`, f TEXT DEFAULT "x""y", g TEXT DEFAULT "true", h INT DEFAULT true)',
];

describe('sqlite identifier defaults', () => {
  const open: Connection[] = [];
  afterEach(async () => {
    for (const c of open.splice(0)) await c.close();
  });
  const fresh = async () => {
    const conn = await connectTo('sqlite', 'sqlite:///:memory:');
    open.push(conn);
    return conn;
  };

  it('reads a lone identifier as the string SQLite stores for it, keywords as what they mean', () => {
    const text = { type: 'text' };
    expect(sqliteDefault('"dq"', text)).toEqual({ kind: 'literal', value: 'dq' });
    expect(sqliteDefault('"x""y"', text)).toEqual({ kind: 'literal', value: 'x"y' });
    expect(sqliteDefault('bare', text)).toEqual({ kind: 'literal', value: 'bare' });
    expect(sqliteDefault('[br]', text)).toEqual({ kind: 'literal', value: 'br' });
    expect(sqliteDefault('`bt`', text)).toEqual({ kind: 'literal', value: 'bt' });
    expect(sqliteDefault('"null"', text)).toEqual({ kind: 'literal', value: 'null' });
    expect(sqliteDefault('""', text)).toEqual({ kind: 'literal', value: '' });
    expect(sqliteDefault('null', text)).toBeNull();
    expect(sqliteDefault('CURRENT_TIMESTAMP', { type: 'timestamp' })).toEqual({ kind: 'expression', sql: 'CURRENT_TIMESTAMP' });
    expect(sqliteDefault('true', { type: 'integer' })).toEqual({ kind: 'expression', sql: 'true' });
    // An expression naming something stays an expression.
    expect(sqliteDefault('(dq || 1)', text)).toEqual({ kind: 'expression', sql: 'dq || 1' });
  });

  it('recreates a table whose defaults are identifiers so that inserts get the same values', async () => {
    const source = await fresh();
    await execAll(source, [...IDENTIFIER_DEFAULTS, 'INSERT INTO t (b) VALUES (1)']);
    const ir = await introspect(source);
    expect(ir.tables.t!.columns.a!.default).toEqual({ kind: 'literal', value: 'dq' });

    const statements = renderSqliteTable(ir, 't');
    expect(statements[0]).toContain(`"a" TEXT DEFAULT 'dq'`);
    const target = await fresh();
    await execAll(target, [...statements, 'INSERT INTO t (b) VALUES (1)']);
    const row = async (conn: Connection) => (await conn.query('SELECT a, c, d, e, f, g, h FROM t')).rows[0];
    expect(await row(target)).toEqual(await row(source));
    expect(await row(target)).toMatchObject({ a: 'dq', c: 'bare', d: 'br', e: 'bt', f: 'x"y', g: 'true' });
    expect(canon(await introspect(target))).toBe(canon(ir));
  });
});
