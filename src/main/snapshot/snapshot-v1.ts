import { normalizeAction, normalizeIndex, objectKey, type ColumnIR, type ConstraintIR, type DefaultIR, type SchemaIR, type TableIR } from '../../schema/ir.js';
import { assignEntries, setEntry } from '../../schema/name-map.js';

/**
 * Version 1 snapshots (spec: "normalized to version 2 on read"). The v1 shape this reads:
 *
 * ```
 * { format_version: 1 (or absent), migration_id, database_name, database_type, applied_at,
 *   checksum, previous_checksum?,
 *   tables: { <name>: {
 *     object_type?            // absent = 'table'
 *     schema?, comment?,
 *     columns: { <name>: column } | column[]   // order = definition order when `position` is absent
 *     primary_key?: string[]                    // → column `primary_key` flags + table `primary_key`
 *     indexes?: [{ name, columns, unique?, using?, where?, include?, with_params?, tablespace?,
 *                  nulls_not_distinct?, column_sorting?, type?, granularity? }]  // → top-level `indexes`
 *     foreign_keys?: [{ name, columns, ref_table, ref_columns, on_delete?, on_update?,
 *                       deferrable?, initially_deferred? }]                      // → top-level `constraints`
 *     clickhouse_options? (later 1.x files: ch_options): { engine, order_by, ... } // → backend_table_spec (backend clickhouse)
 *     pg_table?: {...} / my_table?: {...}                                        // → backend_table_spec (backend postgresql / mysql)
 *   } },
 *   enums?: { <name>: string[] | { values, schema? } } }
 * ```
 * Column `default` in v1 was the server's default text: a quoted string (`'active'::status`)
 * becomes a literal string, a number or `true`/`false` a literal, anything else an expression.
 * v1 checksums use the v2 rule (SHA-256 of canonical JSON without `checksum`) over the v1 content.
 */
export function normalizeV1Schema(v1: Record<string, unknown>): SchemaIR {
  const out: SchemaIR = { tables: {}, enums: {}, indexes: {}, constraints: {} };
  const databaseType = typeof v1.database_type === 'string' ? v1.database_type : 'postgresql';
  for (const [key, rawTable] of Object.entries(asRecord(v1.tables))) {
    const t = asRecord(rawTable);
    const pk = Array.isArray(t.primary_key) ? (t.primary_key as string[]) : [];
    const rawColumns: Record<string, unknown>[] = Array.isArray(t.columns)
      ? (t.columns as Record<string, unknown>[])
      : Object.entries(asRecord(t.columns)).map(([name, c]) => ({ name, ...asRecord(c) }));
    const columns: Record<string, ColumnIR> = {};
    rawColumns.forEach((c, i) => {
      const name = String(c.name);
      const { position, primary_key, default: dflt, ...rest } = c;
      const inPk = primary_key === true || pk.includes(name);
      setEntry(columns, name, {
        ...(rest as Partial<ColumnIR>),
        name,
        position: typeof position === 'number' ? position : i,
        type: String(c.type),
        nullable: inPk ? false : c.nullable !== false,
        primary_key: inPk,
        default: v1Default(dflt),
        comment: typeof c.comment === 'string' ? c.comment : null,
      } as ColumnIR);
    });
    const keyColumns = pk.length > 0 ? pk : Object.values(columns).filter((c) => c.primary_key).sort((a, b) => a.position - b.position).map((c) => c.name);
    const table: TableIR = {
      name: typeof t.name === 'string' ? t.name : key.includes('.') ? key.slice(key.indexOf('.') + 1) : key,
      ...(typeof t.schema === 'string' ? { schema: t.schema } : {}),
      object_type: (typeof t.object_type === 'string' ? t.object_type : 'table') as TableIR['object_type'],
      columns,
      primary_key: keyColumns,
      comment: typeof t.comment === 'string' ? t.comment : null,
      backend_table_spec: v1Backend(t, databaseType),
    };
    if (t.attrs && typeof t.attrs === 'object') table.attrs = t.attrs as Record<string, unknown>;
    setEntry(out.tables, key, table);

    for (const ix of Array.isArray(t.indexes) ? (t.indexes as Record<string, unknown>[]) : []) {
      const index = normalizeIndex({ ...(ix as object), name: String(ix.name), table: key, columns: (ix.columns as string[]) ?? [] });
      out.indexes[objectKey(key, index.name)] = index;
    }
    for (const fk of Array.isArray(t.foreign_keys) ? (t.foreign_keys as Record<string, unknown>[]) : []) {
      const constraint: ConstraintIR = {
        kind: 'foreign_key',
        name: String(fk.name),
        table: key,
        columns: (fk.columns as string[]) ?? [],
        ref_table: String(fk.ref_table),
        ref_columns: (fk.ref_columns as string[]) ?? [],
        on_delete: normalizeAction(fk.on_delete as string | undefined) ?? 'NO ACTION',
        on_update: normalizeAction(fk.on_update as string | undefined) ?? 'NO ACTION',
        deferrable: fk.deferrable === true,
        initially_deferred: fk.initially_deferred === true,
      };
      out.constraints[objectKey(key, constraint.name)] = constraint;
    }
  }
  for (const [key, e] of Object.entries(asRecord(v1.enums))) {
    const values = Array.isArray(e) ? (e as string[]) : ((asRecord(e).values as string[]) ?? []);
    const schema = Array.isArray(e) ? undefined : (asRecord(e).schema as string | undefined);
    const name = !Array.isArray(e) && typeof asRecord(e).name === 'string' ? (asRecord(e).name as string) : key.includes('.') ? key.slice(key.indexOf('.') + 1) : key;
    setEntry(out.enums, key, { name, ...(schema ? { schema } : {}), values: [...values] });
  }
  // v1 files that already had top-level maps keep them (later 1.x writers).
  assignEntries(out.indexes, asRecord(v1.indexes) as SchemaIR['indexes']);
  assignEntries(out.constraints, asRecord(v1.constraints) as SchemaIR['constraints']);
  return out;
}

