import type { DatabaseType } from '../dialects/types.js';
import type { ColumnTypeIR, NormalizedTypeName } from './ir.js';

/**
 * What a native type text means in the IR: the column's type fields (`type` is the canonical
 * native text when `raw`; `enum`, a PostgreSQL enum key, is the caller's to set) plus what the
 * dialect's column metadata needs.
 */
export interface NormalizedType extends Omit<ColumnTypeIR, 'enum'> {
  /** MySQL `unsigned`, ClickHouse `UInt*`. */
  unsigned?: true;
  /** ClickHouse: the type is wrapped in `Nullable(...)`. */
  nullable?: boolean;
  /** ClickHouse: the type is wrapped in `LowCardinality(...)`. */
  low_cardinality?: boolean;
  /** The native text in the dialect's canonical spelling (what goes into `native_type`). */
  native: string;
}

/**
 * The type fields of a column IR from a normalized type, each present only when it applies (so
 * compiled models and introspection give equal IR). `enumKey`: the PostgreSQL enum type's key.
 * @example { name, position, ...columnType(normalizeType('varchar(20)', 'mysql')), nullable: true, ... }
 */
export function columnType(t: NormalizedType, enumKey?: string): ColumnTypeIR {
  const out: ColumnTypeIR = { type: t.type };
  if (t.raw) out.raw = true;
  if (t.length !== undefined) out.length = t.length;
  if (t.precision !== undefined) out.precision = t.precision;
  if (t.scale !== undefined) out.scale = t.scale;
  if (t.timezone !== undefined) out.timezone = t.timezone;
  if (enumKey) out.enum = enumKey;
  if (t.enum_values) out.enum_values = t.enum_values;
  return out;
}

export interface NormalizeTypeOptions {
  /** PostgreSQL: names (or keys) of named enum types; a native type equal to one is an `enum`. */
  enums?: Iterable<string>;
}

/** One row of a mapping table: base type name → normalized type, and which arguments it takes. */
interface Rule {
  type: NormalizedTypeName;
  args?: 'length' | 'precision_scale' | 'precision';
  timezone?: boolean;
}

/** PostgreSQL, MySQL/MariaDB and SQLite share one table: base names are lower case, arguments removed. */
const SQL_RULES: Record<string, Rule> = {
  int: { type: 'integer' },
  integer: { type: 'integer' },
  int4: { type: 'integer' },
  int2: { type: 'integer' },
  tinyint: { type: 'integer' },
  smallint: { type: 'integer' },
  mediumint: { type: 'integer' },
  serial: { type: 'integer' },
  serial4: { type: 'integer' },
  smallserial: { type: 'integer' },
  bigint: { type: 'biginteger' },
  int8: { type: 'biginteger' },
  bigserial: { type: 'biginteger' },
  serial8: { type: 'biginteger' },
  varchar: { type: 'varchar', args: 'length' },
  'character varying': { type: 'varchar', args: 'length' },
  nvarchar: { type: 'varchar', args: 'length' },
  varchar2: { type: 'varchar', args: 'length' },
  text: { type: 'text' },
  tinytext: { type: 'text' },
  mediumtext: { type: 'text' },
  longtext: { type: 'text' },
  clob: { type: 'text' },
  boolean: { type: 'boolean' },
  bool: { type: 'boolean' },
  timestamp: { type: 'timestamp', args: 'precision', timezone: false },
  'timestamp without time zone': { type: 'timestamp', args: 'precision', timezone: false },
  'timestamp with time zone': { type: 'timestamp', args: 'precision', timezone: true },
  timestamptz: { type: 'timestamp', args: 'precision', timezone: true },
  datetime: { type: 'timestamp', args: 'precision', timezone: false },
  numeric: { type: 'numeric', args: 'precision_scale' },
  decimal: { type: 'numeric', args: 'precision_scale' },
  float: { type: 'float' },
  float4: { type: 'float' },
  float8: { type: 'float' },
  real: { type: 'float' },
  double: { type: 'float' },
  'double precision': { type: 'float' },
  bytea: { type: 'bytes' },
  blob: { type: 'bytes' },
  tinyblob: { type: 'bytes' },
  mediumblob: { type: 'bytes' },
  longblob: { type: 'bytes' },
  binary: { type: 'bytes', args: 'length' },
  varbinary: { type: 'bytes', args: 'length' },
  uuid: { type: 'uuid' },
};

