import type { DatabaseType } from '../dialects/types.js';
import { MtoolError } from '../errors.js';
import { COLUMN_OWNER, columnDef, type AnyColumnBuilder, type ColumnDef } from './columns.js';
import { autoName, type IndexBuilder } from './indexes.js';
import {
  normalizeIndex,
  normalizeSqlText,
  objectKey,
  qualifiedKey,
  type BackendTableSpec,
  type ColumnIR,
  type ConstraintIR,
  type DefaultIR,
  type IndexIR,
  type ReferentialAction,
  type SchemaIR,
  type TableIR,
} from './ir.js';
import { MODEL, isModel, type ColumnMap, type DictionaryModel, type EnumModel, type MaterializedViewModel, type Model, type ModelDef, type TableModel } from './model.js';
import { getEntry, setEntry } from './name-map.js';
import { clickhouseEnumType, mysqlEnumType, nativeTypeOf } from './native-types.js';
import { normalizeClickHouseEngine, normalizeClickHouseKey } from './normalize-clickhouse.js';
import { canonicalNativeType, columnType, normalizeType } from './normalize-type.js';
import { isSql } from './sql.js';

export interface CompileOptions {
  dialect: DatabaseType;
  /** PostgreSQL schema that tables without `pgSchema` live in and that is left out of keys. Default `public`. */
  defaultSchema?: string;
  /**
   * Fail on constructs the dialect cannot express (ClickHouse engine specs, materialized views and
   * dictionaries compiled for another dialect) instead of leaving them out. Default false
   * (`--strict-translation` sets it).
   */
  strict?: boolean;
}

type ObjectModel = TableModel | MaterializedViewModel | DictionaryModel;

/**
 * Compile models to the schema IR of one dialect, with column types normalized exactly as that
 * dialect's introspection normalizes them (see `native-types.ts` for each `col.*`).
 *
 * Per-dialect choices, so introspection can produce the same IR:
 * - Nullability: a column without `.notNull()`/`.nullable()` is nullable, except on ClickHouse
 *   where it is NOT NULL unless its type is `Nullable(...)` or `.nullable()` is called.
 * - Primary key columns are NOT NULL and listed in `primary_key` in key order. ClickHouse tables
 *   declare keys in `backendTable` instead (`.primaryKey()` there is an error).
 * - `.unique()` and `index(...).unique()` become unique indexes (`uq_{table}_{cols}`). The
 *   `uniques` option becomes unique constraints on PostgreSQL and unique indexes elsewhere
 *   (MySQL, MariaDB and SQLite cannot tell the two apart when introspected).
 * - Enums: PostgreSQL named types in `enums` (inline value lists get the name
 *   `{table}_{column}_enum`); MySQL/MariaDB/ClickHouse inline `enum_values`; SQLite a
 *   `VARCHAR(longest value)` plus a check constraint `ck_{table}_{column}`.
 * - Defaults: JS literals become `{ kind: 'literal' }` with the JS value (introspection converts
 *   the server's text back by column type, e.g. MySQL `'1'` on a boolean is `true`);
 *   `sql\`...\`` becomes `{ kind: 'expression' }` with whitespace collapsed.
 * - Backend metadata: `pg_column`/`my_column`/`ch_column`/`sqlite_column` with the native type,
 *   identity, `collation: null`, `codec: null` (models cannot set them yet).
 * - Foreign key actions: `restrict` is `NO ACTION` on MySQL/MariaDB (InnoDB checks both at once and
 *   MariaDB reports an unspecified action as RESTRICT, so introspection reads both as NO ACTION).
 * - ClickHouse: the engine always carries its argument list (`MergeTree` → `MergeTree()`);
 *   `orderBy`/`primaryKey`/`partitionBy`/`sampleBy` go through `normalizeClickHouseKey`, the
 *   function the introspector uses, so `'(a, b)'` equals `['a', 'b']`; a boolean default on a
 *   non-`Bool` column (`col.boolean()` is `UInt8`) is `1` / `0`, as the server reports it.
 * - MariaDB `json()` is `json` (see `native-types.ts`: the server keeps it as longtext plus a
 *   json_valid check, which introspection reads back as `json`).
 *
 * `IndexIR.concurrently` comes only from models (`index(...).concurrently()`): no server stores how
 * an index was built, so introspected IRs and the snapshots made from them always say `false`.
 * The differ must compare `concurrently` only between two model-side IRs (models against the
 * model state, `.mtool/model_state.json`); between a model IR and an introspected or snapshot IR
 * it must be ignored, or every concurrently-built index would show as changed forever.
 * @example compileModels([userStatus, users], { dialect: 'postgresql' }).tables.users.columns.email.type // 'varchar'
 */