function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function v1Backend(t: Record<string, unknown>, databaseType: string): TableIR['backend_table_spec'] {
  if (t.backend_table_spec && typeof t.backend_table_spec === 'object') return t.backend_table_spec as TableIR['backend_table_spec'];
  const ch = t.clickhouse_options ?? t.ch_options;
  if (ch && typeof ch === 'object') {
    const o = ch as Record<string, unknown>;
    const text = (v: unknown) => (v === undefined || v === null ? null : Array.isArray(v) ? v.join(', ') : String(v));
    return {
      backend: 'clickhouse',
      engine: String(o.engine ?? 'MergeTree()'),
      order_by: text(o.order_by),
      partition_by: text(o.partition_by),
      primary_key: text(o.primary_key),
      sample_by: text(o.sample_by),
      ttl: text(o.ttl),
      settings: Object.fromEntries(Object.entries(asRecord(o.settings)).map(([k, v]) => [k, String(v)])),
      projections: (Array.isArray(o.projections) ? (o.projections as { name: string; query: string }[]) : []).map((p) => ({ name: p.name, query: p.query })),
    };
  }
  if (t.pg_table && typeof t.pg_table === 'object') return { ...(t.pg_table as object), backend: 'postgresql' };
  if (t.my_table && typeof t.my_table === 'object') return { ...(t.my_table as object), backend: databaseType === 'mariadb' ? 'mariadb' : 'mysql' };
  const backend = ['postgresql', 'mysql', 'mariadb', 'sqlite'].includes(databaseType) ? databaseType : 'postgresql';
  return { backend: backend as 'postgresql' };
}

function v1Default(value: unknown): DefaultIR {
  if (value === undefined || value === null) return null;
  if (typeof value === 'object' && value !== null && 'kind' in value) return value as DefaultIR;
  if (typeof value === 'number' || typeof value === 'boolean') return { kind: 'literal', value };
  const text = String(value).trim();
  const quoted = /^'((?:[^']|'')*)'(?:::[\w ."]+)?$/.exec(text);
  if (quoted) return { kind: 'literal', value: (quoted[1] ?? '').replace(/''/g, "'") };
  if (/^-?\d+(\.\d+)?$/.test(text)) return { kind: 'literal', value: Number(text) };
  if (/^(true|false)$/i.test(text)) return { kind: 'literal', value: text.toLowerCase() === 'true' };
  return { kind: 'expression', sql: text.replace(/\s+/g, ' ') };
}
