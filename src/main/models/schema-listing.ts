import type { ColumnIR, ConstraintIR, IndexIR, SchemaIR, TableIR } from '../../schema/ir.js';

/**
 * A readable listing of a schema IR (`check-db --out txt`): enums, then each table with its
 * columns (native type, nullability, key, default, comment), key, indexes and constraints.
 */
export function schemaListing(ir: SchemaIR, header: string): string {
  const tables = Object.keys(ir.tables).sort();
  const enums = Object.keys(ir.enums).sort();
  const count = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : word.endsWith('x') ? 'es' : 's'}`;
  const lines = [
    `${header}: ${count(tables.length, 'table')}, ${count(enums.length, 'enum')}, ${count(Object.keys(ir.indexes).length, 'index')}, ${count(Object.keys(ir.constraints).length, 'constraint')}`,
  ];
  for (const key of enums) lines.push('', `enum ${key}: ${ir.enums[key]!.values.join(', ')}`);
  for (const key of tables) lines.push('', ...tableListing(ir, key));
  return lines.join('\n');
}

function tableListing(ir: SchemaIR, key: string): string[] {
  const t = ir.tables[key]!;
  const kind = t.object_type === 'table' ? 'table' : t.object_type.replace('_', ' ');
  const out = [`${kind} ${key}${t.comment ? ` -- ${t.comment}` : ''}`];
  const columns = Object.values(t.columns).sort((a, b) => a.position - b.position);
  const rows = columns.map((c) => [c.name, nativeType(c), c.nullable ? 'NULL' : 'NOT NULL', flags(c), c.comment ? `-- ${c.comment}` : '']);
  const widths = [0, 1, 2, 3].map((i) => Math.max(0, ...rows.map((r) => r[i]!.length)));
  for (const r of rows) out.push(`  ${r.map((cell, i) => (i < 4 ? cell.padEnd(widths[i]!) : cell)).join('  ').trimEnd()}`);
  if (t.primary_key.length > 0) out.push(`  primary key (${t.primary_key.join(', ')})`);
  const spec = specText(t);
  if (spec) out.push(`  ${spec}`);
  for (const k of Object.keys(ir.indexes).sort()) {
    const ix = ir.indexes[k]!;
    if (ix.table === key) out.push(`  ${indexText(ix)}`);
  }
  for (const k of Object.keys(ir.constraints).sort()) {
    const c = ir.constraints[k]!;
    if (c.table === key) out.push(`  ${constraintText(c)}`);
  }
  return out;
}

function nativeType(c: ColumnIR): string {
  const native = c.pg_column?.native_type ?? c.my_column?.native_type ?? c.ch_column?.native_type ?? c.sqlite_column?.native_type;
  return native ?? c.type;
}

function flags(c: ColumnIR): string {
  const parts: string[] = [];
  if (c.primary_key) parts.push('PK');
  if (c.autoincrement) parts.push('autoincrement');
  if (c.default) parts.push(`default ${c.default.kind === 'expression' ? c.default.sql : JSON.stringify(c.default.value)}`);
  const generated = c.attrs?.generated as { expression?: string } | undefined;
  if (generated?.expression) parts.push(`generated as (${generated.expression})`);
  return parts.join(' ');
}

function specText(t: TableIR): string {
  const s = t.backend_table_spec as unknown as Record<string, unknown>;
  if (s.backend !== 'clickhouse') return '';
  const parts = Object.keys(s)
    .filter((k) => k !== 'backend' && s[k] !== null && !(typeof s[k] === 'object' && Object.keys(s[k] as object).length === 0))
    .sort()
    .map((k) => `${k}=${typeof s[k] === 'string' ? s[k] : JSON.stringify(s[k])}`);
  return parts.length > 0 ? `clickhouse ${parts.join(' ')}` : '';
}

function indexText(ix: IndexIR): string {
  const cols = ix.columns.map((c) => {
    const s = ix.column_sorting[c];
    return `${c}${s?.order === 'desc' ? ' DESC' : ''}${s?.nulls ? ` NULLS ${s.nulls.toUpperCase()}` : ''}`;
  });
  const extra = [
    ix.using ? `USING ${ix.using}` : '',
    ix.include.length > 0 ? `INCLUDE (${ix.include.join(', ')})` : '',
    ix.nulls_not_distinct ? 'NULLS NOT DISTINCT' : '',
    Object.keys(ix.with_params).length > 0 ? `WITH (${Object.entries(ix.with_params).map(([k, v]) => `${k}=${v}`).join(', ')})` : '',
    ix.tablespace ? `TABLESPACE ${ix.tablespace}` : '',
    ix.type ? `TYPE ${ix.type}` : '',
    ix.granularity !== null ? `GRANULARITY ${ix.granularity}` : '',
    ix.where ? `WHERE ${ix.where}` : '',
  ].filter((x) => x !== '');
  return `${ix.unique ? 'unique index' : 'index'} ${ix.name} (${cols.join(', ')})${extra.length > 0 ? ` ${extra.join(' ')}` : ''}`;
}

function constraintText(c: ConstraintIR): string {
  switch (c.kind) {
    case 'foreign_key': {
      const actions = [c.on_delete !== 'NO ACTION' ? `ON DELETE ${c.on_delete}` : '', c.on_update !== 'NO ACTION' ? `ON UPDATE ${c.on_update}` : '', c.deferrable ? (c.initially_deferred ? 'DEFERRABLE INITIALLY DEFERRED' : 'DEFERRABLE') : ''].filter((x) => x !== '');
      return `foreign key ${c.name} (${c.columns.join(', ')}) -> ${c.ref_table} (${c.ref_columns.join(', ')})${actions.length > 0 ? ` ${actions.join(' ')}` : ''}`;
    }
    case 'unique':
      return `unique ${c.name} (${c.columns.join(', ')})${c.nulls_not_distinct ? ' NULLS NOT DISTINCT' : ''}`;
    case 'check':
      return `check ${c.name} (${c.expression})`;
  }
}
