import { splitTopLevel } from '../../schema/ddl-scan.js';
import { columnsInOrder, tableIndexes, type ChDictionarySpec, type ChMaterializedViewSpec, type ChTableSpec, type ColumnIR, type DefaultIR, type IndexIR, type SchemaIR, type TableIR } from '../../schema/ir.js';
import { unknownTable } from '../../schema/schema-io.js';
import { identList, keyName } from '../render-parts.js';
import { clickhouseQuoting as q } from './quoting.js';

/**
 * ClickHouse DDL from the schema IR, names unqualified (they land in the connection's
 * database). Order: tables (with skip indexes and projections inside), dictionaries (their
 * sources are tables), views, then materialized views (their targets and sources exist by then).
 * Foreign keys and standard indexes do not exist on ClickHouse and are not rendered; only skip
 * indexes (`type` set) are.
 */
export function renderClickHouseSchema(ir: SchemaIR): string[] {
  const keys = Object.keys(ir.tables).sort();
  const of = (kind: TableIR['object_type']) => keys.filter((k) => ir.tables[k]!.object_type === kind);
  return [...of('table'), ...of('dictionary'), ...of('view'), ...of('materialized_view')].map((k) => createObject(ir, k));
}

/** The CREATE statement of one table, view or dictionary (`mtool snapshot TABLE`). */
export function renderClickHouseTable(ir: SchemaIR, tableKey: string): string[] {
  if (!ir.tables[tableKey]) throw unknownTable(ir, tableKey);
  return [createObject(ir, tableKey)];
}

/** CREATE TABLE / MATERIALIZED VIEW / VIEW / DICTIONARY for one object of the IR. */
export function createObject(ir: SchemaIR, key: string): string {
  const table = ir.tables[key]!;
  switch (table.object_type) {
    case 'table':
      return createTable(ir, key);
    case 'dictionary':
      return createDictionary(table);
    default:
      return createView(ir, table);
  }
}

/** `` `name` Type [DEFAULT|MATERIALIZED|ALIAS expr] [COMMENT '..'] [CODEC(..)] ``. */
export function columnDefinition(c: ColumnIR): string {
  const parts = [q.ident(c.name), c.ch_column?.native_type ?? portableType(c)];
  if (c.default) parts.push(`${c.ch_column?.default_kind ?? 'DEFAULT'} ${defaultSql(c.default)}`);
  if (c.comment !== null) parts.push(`COMMENT ${q.literal(c.comment)}`);
  if (c.ch_column?.codec) parts.push(c.ch_column.codec);
  return parts.join(' ');
}

export function defaultSql(d: Exclude<DefaultIR, null>): string {
  return d.kind === 'expression' ? d.sql : q.literal(d.value);
}

function portableType(c: ColumnIR): string {
  let t: string;
  if (c.raw) t = c.type;
  else {
    switch (c.type) {
      case 'integer':
        t = 'Int32';
        break;
      case 'biginteger':
        t = 'Int64';
        break;
      case 'boolean':
        t = 'UInt8';
        break;
      case 'timestamp':
        t = c.precision !== undefined ? `DateTime64(${c.precision})` : 'DateTime';
        break;
      case 'numeric':
        t = `Decimal(${c.precision ?? 18}, ${c.scale ?? 0})`;
        break;
      case 'float':
        t = 'Float64';
        break;
      case 'uuid':
        t = 'UUID';
        break;
      case 'enum':
        t = c.enum_values ? `Enum16(${c.enum_values.map((v, i) => `${q.literal(v)} = ${i + 1}`).join(', ')})` : 'String';
        break;
      default:
        t = 'String';
    }
  }
  return c.nullable && !t.startsWith('Nullable(') ? `Nullable(${t})` : t;
}

/** A key expression list: `a, b` → `(a, b)` (the IR stores lists without their parentheses); a single expression as is. */
function keyExpr(text: string): string {
  return splitTopLevel(text, { backslash: true }).length > 1 ? `(${text})` : text;
}

