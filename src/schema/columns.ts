import { MtoolConfigError } from '../errors.js';
import { normalizeAction, type ReferentialAction } from './ir.js';
import { MODEL, type EnumModel, type Model, type TableModel } from './model.js';
import { checkName, checkOptions, checkPositiveInt, describe } from './options.js';
import { isSql, type SqlExpression } from './sql.js';

/** Column kinds of `col.*`; `native-types.ts` says what each becomes per dialect. */
export type ColumnKind =
  | 'integer'
  | 'bigint'
  | 'smallint'
  | 'varchar'
  | 'text'
  | 'boolean'
  | 'timestamp'
  | 'numeric'
  | 'float'
  | 'double'
  | 'bytes'
  | 'uuid'
  | 'enum'
  | 'json'
  | 'jsonb'
  | 'raw'
  | 'ch';

export type DefaultInput = string | number | boolean | SqlExpression;

export interface ReferenceOptions {
  onDelete?: string;
  onUpdate?: string;
  deferrable?: boolean;
  initiallyDeferred?: boolean;
  /** Constraint name; default `fk_{table}_{columns}_{ref_table}`. */
  name?: string;
}
const REFERENCE_OPTION_KEYS = ['onDelete', 'onUpdate', 'deferrable', 'initiallyDeferred', 'name'] as const;

export interface ColumnReference {
  target: () => AnyColumnBuilder;
  onDelete: ReferentialAction;
  onUpdate: ReferentialAction;
  deferrable: boolean;
  initiallyDeferred: boolean;
  name: string | undefined;
}

/** Everything a column builder recorded. Plain data; compiled per dialect by `compileModels`. */
export interface ColumnDef {
  kind: ColumnKind;
  length?: number;
  precision?: number;
  scale?: number;
  withTimezone?: boolean;
  enumRef?: EnumModel;
  enumValues?: readonly string[];
  /** `col.raw` / `col.ch` type text. */
  nativeText?: string;
  /** undefined: the dialect's default (nullable, except ClickHouse where columns are NOT NULL unless `Nullable(...)`). */
  nullable: boolean | undefined;
  primaryKey: boolean;
  autoincrement: boolean;
  unique: boolean;
  /** undefined: no default. */
  default: DefaultInput | undefined;
  comment: string | null;
  references: ColumnReference | undefined;
}

export const COLUMN_DEF: unique symbol = Symbol.for('mtool.column');
/** Where a builder sits once `table()` adopted it: what `references(() => users.id)` resolves to. */
export const COLUMN_OWNER: unique symbol = Symbol.for('mtool.column.owner');

export interface ColumnOwner {
  model: Model<TableModel> | Model;
  column: string;
}

export type AnyColumnBuilder = ColumnBuilder<unknown, boolean>;

/**
 * A column in a model. `TData` is the row value type, `TNullable` whether `null` is allowed
 * (true until `.notNull()` or `.primaryKey()`); both feed `InferRow`.
 */
export class ColumnBuilder<TData, TNullable extends boolean = true> {
  declare readonly $type: TData;
  declare readonly $nullable: TNullable;
  readonly [COLUMN_DEF]: ColumnDef;
  [COLUMN_OWNER]: ColumnOwner | undefined;

  constructor(def: Omit<ColumnDef, 'nullable' | 'primaryKey' | 'autoincrement' | 'unique' | 'default' | 'comment' | 'references'>) {
    this[COLUMN_DEF] = {
      nullable: undefined,
      primaryKey: false,
      autoincrement: false,
      unique: false,
      default: undefined,
      comment: null,
      references: undefined,
      ...def,
    };
    this[COLUMN_OWNER] = undefined;
  }

  /** Part of the primary key (several columns marked this way form a composite key in column order). Implies NOT NULL. */
  primaryKey(): ColumnBuilder<TData, false> {
    this[COLUMN_DEF].primaryKey = true;
    this[COLUMN_DEF].nullable = false;
    return this as unknown as ColumnBuilder<TData, false>;
  }

  notNull(): ColumnBuilder<TData, false> {
    this[COLUMN_DEF].nullable = false;
    return this as unknown as ColumnBuilder<TData, false>;
  }

  /** Explicitly nullable (on ClickHouse: wraps the type in `Nullable(...)`). */
  nullable(): ColumnBuilder<TData, true> {
    if (this[COLUMN_DEF].primaryKey) throw new MtoolConfigError(`column: a primary key column cannot be nullable`);
    this[COLUMN_DEF].nullable = true;
    return this as unknown as ColumnBuilder<TData, true>;
  }