export function compileModels(models: Iterable<unknown>, options: CompileOptions): SchemaIR {
  const ctx = new Compiler(options);
  const objects: Model<ObjectModel>[] = [];
  for (const m of models) {
    if (!isModel(m)) throw new MtoolError('MTOOL_MODEL', `compileModels: ${String(m)} is not a model (make it with table(), materializedView(), dictionary() or pgEnum())`);
    const def = m[MODEL];
    if (def.kind === 'enum') ctx.addEnum(def, undefined);
    else objects.push(m as Model<ObjectModel>);
  }
  for (const m of objects) ctx.registerKey(m);
  for (const m of objects) ctx.compileObject(m);
  return ctx.schema;
}

class Compiler {
  readonly schema: SchemaIR = { tables: {}, enums: {}, indexes: {}, constraints: {} };
  readonly dialect: DatabaseType;
  readonly defaultSchema: string;
  readonly strict: boolean;
  readonly #keys = new Map<object, string>();

  constructor(options: CompileOptions) {
    this.dialect = options.dialect;
    this.defaultSchema = options.defaultSchema ?? 'public';
    this.strict = options.strict ?? false;
  }

  fail(message: string): never {
    throw new MtoolError('MTOOL_MODEL', message);
  }

  keyOf(def: ModelDef): string {
    const schema = def.kind === 'table' && this.dialect === 'postgresql' ? def.options.pgSchema : undefined;
    return qualifiedKey(def.name, schema, this.defaultSchema);
  }