/** ClickHouse base types (case-sensitive, as the server spells them). */
const CH_RULES: Record<string, Rule & { unsigned?: true }> = {
  Int8: { type: 'integer' },
  Int16: { type: 'integer' },
  Int32: { type: 'integer' },
  UInt8: { type: 'integer', unsigned: true },
  UInt16: { type: 'integer', unsigned: true },
  UInt32: { type: 'biginteger', unsigned: true },
  Int64: { type: 'biginteger' },
  String: { type: 'text' },
  Float32: { type: 'float' },
  Float64: { type: 'float' },
  Decimal: { type: 'numeric', args: 'precision_scale' },
  Bool: { type: 'boolean' },
  Boolean: { type: 'boolean' },
  DateTime: { type: 'timestamp' },
  DateTime64: { type: 'timestamp' },
  UUID: { type: 'uuid' },
};

const CH_DECIMAL_PRECISION: Record<string, number> = { Decimal32: 9, Decimal64: 18, Decimal128: 38, Decimal256: 76 };

/**
 * Map a native type text to the IR's normalized type (spec "Schema snapshot": normalized column
 * types). Table-driven; unknown types come back as `{ type: <canonical native>, raw: true }`.
 * Introspection and `compileModels` both call this, which is what makes their output equal.
 *
 * Canonical native spelling: PostgreSQL lower case with collapsed whitespace; MySQL/MariaDB lower
 * case without integer display widths (`tinyint(1)` kept, it means boolean); SQLite upper case;
 * ClickHouse verbatim (its type names are case-sensitive).
 * @example normalizeType('character varying(255)', 'postgresql') // { type: 'varchar', length: 255, native: 'character varying(255)' }
 * @example normalizeType('LowCardinality(Nullable(String))', 'clickhouse') // { type: 'text', nullable: true, low_cardinality: true, ... }
 */
export function normalizeType(nativeText: string, dialect: DatabaseType, options: NormalizeTypeOptions = {}): NormalizedType {
  const { enums } = options;
  const key = enums === undefined || (Array.isArray(enums) && enums.length === 0) ? `${dialect}\0${nativeText}` : undefined;
  const known = key === undefined ? undefined : normalized.get(key);
  if (known !== undefined) return copyOf(known);
  const text = nativeText.replace(/\s+/g, ' ').trim();
  const result = dialect === 'clickhouse' ? normalizeClickHouse(text) : normalizeSql(text, dialect, options);
  if (key !== undefined) {
    if (normalized.size >= NORMALIZED_MAX) normalized.clear();
    normalized.set(key, copyOf(result));
  }
  return result;
}

/**
 * Types already normalized, by dialect and native text (without enum names): a schema repeats a
 * handful of types over thousands of columns, and each normalization runs a dozen regular
 * expressions (2000 columns took ~14 ms of a SQLite introspection in a fresh process). Bounded,
 * since a long-lived process may see many schemas.
 */
const normalized = new Map<string, NormalizedType>();
const NORMALIZED_MAX = 10_000;

/** A copy the caller may change (its arrays too) without changing the remembered one. */
function copyOf(t: NormalizedType): NormalizedType {
  return t.enum_values === undefined ? { ...t } : { ...t, enum_values: [...t.enum_values] };
}