  /**
   * Default value: a literal (string, number, boolean) or a SQL expression written with `sql`.
   * @example col.timestamp().default(sql`CURRENT_TIMESTAMP`)
   */
  default(value: (TData extends Date ? never : TData) | DefaultInput): this {
    if (!(typeof value === 'string' || typeof value === 'boolean' || isSql(value) || (typeof value === 'number' && Number.isFinite(value)))) {
      throw new MtoolConfigError(`column default: expected a string, finite number, boolean or sql\`...\`, got ${describe(value)}`);
    }
    const def = this[COLUMN_DEF];
    const values = def.enumRef?.values ?? def.enumValues;
    if (values && typeof value === 'string' && !values.includes(value)) {
      throw new MtoolConfigError(`enum column default '${value}' is not one of its values (${values.join(', ')})`);
    }
    def.default = value as DefaultInput;
    return this;
  }

  comment(text: string): this {
    if (typeof text !== 'string') throw new MtoolConfigError(`column comment must be a string, got ${describe(text)}`);
    this[COLUMN_DEF].comment = text;
    return this;
  }

  /**
   * Server-generated integer key. PostgreSQL: `GENERATED BY DEFAULT AS IDENTITY`; MySQL/MariaDB:
   * `AUTO_INCREMENT`; SQLite: `INTEGER PRIMARY KEY AUTOINCREMENT` (the type becomes INTEGER);
   * ClickHouse has none (compiling fails).
   */
  autoincrement(): this {
    const kind = this[COLUMN_DEF].kind;
    if (kind !== 'integer' && kind !== 'bigint' && kind !== 'smallint') {
      throw new MtoolConfigError(`column: autoincrement() needs an integer column (integer, bigint, smallint), not ${kind}`);
    }
    this[COLUMN_DEF].autoincrement = true;
    return this;
  }

  /** A unique index on this column alone, named `uq_{table}_{column}`. */
  unique(): this {
    this[COLUMN_DEF].unique = true;
    return this;
  }

  /**
   * Foreign key to another table's column. The thunk lets tables reference each other in any order.
   * @example col.bigint().references(() => users.id, { onDelete: 'cascade' })
   */
  references(target: () => AnyColumnBuilder, options: ReferenceOptions = {}): this {
    if (typeof target !== 'function') throw new MtoolConfigError(`column references(): pass a function returning the column, e.g. () => users.id`);
    checkOptions('column references()', options, REFERENCE_OPTION_KEYS);
    const onDelete = normalizeAction(options.onDelete);
    const onUpdate = normalizeAction(options.onUpdate);
    if (!onDelete) throw new MtoolConfigError(`column references(): onDelete '${options.onDelete}' is not one of cascade, restrict, set null, set default, no action`);
    if (!onUpdate) throw new MtoolConfigError(`column references(): onUpdate '${options.onUpdate}' is not one of cascade, restrict, set null, set default, no action`);
    if (options.name !== undefined) checkName('column references()', 'name', options.name);
    this[COLUMN_DEF].references = {
      target,
      onDelete,
      onUpdate,
      deferrable: options.deferrable ?? options.initiallyDeferred ?? false,
      initiallyDeferred: options.initiallyDeferred ?? false,
      name: options.name,
    };
    return this;
  }

  /** A copy for another table (tables adopt copies so a shared builder is never bound twice). */
  clone(): this {
    const copy = Object.create(Object.getPrototypeOf(this)) as this;
    (copy as { [COLUMN_DEF]: ColumnDef })[COLUMN_DEF] = { ...this[COLUMN_DEF] };
    copy[COLUMN_OWNER] = undefined;
    return copy;
  }
}

export interface TimestampOptions {
  /** `timestamp with time zone` (PostgreSQL), `TIMESTAMP` (MySQL), `DateTime('UTC')` (ClickHouse). Default false. */
  withTimezone?: boolean;
  /** Fractional seconds digits. */
  precision?: number;
}

/**
 * Enum column from a `pgEnum(...)` or an inline list of values. On PostgreSQL an inline list
 * becomes a named type `{table}_{column}_enum`.
 */
function enumColumn<const V extends readonly string[]>(values: V): ColumnBuilder<V[number], true>;
function enumColumn<V extends readonly string[]>(source: Model<EnumModel> & { readonly values: V }): ColumnBuilder<V[number], true>;
function enumColumn(source: unknown): ColumnBuilder<string, true> {
  if (Array.isArray(source)) {
    checkEnumValues(source, 'col.enum()');
    return make<string>({ kind: 'enum', enumValues: [...(source as readonly string[])] });
  }
  const model = (source as Partial<Model<EnumModel>> | null)?.[MODEL];
  if (!model || model.kind !== 'enum') throw new MtoolConfigError(`col.enum(): pass a pgEnum(...) or an array of values, got ${describe(source)}`);
  return make<string>({ kind: 'enum', enumRef: model });
}

