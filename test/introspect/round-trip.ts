/**
 * Helpers for the introspection round-trip tests: run a list of statements, introspect, render
 * into a fresh database, introspect again, and compare through canonical JSON.
 */
import { getDialect } from '../../src/dialects/index.js';
import type { Connection, DatabaseType, IntrospectOptions } from '../../src/dialects/types.js';
import { canonicalJson } from '../../src/schema/canonical-json.js';
import type { SchemaIR } from '../../src/schema/ir.js';

export async function execAll(conn: Connection, statements: readonly string[]): Promise<void> {
  for (const sql of statements) {
    try {
      await conn.query(sql);
    } catch (e) {
      throw new Error(`statement failed: ${sql}\n${(e as Error).message}`, { cause: e });
    }
  }
}

export async function introspect(conn: Connection, options?: IntrospectOptions): Promise<SchemaIR> {
  return getDialect(conn.type).introspect(conn, options);
}

export async function render(type: DatabaseType, ir: SchemaIR): Promise<string[]> {
  return getDialect(type).renderSchema(ir);
}

/** Canonical JSON of an IR, the form every equality in these tests is checked in. */
export function canon(ir: SchemaIR): string {
  return canonicalJson(ir);
}