/** Canonical native spelling of a type text for a dialect (see `normalizeType`). */
export function canonicalNativeType(nativeText: string, dialect: DatabaseType): string {
  if (dialect === 'clickhouse') return nativeText.replace(/\s+/g, ' ').trim();
  const compact = (part: string) => part.replace(/\s+/g, ' ').replace(/\s*\(\s*/g, '(').replace(/\s*\)/g, ')').replace(/\s*,\s*/g, ',');
  const text = outsideQuotes(nativeText.trim(), compact);
  switch (dialect) {
    case 'sqlite':
      return outsideQuotes(text, (part) => part.toUpperCase());
    case 'mysql':
    case 'mariadb': {
      const lower = outsideQuotes(text, (part) => part.toLowerCase());
      return lower.replace(/^(tinyint|smallint|mediumint|int|integer|bigint)\((\d+)\)/, (whole, base: string, width: string) =>
        base === 'tinyint' && width === '1' ? whole : base,
      );
    }
    case 'postgresql':
      return outsideQuotes(text, (part) => part.toLowerCase());
  }
}

/** Apply `fn` to the parts of `text` outside '...', "..." and `...` quotes (quoted parts are names or labels: kept as written). */
function outsideQuotes(text: string, fn: (part: string) => string): string {
  return text.replace(/('(?:[^'\\]|''|\\.)*'|"(?:[^"]|"")*"|`(?:[^`]|``)*`)|([^'"`]+)/g, (_m, quoted: string | undefined, plain: string | undefined) =>
    quoted !== undefined ? quoted : fn(plain ?? ''),
  );
}