function make<T>(def: ConstructorParameters<typeof ColumnBuilder>[0]): ColumnBuilder<T, true> {
  return new ColumnBuilder<T, true>(def);
}

function checkEnumValues(values: readonly unknown[], owner: string): void {
  if (values.length === 0) throw new MtoolConfigError(`${owner}: needs at least one value`);
  const seen = new Set<string>();
  for (const v of values) {
    if (typeof v !== 'string') throw new MtoolConfigError(`${owner}: values must be strings, got ${describe(v)}`);
    if (seen.has(v)) throw new MtoolConfigError(`${owner}: value '${v}' appears twice`);
    seen.add(v);
  }
}

/**
 * Column types. The spec's normalized set plus backend types; `src/schema/native-types.ts`
 * lists what each becomes on every dialect.
 */
export const col = {
  integer: () => make<number>({ kind: 'integer' }),
  /** 64-bit integer; drivers may return it as a string or bigint, rows accept number or bigint. */
  bigint: () => make<number | bigint>({ kind: 'bigint' }),
  smallint: () => make<number>({ kind: 'smallint' }),
  /** Length is required on MySQL/MariaDB. */
  varchar: (length?: number) => {
    if (length !== undefined) checkPositiveInt('col.varchar()', 'length', length);
    return make<string>(length === undefined ? { kind: 'varchar' } : { kind: 'varchar', length });
  },
  text: () => make<string>({ kind: 'text' }),
  boolean: () => make<boolean>({ kind: 'boolean' }),
  timestamp: (options: TimestampOptions = {}) => {
    checkOptions('col.timestamp()', options, ['withTimezone', 'precision']);
    if (options.precision !== undefined) checkPositiveInt('col.timestamp()', 'precision', options.precision, true);
    return make<Date>({ kind: 'timestamp', withTimezone: options.withTimezone ?? false, ...(options.precision === undefined ? {} : { precision: options.precision }) });
  },
  /** Exact decimal; rows carry it as a string to keep every digit (numbers accepted on insert). */
  numeric: (precision?: number, scale?: number) => {
    if (precision !== undefined) checkPositiveInt('col.numeric()', 'precision', precision);
    if (scale !== undefined) {
      if (precision === undefined) throw new MtoolConfigError('col.numeric(): a scale needs a precision');
      checkPositiveInt('col.numeric()', 'scale', scale, true);
      if (scale > precision) throw new MtoolConfigError(`col.numeric(${precision}, ${scale}): scale cannot exceed precision`);
    }
    return make<string | number>({ kind: 'numeric', ...(precision === undefined ? {} : { precision }), ...(scale === undefined ? {} : { scale }) });
  },
  /** Single precision (`real`, `FLOAT`, `Float32`). */
  float: () => make<number>({ kind: 'float' }),
  /** Double precision (`double precision`, `DOUBLE`, `Float64`). */
  double: () => make<number>({ kind: 'double' }),
  bytes: () => make<Uint8Array>({ kind: 'bytes' }),
  uuid: () => make<string>({ kind: 'uuid' }),
  /**
   * Enum column from a `pgEnum(...)` or an inline list of values. On PostgreSQL an inline list
   * becomes a named type `{table}_{column}_enum`.
   */
  enum: enumColumn,
  json: <T = unknown>() => make<T>({ kind: 'json' }),
  /** PostgreSQL `jsonb`; other dialects use their JSON type. */
  jsonb: <T = unknown>() => make<T>({ kind: 'jsonb' }),
  /**
   * Any other native type, written as the database spells it (`tsvector`, `inet`, `integer[]`).
   * Stored in the IR as raw text unless it is one of the normalized types.
   */
  raw: <T = unknown>(nativeType: string) => {
    checkName('col.raw()', 'type', nativeType);
    return make<T>({ kind: 'raw', nativeText: nativeType });
  },
  /** A ClickHouse type verbatim: `col.ch('LowCardinality(String)')`, `col.ch('Nullable(Int32)')`. */
  ch: <T = unknown>(clickhouseType: string) => {
    checkName('col.ch()', 'type', clickhouseType);
    return make<T>({ kind: 'ch', nativeText: clickhouseType });
  },
};

/** Definition data of a column builder. */
export function columnDef(column: AnyColumnBuilder): ColumnDef {
  return column[COLUMN_DEF];
}

export function isColumnBuilder(value: unknown): value is AnyColumnBuilder {
  return value instanceof ColumnBuilder;
}

export { checkEnumValues };