/** ENGINE = ... PARTITION BY ... PRIMARY KEY ... ORDER BY ... SAMPLE BY ... TTL ... SETTINGS ... */
export function engineClause(spec: Pick<ChTableSpec, 'engine' | 'order_by' | 'partition_by'> & Partial<ChTableSpec>): string {
  let sql = `ENGINE = ${spec.engine}`;
  if (spec.partition_by) sql += ` PARTITION BY ${keyExpr(spec.partition_by)}`;
  if (spec.primary_key) sql += ` PRIMARY KEY ${keyExpr(spec.primary_key)}`;
  if (spec.order_by) sql += ` ORDER BY ${keyExpr(spec.order_by)}`;
  if (spec.sample_by) sql += ` SAMPLE BY ${keyExpr(spec.sample_by)}`;
  if (spec.ttl) sql += ` TTL ${spec.ttl}`;
  const settings = Object.keys(spec.settings ?? {}).sort();
  if (settings.length > 0) sql += ` SETTINGS ${settings.map((k) => `${k} = ${settingValue(spec.settings![k]!)}`).join(', ')}`;
  return sql;
}

function settingValue(value: string): string {
  return /^-?\d+(?:\.\d+)?$/.test(value) ? value : q.literal(value);
}

/** `INDEX name expr TYPE t GRANULARITY n` (skip indexes only). */
export function skipIndexClause(index: IndexIR): string {
  return `INDEX ${q.ident(index.name)} ${keyExpr(index.columns.join(', '))} TYPE ${index.type} GRANULARITY ${index.granularity ?? 1}`;
}

export function createTable(ir: SchemaIR, key: string): string {
  const table = ir.tables[key]!;
  const spec = table.backend_table_spec as ChTableSpec;
  const items = columnsInOrder(table).map((c) => `  ${columnDefinition(c)}`);
  for (const index of tableIndexes(ir, key)) if (index.type) items.push(`  ${skipIndexClause(index)}`);
  for (const p of spec.projections ?? []) items.push(`  PROJECTION ${q.ident(p.name)} (${p.query})`);
  const comment = table.comment !== null ? ` COMMENT ${q.literal(table.comment)}` : '';
  return `CREATE TABLE ${keyName(q, key)} (\n${items.join(',\n')}\n) ${engineClause(spec)}${comment}`;
}

function createView(ir: SchemaIR, table: TableIR): string {
  const spec = table.backend_table_spec as ChMaterializedViewSpec;
  if (table.object_type === 'view') return `CREATE VIEW ${q.ident(table.name)} AS ${spec.query}`;
  let sql = `CREATE MATERIALIZED VIEW ${q.ident(table.name)}`;
  if (spec.to) sql += ` TO ${ir.tables[spec.to] ? q.ident(ir.tables[spec.to]!.name) : keyName(q, spec.to)}`;
  else if (spec.engine) sql += ` ${engineClause({ engine: spec.engine, order_by: spec.order_by, partition_by: spec.partition_by })}`;
  return `${sql} AS ${spec.query}`;
}

function params(p: { type: string; params: Record<string, string> }): string {
  const body = Object.keys(p.params)
    .sort()
    .map((k) => `${k.toUpperCase()} ${/^-?\d+$/.test(p.params[k]!) ? p.params[k] : q.literal(p.params[k]!)}`)
    .join(' ');
  return `${p.type}(${body})`;
}

export function createDictionary(table: TableIR): string {
  const spec = table.backend_table_spec as ChDictionarySpec;
  const cols = columnsInOrder(table).map((c) => `  ${q.ident(c.name)} ${c.ch_column?.native_type ?? portableType(c)}${c.default ? ` DEFAULT ${defaultSql(c.default)}` : ''}`);
  return [
    `CREATE DICTIONARY ${q.ident(table.name)} (\n${cols.join(',\n')}\n)`,
    `PRIMARY KEY ${identList(q, spec.primary_key)}`,
    `SOURCE(${params(spec.source)})`,
    `LAYOUT(${params(spec.layout)})`,
    `LIFETIME(MIN ${spec.lifetime.min} MAX ${spec.lifetime.max})`,
    ...(table.comment !== null ? [`COMMENT ${q.literal(table.comment)}`] : []),
  ].join(' ');
}