  registerKey(model: Model<ObjectModel>): void {
    const def = model[MODEL];
    const key = this.keyOf(def);
    if ([...this.#keys.values()].includes(key)) this.fail(`two models define the table '${key}'; rename one`);
    this.#keys.set(model, key);
  }

  /** Key of a referenced table, also when it is not among the compiled models (the differ skips such keys). */
  refKey(ref: Model | (() => Model) | string, owner: string): string {
    if (typeof ref === 'string') return ref;
    const model = typeof ref === 'function' ? ref() : ref;
    if (!isModel(model) || model[MODEL].kind === 'enum') this.fail(`${owner}: the referenced table is not a table model`);
    return this.#keys.get(model) ?? this.keyOf(model[MODEL]);
  }

  addEnum(def: EnumModel, tableSchema: string | undefined, name = def.name, values = def.values): string {
    const schema = def.schema ?? tableSchema;
    const key = qualifiedKey(name, schema, this.defaultSchema);
    const existing = getEntry(this.schema.enums, key);
    if (existing && existing.values.join('\u0000') !== values.join('\u0000')) {
      this.fail(`enum '${key}' is defined twice with different values (${existing.values.join(', ')} / ${values.join(', ')})`);
    }
    if (this.dialect === 'postgresql') {
      setEntry(this.schema.enums, key, { name, ...(schema && schema !== this.defaultSchema ? { schema } : {}), values: [...values] });
    }
    return key;
  }

  compileObject(model: Model<ObjectModel>): void {
    const def = model[MODEL];
    const key = this.#keys.get(model) as string;
    const ch = this.dialect === 'clickhouse';
    if (def.kind !== 'table' && !ch) {
      if (this.strict) this.fail(`${def.kind.replace('_', ' ')} '${def.name}' exists only on ClickHouse, not ${this.dialect}`);
      return;
    }
    const owner = `${def.kind === 'table' ? 'table' : def.kind.replace('_', ' ')} '${key}'`;
    const tableSchema = def.kind === 'table' && this.dialect === 'postgresql' ? def.options.pgSchema : undefined;
    const ir: TableIR = {
      name: def.name,
      ...(tableSchema && tableSchema !== this.defaultSchema ? { schema: tableSchema } : {}),
      object_type: def.kind,
      columns: {},
      primary_key: [],
      comment: def.options.comment ?? null,
      backend_table_spec: { backend: this.dialect } as BackendTableSpec,
    };
    setEntry(this.schema.tables, key, ir);
    const columns: ColumnMap = def.columns;

    let pk: string[] = [];
    if (def.kind === 'table') {
      pk = def.options.primaryKey ? [...def.options.primaryKey] : Object.keys(columns).filter((c) => columnDef(columns[c] as AnyColumnBuilder).primaryKey);
      if (ch && pk.length > 0) this.fail(`${owner}: ClickHouse tables declare their key in backendTable.orderBy / backendTable.primaryKey, not with primary keys on columns (${pk.join(', ')})`);
      if (def.options.attrs && Object.keys(def.options.attrs).length > 0) ir.attrs = { ...def.options.attrs };
    } else if (def.kind === 'dictionary') {
      pk = typeof def.options.primaryKey === 'string' ? [def.options.primaryKey] : [...def.options.primaryKey];
    }
    ir.primary_key = pk;

    Object.entries(columns).forEach(([name, builder], position) => {
      setEntry(ir.columns, name, this.column(key, def.name, tableSchema, name, columnDef(builder), position, pk.includes(name), `${owner} column '${name}'`));
    });
    if (this.dialect === 'sqlite') {
      const autoinc = Object.values(ir.columns).filter((c) => c.autoincrement);
      if (autoinc.length > 0 && (pk.length !== 1 || autoinc[0]?.name !== pk[0])) this.fail(`${owner}: on sqlite, autoincrement() needs its column to be the whole primary key`);
    }

    ir.backend_table_spec = this.backendSpec(def, owner);
    if (def.kind === 'table') this.tableObjects(def, key, owner);
  }

  column(tableKey: string, tableName: string, tableSchema: string | undefined, name: string, def: ColumnDef, position: number, inPk: boolean, where: string): ColumnIR {
    const d = this.dialect;
    let native: string;
    let enumKey: string | undefined;
    if (def.kind === 'enum') {
      const values = def.enumRef?.values ?? def.enumValues ?? [];
      if (d === 'postgresql') {
        enumKey = def.enumRef ? this.addEnum(def.enumRef, tableSchema) : this.addEnum({ kind: 'enum', name: `${tableName}_${name}_enum`, schema: undefined, values }, tableSchema);
        native = enumKey;
      } else if (d === 'mysql' || d === 'mariadb') native = mysqlEnumType(values);
      else if (d === 'clickhouse') native = clickhouseEnumType(values);
      else {
        native = `VARCHAR(${Math.max(1, ...values.map((v) => v.length))})`;
        const ck = autoName('ck', tableName, [name]);
        this.addConstraint({ kind: 'check', name: ck, table: tableKey, expression: `"${name.replace(/"/g, '""')}" IN (${values.map((v) => `'${v.replace(/'/g, "''")}'`).join(', ')})` }, where);
      }
    } else if (def.kind === 'raw') {
      native = canonicalNativeType(def.nativeText as string, d);
    } else if (def.kind === 'ch') {
      if (d !== 'clickhouse') this.fail(`${where}: col.ch('${def.nativeText}') is a ClickHouse type; use col.raw() or a portable col.* type for ${d}`);
      native = canonicalNativeType(def.nativeText as string, d);
    } else if (def.autoincrement && d === 'sqlite') {
      native = 'INTEGER';
    } else {
      native = nativeTypeOf(def, d, where);
    }
    if (def.autoincrement && d === 'clickhouse') this.fail(`${where}: ClickHouse has no autoincrement`);

    let nullable: boolean;
    if (d === 'clickhouse') {
      const wrapped = normalizeType(native, d).nullable === true;
      if (wrapped && def.nullable === false) this.fail(`${where}: type ${native} is Nullable but the column is marked notNull()`);
      nullable = def.nullable ?? wrapped;
      if (nullable && !wrapped) {
        native = native.startsWith('LowCardinality(') ? `LowCardinality(Nullable(${native.slice('LowCardinality('.length, -1)}))` : `Nullable(${native})`;
      }
    } else {
      nullable = inPk || def.autoincrement ? false : (def.nullable ?? true);
    }
    if (inPk && def.nullable === true) this.fail(`${where}: a primary key column cannot be nullable`);

    const t = normalizeType(native, d, { enums: enumKey ? [enumKey] : [] });
    const out: ColumnIR = {
      name,
      position,
      ...columnType(t, enumKey),
      nullable,
      primary_key: inPk,
      ...(def.autoincrement ? { autoincrement: true as const } : {}),
      default: toDefault(def, d, t.type),
      comment: def.comment,
    };
    if (def.autoincrement && out.default !== null) this.fail(`${where}: an autoincrement column cannot have a default`);
    if (d === 'postgresql') out.pg_column = { native_type: t.native, identity: def.autoincrement ? 'by_default' : null, collation: null };
    else if (d === 'mysql' || d === 'mariadb') out.my_column = { native_type: t.native, unsigned: t.unsigned === true, collation: null };
    else if (d === 'sqlite') out.sqlite_column = { native_type: t.native };
    else out.ch_column = { native_type: t.native, low_cardinality: t.low_cardinality === true, codec: null, default_kind: out.default === null ? null : 'DEFAULT' };
    return out;
  }

  backendSpec(def: ObjectModel, owner: string): BackendTableSpec {
    if (this.dialect !== 'clickhouse') {
      if (def.kind === 'table' && def.options.backendTable && this.strict) this.fail(`${owner}: backendTable is a ClickHouse engine spec and cannot be translated to ${this.dialect}`);
      return { backend: this.dialect };
    }
    if (def.kind === 'table') {
      const o = def.options.backendTable;
      if (!o) this.fail(`${owner}: a ClickHouse table needs backendTable: { engine: 'MergeTree()', orderBy: ... }`);
      const settings: Record<string, string> = {};
      for (const [k, v] of Object.entries(o.settings ?? {})) setEntry(settings, k, String(v));
      return {
        backend: 'clickhouse',
        engine: normalizeClickHouseEngine(o.engine),
        order_by: normalizeClickHouseKey(o.orderBy),
        partition_by: normalizeClickHouseKey(o.partitionBy),
        primary_key: normalizeClickHouseKey(o.primaryKey),
        sample_by: normalizeClickHouseKey(o.sampleBy),
        ttl: o.ttl === undefined ? null : normalizeSqlText(o.ttl),
        settings,
        projections: (o.projections ?? []).map((p) => ({ name: p.name, query: normalizeSqlText(p.query) })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
      };
    }
    if (def.kind === 'materialized_view') {
      const o = def.options;
      return {
        backend: 'clickhouse',
        to: o.to === undefined ? null : this.refKey(o.to as Model | string, owner),
        engine: o.engine ? normalizeClickHouseEngine(o.engine) : null,
        order_by: normalizeClickHouseKey(o.orderBy),
        partition_by: normalizeClickHouseKey(o.partitionBy),
        query: normalizeSqlText(isSql(o.query) ? o.query.text : o.query),
      };
    }
    const o = def.options;
    const { type: sourceType, ...sourceParams } = o.source;
    const layout = typeof o.layout === 'string' ? { type: o.layout } : o.layout;
    const { type: layoutType, ...layoutParams } = layout;
    return {
      backend: 'clickhouse',
      primary_key: typeof o.primaryKey === 'string' ? [o.primaryKey] : [...o.primaryKey],
      source: { type: sourceType.toUpperCase(), params: textParams(sourceParams) },
      layout: { type: layoutType.toUpperCase(), params: textParams(layoutParams) },
      lifetime: typeof o.lifetime === 'number' ? { min: 0, max: o.lifetime } : { min: o.lifetime.min, max: o.lifetime.max },
    };
  }

  addIndex(index: IndexIR, where: string): void {
    const key = objectKey(index.table, index.name);
    if (this.schema.indexes[key] || this.schema.constraints[key]) this.fail(`${where}: index or constraint name '${index.name}' is used twice on '${index.table}'`);
    this.schema.indexes[key] = index;
  }

  addConstraint(constraint: ConstraintIR, where: string): void {
    const key = objectKey(constraint.table, constraint.name);
    if (this.schema.indexes[key] || this.schema.constraints[key]) this.fail(`${where}: index or constraint name '${constraint.name}' is used twice on '${constraint.table}'`);
    this.schema.constraints[key] = constraint;
  }

  tableObjects(def: TableModel, key: string, owner: string): void {
    const ch = this.dialect === 'clickhouse';
    const pg = this.dialect === 'postgresql';
    const plainIndex = (columns: string[], unique: boolean, name: string) =>
      normalizeIndex({ name, table: key, columns, unique });

    for (const [name, builder] of Object.entries(def.columns)) {
      const c = columnDef(builder);
      if (c.unique) {
        if (ch) this.fail(`${owner} column '${name}': ClickHouse has no unique indexes`);
        this.addIndex(plainIndex([name], true, autoName('uq', def.name, [name])), owner);
      }
      if (c.references) {
        if (ch) this.fail(`${owner} column '${name}': a foreign key on a ClickHouse table is an error (ClickHouse has no foreign keys)`);
        const target = c.references.target();
        const bound = (target as AnyColumnBuilder | undefined)?.[COLUMN_OWNER];
        if (!bound) this.fail(`${owner} column '${name}': references() must return a column of a table, e.g. () => users.id`);
        const refTable = this.refKey(bound.model, owner);
        const refName = bound.model[MODEL].name;
        this.addConstraint(
          {
            kind: 'foreign_key',
            name: c.references.name ?? autoName('fk', def.name, [name, refName]),
            table: key,
            columns: [name],
            ref_table: refTable,
            ref_columns: [bound.column],
            on_delete: this.action(c.references.onDelete),
            on_update: this.action(c.references.onUpdate),
            deferrable: c.references.deferrable,
            initially_deferred: c.references.initiallyDeferred,
          },
          owner,
        );
      }
    }
    for (const ix of def.options.indexes ?? []) this.addIndex(this.index(ix, def.name, key), owner);
    for (const fk of def.options.foreignKeys ?? []) {
      if (ch) this.fail(`${owner}: a foreign key on a ClickHouse table is an error (ClickHouse has no foreign keys)`);
      const refTable = this.refKey(fk.refTable as Model | string, owner);
      const refName = refTable.includes('.') && typeof fk.refTable === 'string' ? refTable.slice(refTable.lastIndexOf('.') + 1) : this.#refName(fk.refTable as Model | (() => Model) | string);
      this.addConstraint(
        {
          kind: 'foreign_key',
          name: fk.name ?? autoName('fk', def.name, [...fk.columns, refName]),
          table: key,
          columns: [...fk.columns],
          ref_table: refTable,
          ref_columns: [...fk.refColumns],
          on_delete: this.action(fk.onDelete),
          on_update: this.action(fk.onUpdate),
          deferrable: fk.deferrable,
          initially_deferred: fk.initiallyDeferred,
        },
        owner,
      );
    }
    for (const u of def.options.uniques ?? []) {
      if (ch) this.fail(`${owner}: ClickHouse has no unique constraints`);
      const columns = [...(Array.isArray(u) ? u : (u as { columns: string[] }).columns)];
      const spec = Array.isArray(u) ? {} : (u as { name?: string; nullsNotDistinct?: boolean });
      const name = spec.name ?? autoName('uq', def.name, columns);
      if (pg) this.addConstraint({ kind: 'unique', name, table: key, columns, nulls_not_distinct: spec.nullsNotDistinct ?? false }, owner);
      else this.addIndex(normalizeIndex({ name, table: key, columns, unique: true, nulls_not_distinct: spec.nullsNotDistinct ?? false }), owner);
    }
    for (const [name, e] of Object.entries(def.options.checks ?? {})) {
      if (ch) this.fail(`${owner}: check constraints are not supported on ClickHouse 18.x`);
      this.addConstraint({ kind: 'check', name, table: key, expression: normalizeSqlText(isSql(e) ? e.text : e) }, owner);
    }
    if (ch) {
      for (const s of def.options.backendTable?.indexes ?? []) {
        this.addIndex(normalizeIndex({ name: s.name, table: key, columns: [s.expression], type: s.type, granularity: s.granularity }), owner);
      }
    } else if (def.options.backendTable?.indexes?.length && this.strict) {
      this.fail(`${owner}: ClickHouse skip indexes cannot be translated to ${this.dialect}`);
    }
  }

  /**
   * A referential action as the dialect's introspection reports it. InnoDB treats RESTRICT and
   * NO ACTION alike (both are checked at once) and MariaDB reports an unspecified action as
   * RESTRICT, so on MySQL/MariaDB both are `NO ACTION`; PostgreSQL and SQLite keep them apart.
   */
  action(a: ReferentialAction): ReferentialAction {
    return a === 'RESTRICT' && (this.dialect === 'mysql' || this.dialect === 'mariadb') ? 'NO ACTION' : a;
  }

  #refName(ref: Model | (() => Model) | string): string {
    if (typeof ref === 'string') return ref;
    const model = typeof ref === 'function' ? ref() : ref;
    return model[MODEL].name;
  }

  index(ix: IndexBuilder, tableName: string, key: string): IndexIR {
    const d = ix.def;
    const name = d.name ?? autoName(d.unique ? 'uq' : 'idx', tableName, d.columns, d.using);
    return normalizeIndex({
      name,
      table: key,
      columns: d.columns,
      unique: d.unique,
      using: d.using ?? null,
      where: d.where ?? null,
      include: d.include,
      with_params: Object.fromEntries(Object.entries(d.with).map(([k, v]) => [k, String(v)])),
      tablespace: d.tablespace ?? null,
      nulls_not_distinct: d.nullsNotDistinct,
      column_sorting: Object.fromEntries(Object.entries(d.sorting).map(([c, s]) => [c, { order: s.order ?? 'asc', nulls: s.nulls ?? null }])),
      concurrently: d.concurrently,
    });
  }
}

function textParams(params: Record<string, string | number>): Record<string, string> {
  return Object.fromEntries(Object.entries(params).map(([k, v]) => [k.toLowerCase(), String(v)]));
}

/**
 * A column's default as introspection reads it back. On ClickHouse a boolean default on a column
 * that is not `Bool` (`col.boolean()` is `UInt8` there) is stored and reported as `1` / `0`.
 */
function toDefault(def: ColumnDef, dialect: DatabaseType, type: string): DefaultIR {
  const v = def.default;
  if (v === undefined) return null;
  if (isSql(v)) return { kind: 'expression', sql: normalizeSqlText(v.text) };
  if (typeof v === 'boolean' && dialect === 'clickhouse' && type !== 'boolean') return { kind: 'literal', value: v ? 1 : 0 };
  return { kind: 'literal', value: v };
}
