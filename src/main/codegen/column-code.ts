import type { DatabaseType } from '../../dialects/types.js';
import { col, columnDef, type AnyColumnBuilder } from '../../schema/columns.js';
import type { ColumnIR } from '../../schema/ir.js';
import { clickhouseEnumType, mysqlEnumType, nativeTypeOf } from '../../schema/native-types.js';
import { canonicalNativeType } from '../../schema/normalize-type.js';
import { emit, sqlLit, valueOf, type CodeRef, type Lit } from './ts-literal.js';

/** A column builder as source text plus the builder that text makes. */
export interface ColumnCode {
  code: string;
  builder: AnyColumnBuilder;
}

/** Call `col.<kind>(...args)` in code and in value. */
function start(kind: string, args: Lit[]): ColumnCode {
  const fn = (col as unknown as Record<string, (...a: unknown[]) => AnyColumnBuilder>)[kind]!;
  return { code: `col.${kind}(${args.map((a) => emit(a)).join(', ')})`, builder: fn(...args.map(valueOf)) };
}

function chain(c: ColumnCode, method: string, args: Lit[] = []): ColumnCode {
  const fn = (c.builder as unknown as Record<string, (...a: unknown[]) => AnyColumnBuilder>)[method]!;
  return { code: `${c.code}.${method}(${args.map((a) => emit(a)).join(', ')})`, builder: fn.apply(c.builder, args.map(valueOf)) };
}

/** The normalized type each fixed `col.*` kind stands for: a kind is only offered for columns of that type. */
const KIND_TYPE: Record<string, string> = {
  integer: 'integer',
  smallint: 'integer',
  bigint: 'biginteger',
  varchar: 'varchar',
  text: 'text',
  boolean: 'boolean',
  timestamp: 'timestamp',
  numeric: 'numeric',
  double: 'float',
  float: 'float',
  bytes: 'bytes',
  uuid: 'uuid',
};

/** `col.*` calls worth trying for a column, most natural first. */
function candidates(c: ColumnIR): { kind: string; args: Lit[] }[] {
  const out: { kind: string; args: Lit[] }[] = [];
  for (const [kind, type] of Object.entries(KIND_TYPE)) {
    if (type !== c.type || c.raw) continue;
    if (kind === 'varchar') out.push({ kind, args: c.length === undefined ? [] : [c.length] });
    else if (kind === 'timestamp') {
      const options: Record<string, Lit> = {};
      if (c.timezone) options.withTimezone = true;
      if (c.precision !== undefined) options.precision = c.precision;
      out.push({ kind, args: Object.keys(options).length > 0 ? [options] : [] });
    } else if (kind === 'numeric') out.push({ kind, args: c.precision === undefined ? [] : c.scale === undefined ? [c.precision] : [c.precision, c.scale] });
    else out.push({ kind, args: [] });
  }
  return out;
}

function nativeOf(c: ColumnIR): string | undefined {
  return c.pg_column?.native_type ?? c.my_column?.native_type ?? c.sqlite_column?.native_type ?? c.ch_column?.native_type;
}

export interface ColumnCodeOptions {
  /** Dialect the code is written for. */
  dialect: DatabaseType;
  /** The database's own type (where the IR came from). */
  source: DatabaseType;
  /** Code reference of the pgEnum for a PostgreSQL enum key. */
  enumRef(key: string): CodeRef | undefined;
  /** Part of a single-column primary key (`.primaryKey()`); composite keys go to the table options. */
  primaryKey: boolean;
  /** Part of a composite primary key (NOT NULL is implied). */
  inCompositeKey: boolean;
}

/**
 * The `col.*` chain that compiles back to `c`. For the database's own dialect a portable kind is
 * chosen only when it yields exactly the native type the database reports (so `smallint` stays
 * `col.smallint()`, MySQL `char(36)` becomes `col.raw('char(36)')`); anything else is written
 * verbatim with `col.raw(...)` (`col.ch(...)` on ClickHouse), which always compiles to the same
 * IR type. For another dialect (`--dialect`) portable kinds are chosen by normalized type.
 */
export function columnCode(c: ColumnIR, o: ColumnCodeOptions): ColumnCode {
  const ch = o.dialect === 'clickhouse';
  const native = nativeOf(c);
  let code: ColumnCode | undefined;
  let wrappedNullable = false;
  if (c.type === 'enum' && c.enum) {
    const ref = o.enumRef(c.enum);
    if (ref) code = start('enum', [ref]);
  } else if (c.type === 'enum' && c.enum_values && o.dialect !== 'sqlite') {
    const attempt = start('enum', [c.enum_values]);
    if (o.dialect !== o.source || native === undefined || sameNative(attempt, native, c, o.dialect)) code = attempt;
  }
  if (!code) {
    for (const cand of candidates(c)) {
      const attempt = start(cand.kind, cand.args);
      if (o.dialect !== o.source || native === undefined) {
        code = attempt;
        break;
      }
      if (sameNative(attempt, native, c, o.dialect)) {
        code = attempt;
        break;
      }
    }
  }
  if (!code && native !== undefined && /^(?:json|jsonb)$/i.test(native)) code = start(native.toLowerCase(), []);
  if (!code) {
    const text = native ?? c.type;
    code = start(ch ? 'ch' : 'raw', [text]);
    // ClickHouse nullability is part of the type text there.
    wrappedNullable = ch && /^(?:LowCardinality\()?Nullable\(/.test(text);
  }
  if (o.primaryKey) code = chain(code, 'primaryKey');
  else if (ch) {
    if (c.nullable && !wrappedNullable) code = chain(code, 'nullable');
  } else if (!c.nullable && !o.inCompositeKey && !c.autoincrement) code = chain(code, 'notNull');
  if (c.autoincrement) {
    const kind = columnDef(code.builder).kind;
    if (kind === 'integer' || kind === 'bigint' || kind === 'smallint') code = chain(code, 'autoincrement');
  }
  if (c.default) code = chain(code, 'default', [c.default.kind === 'expression' ? sqlLit(c.default.sql) : c.default.value]);
  if (c.comment !== null) code = chain(code, 'comment', [c.comment]);
  return code;
}

/** The candidate's native type on `dialect` equals the database's (ClickHouse: ignoring one Nullable wrapper, which `.nullable()` adds). */
function sameNative(attempt: ColumnCode, native: string, c: ColumnIR, dialect: DatabaseType): boolean {
  const def = columnDef(attempt.builder);
  let produced: string;
  if (def.kind === 'enum') produced = dialect === 'clickhouse' ? clickhouseEnumType(def.enumValues ?? []) : mysqlEnumType(def.enumValues ?? []);
  else {
    try {
      produced = nativeTypeOf(def, dialect, 'generate-models');
    } catch {
      return false;
    }
  }
  let target = native;
  if (dialect === 'clickhouse') {
    const m = /^Nullable\((.*)\)$/.exec(native);
    if (m) target = m[1]!;
    if (c.nullable && !m) return false;
  }
  if (c.autoincrement && dialect === 'sqlite') return def.kind === 'integer';
  return canonicalNativeType(produced, dialect) === canonicalNativeType(target, dialect);
}