function normalizeSql(text: string, dialect: DatabaseType, options: NormalizeTypeOptions): NormalizedType {
  const native = canonicalNativeType(text, dialect);
  const enums = new Set(options.enums ?? []);
  if (dialect === 'postgresql' && (enums.has(text) || enums.has(text.replace(/"/g, '')))) {
    return { type: 'enum', native: text.replace(/"/g, '') };
  }
  const lower = native.toLowerCase();
  if (/^enum\(.*\)$/i.test(native)) return { type: 'enum', enum_values: parseQuotedList(native.slice(5, -1)), native };

  // Split `base(args) suffix`: arguments sit after the first word group (`timestamp(3) with time zone`).
  const m = /^([a-z_][a-z0-9_ ]*?)\s*(?:\(([^)]*)\))?((?: [a-z ]+)?)$/.exec(lower);
  if (!m) return { type: native, raw: true, native };
  let base = `${m[1] ?? ''}${m[3] ?? ''}`.replace(/\s+/g, ' ').trim();
  const args = (m[2] ?? '')
    .split(',')
    .map((a) => a.trim())
    .filter((a) => a !== '');
  let unsigned = false;
  if (dialect === 'mysql' || dialect === 'mariadb') {
    if (/ zerofill$/.test(base)) base = base.replace(/ zerofill$/, '');
    if (/ unsigned$/.test(base)) {
      unsigned = true;
      base = base.replace(/ unsigned$/, '');
    }
    if (base === 'tinyint' && args[0] === '1' && !unsigned) return { type: 'boolean', native };
    // MySQL TIMESTAMP is stored in UTC and converted to the session time zone: it carries a zone.
    if (base === 'timestamp') return withArgs({ type: 'timestamp', args: 'precision', timezone: true }, args, native, unsigned);
  }
  const rule = SQL_RULES[base];
  if (!rule || (!rule.args && args.length > 0 && !/int$|integer$/.test(base))) return { type: native, raw: true, native };
  return withArgs(rule, args, native, unsigned);
}

function withArgs(rule: Rule, args: string[], native: string, unsigned: boolean): NormalizedType {
  const out: NormalizedType = { type: rule.type, native };
  const nums = args.map((a) => Number(a));
  if (nums.some((n) => !Number.isInteger(n))) return { type: native, raw: true, native };
  if (rule.args === 'length' && nums.length > 0) out.length = nums[0];
  if (rule.args === 'precision' && nums.length > 0) out.precision = nums[0];
  if (rule.args === 'precision_scale') {
    if (nums.length > 0) out.precision = nums[0];
    if (nums.length > 1) out.scale = nums[1];
  }
  if (rule.timezone !== undefined) out.timezone = rule.timezone;
  if (unsigned) out.unsigned = true;
  return out;
}

function normalizeClickHouse(text: string): NormalizedType {
  const native = text;
  let inner = text;
  let nullable = false;
  let lowCardinality = false;
  // Wrappers nest as LowCardinality(Nullable(T)); peel them in any order.
  for (;;) {
    const wrap = /^(Nullable|LowCardinality)\((.*)\)$/.exec(inner);
    if (!wrap) break;
    if (wrap[1] === 'Nullable') nullable = true;
    else lowCardinality = true;
    inner = (wrap[2] ?? '').trim();
  }
  const flags = { nullable, low_cardinality: lowCardinality };
  const m = /^([A-Za-z0-9_]+)(?:\((.*)\))?$/.exec(inner);
  if (!m) return { type: native, raw: true, native, ...flags };
  const base = m[1] ?? '';
  const argText = m[2];
  if (base === 'Enum8' || base === 'Enum16') {
    return { type: 'enum', enum_values: parseChEnum(argText ?? ''), native, ...flags };
  }
  const decimalPrecision = CH_DECIMAL_PRECISION[base];
  if (decimalPrecision !== undefined) {
    const scale = Number(argText);
    if (Number.isInteger(scale)) return { type: 'numeric', precision: decimalPrecision, scale, native, ...flags };
  }
  const rule = CH_RULES[base];
  if (!rule) return { type: native, raw: true, native, ...flags };
  const args = argText === undefined ? [] : splitTopLevel(argText);
  const out: NormalizedType = { type: rule.type, native, ...flags };
  if (rule.unsigned) out.unsigned = true;
  if (base === 'DateTime') {
    if (args.length > 1) return { type: native, raw: true, native, ...flags };
    out.timezone = args.length === 1;
  } else if (base === 'DateTime64') {
    const precision = Number(args[0]);
    if (!Number.isInteger(precision) || args.length > 2) return { type: native, raw: true, native, ...flags };
    out.precision = precision;
    out.timezone = args.length === 2;
  } else if (rule.args === 'precision_scale') {
    const nums = args.map(Number);
    if (nums.length !== 2 || nums.some((n) => !Number.isInteger(n))) return { type: native, raw: true, native, ...flags };
    out.precision = nums[0];
    out.scale = nums[1];
  } else if (args.length > 0) {
    return { type: native, raw: true, native, ...flags };
  }
  return out;
}

/** Split `a, 'b,c', f(x, y)` at top-level commas. */
function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quote: string | null = null;
  let current = '';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (quote) {
      current += ch;
      if (ch === '\\') {
        current += text[i + 1] ?? '';
        i++;
      } else if (ch === quote) {
        if (text[i + 1] === quote) {
          current += quote;
          i++;
        } else quote = null;
      }
      continue;
    }
    if (ch === "'" || ch === '"') quote = ch;
    else if (ch === '(') depth++;
    else if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      parts.push(current.trim());
      current = '';
    } else current += ch;
  }
  if (current.trim() !== '') parts.push(current.trim());
  return parts;
}

/** `'a','it''s'` → `['a', "it's"]` (SQL quoting: doubled quote or backslash escape). */
function parseQuotedList(text: string): string[] {
  return splitTopLevel(text).map(unquote);
}

function unquote(item: string): string {
  const t = item.trim();
  if (t.length >= 2 && t.startsWith("'") && t.endsWith("'")) {
    return t.slice(1, -1).replace(/''/g, "'").replace(/\\(.)/g, '$1');
  }
  return t;
}

/** `'a' = 1, 'b' = 2` → `['a', 'b']` in declaration order. */
function parseChEnum(text: string): string[] {
  return splitTopLevel(text).map((part) => unquote(part.replace(/\s*=\s*-?\d+\s*$/, '')));
}
