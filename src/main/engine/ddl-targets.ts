import type { Dialect, SplitDialect } from '../../dialects/types.js';
import { SPLIT_PRESETS, type SplitPreset } from '../../parser/presets.js';
import { tokenize, type Token } from '../../parser/sql-tokens.js';
import type { SchemaIR } from '../../schema/ir.js';
import { getEntry, hasEntry } from '../../schema/name-map.js';

/**
 * Which schema objects a migration's statements change, so the snapshot after it re-reads only
 * those (see snapshot-hook.ts). A small recogniser of the common DDL forms, not a parser:
 * anything it does not know for certain, it answers "full" (introspect everything), because a
 * wrong "partial" answer writes a snapshot that differs from the database.
 */

/** Lexical and grammatical differences that matter to the recogniser. */
export interface DdlSyntax {
  readonly dialect: SplitDialect;
  /** Quotes, comments and escapes: the splitter's preset of the dialect. */
  readonly lexer: SplitPreset;
  /** Unquoted identifiers are folded to lower case (PostgreSQL); else kept as written. */
  readonly foldLower: boolean;
  /** Tables live in schemas and the IR keys them `schema.table` outside the default one (PostgreSQL). */
  readonly schemas: boolean;
  /** Named enum types exist (`CREATE TYPE ... AS ENUM`, PostgreSQL). */
  readonly namedEnums: boolean;
  /**
   * Functions and triggers can run DDL (PostgreSQL): a data statement calling a function mtool does
   * not know, or touching a database with triggers or rules, may change the schema.
   */
  readonly codeRunsDdl: boolean;
  /**
   * A foreign key declared without columns refers to its target's primary key as it is when
   * read (SQLite), so the referring table's IR changes with the target's: see
   * {@link declaresLooseReference}.
   */
  readonly looseReferences: boolean;
  /**
   * Every statement names the tables it changes (MySQL: `DROP INDEX a ON t`; no schemas, and
   * the IR holds only base tables), so what a migration touches never depends on the schema
   * before it: {@link migrationEffect} reads nothing of `previous` but the keys' letter case. A
   * schema read while migrations ran, each table as one of them left it, then follows them
   * (SchemaWindow.follow) as well as one read before them.
   */
  readonly namesEveryTable: boolean;
  /**
   * The server cuts longer names to this many bytes (PostgreSQL: NAMEDATALEN - 1, 63 in standard
   * builds), so a longer table name in a statement is not the key the IR has: such a migration is
   * read in full.
   */
  readonly identifierBytes?: number;
  /**
   * A query returning one row `{ event_triggers, dml_code, dependents }` (booleans, or 0/1), read
   * with {@link databaseCode}: enabled event triggers (any DDL may run more DDL: every migration is
   * read in full), triggers or rules (data statements may run DDL), and tables whose IR follows
   * another table's (see {@link DatabaseCode.dependents}). Where such things exist.
   */
  readonly codeCheck?: string;
}

/** What one statement does to the schema IR. */
export type StatementEffect =
  /** Data only (INSERT / UPDATE / DELETE / SELECT): the schema is unchanged. */
  | { kind: 'data' }
  /** These tables (name parts as written, last part the table) and nothing else. */
  | { kind: 'tables'; tables: NameRef[] }
  /** These indexes, by name (their tables are found in the previous IR). */
  | { kind: 'indexes'; indexes: NameRef[] }
  /** Named enum types only. */
  | { kind: 'enums' }
  | { kind: 'full'; reason: string };

/** A possibly qualified name: identifier parts, folded as the dialect folds them. */
export interface NameRef {
  parts: string[];
  /** The statement creates it (so it need not exist before). */
  created?: boolean;
}

/** What one migration does to the schema IR, resolved against the IR before it. */
export type MigrationEffect =
  | { kind: 'none' }
  /** Re-read these table keys (and, with `enums`, the enum types); keep everything else. */
  | { kind: 'partial'; tables: string[]; enums: boolean }
  | { kind: 'full'; reason: string };

/** What the database itself may do on its own, and how its tables hang together (see {@link DdlSyntax.codeCheck}). */
export interface DatabaseCode {
  /** Event triggers: any DDL statement may run more DDL. */
  eventTriggers: boolean;
  /** Triggers or rules: a data statement may run DDL. */
  dmlCode: boolean;
  /**
   * Some table's IR changes when another table changes (PostgreSQL: an inheritance child gets
   * the columns added to its parent; SQLite: a foreign key without columns follows its target's
   * primary key). A partial introspection then returns such tables with the asked ones (see
   * IntrospectOptions.tables), and only the migration that changed the other table explains them.
   */
  dependents: boolean;
}

/** Nothing of the kind: what databases without a {@link DdlSyntax.codeCheck} have. */
export const NO_CODE: DatabaseCode = { eventTriggers: false, dmlCode: false, dependents: false };

/** The row of a {@link DdlSyntax.codeCheck} query as {@link DatabaseCode}. */
export function databaseCode(row: Record<string, unknown> | undefined): DatabaseCode {
  const yes = (v: unknown) => v === true || v === 1 || v === 1n || v === '1' || v === 't';
  return { eventTriggers: yes(row?.event_triggers), dmlCode: yes(row?.dml_code), dependents: yes(row?.dependents) };
}

const PG_CODE_CHECK = `SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_event_trigger WHERE evtenabled <> 'D') AS event_triggers,
  (EXISTS (SELECT 1 FROM pg_catalog.pg_trigger WHERE NOT tgisinternal) OR EXISTS (SELECT 1 FROM pg_catalog.pg_rewrite r JOIN pg_catalog.pg_class c ON c.oid = r.ev_class WHERE c.relkind IN ('r', 'p') AND r.rulename <> '_RETURN')) AS dml_code,
  EXISTS (SELECT 1 FROM pg_catalog.pg_inherits i JOIN pg_catalog.pg_class c ON c.oid = i.inhrelid WHERE NOT c.relispartition) AS dependents`;

const SQLITE_CODE_CHECK = `SELECT 0 AS event_triggers, 0 AS dml_code,
  EXISTS (SELECT 1 FROM sqlite_schema m JOIN pragma_foreign_key_list(m.name) f WHERE m.type = 'table' AND f."to" IS NULL) AS dependents`;

/** The recogniser's rules for a dialect, from its splitter preset and capabilities. */
export function ddlSyntax(dialect: Pick<Dialect, 'splitDialect' | 'capabilities'>): DdlSyntax {
  const pg = dialect.splitDialect === 'postgresql';
  return {
    dialect: dialect.splitDialect,
    lexer: SPLIT_PRESETS[dialect.splitDialect],
    foldLower: pg,
    schemas: dialect.capabilities.schemas,
    namedEnums: dialect.capabilities.namedEnums,
    codeRunsDdl: pg,
    looseReferences: dialect.splitDialect === 'sqlite',
    namesEveryTable: dialect.splitDialect === 'mysql',
    ...(pg ? { identifierBytes: 63 } : {}),
    ...(pg ? { codeCheck: PG_CODE_CHECK } : dialect.splitDialect === 'sqlite' ? { codeCheck: SQLITE_CODE_CHECK } : {}),
  };
}

// ---------------------------------------------------------------------------------------------
// One statement

/** A cursor over a statement's tokens. */
class Cursor {
  i = 0;
  constructor(
    readonly tokens: Token[],
    readonly syntax: DdlSyntax,
  ) {}

  get done(): boolean {
    return this.i >= this.tokens.length;
  }

  /** The next token is this keyword (case-insensitive, unquoted). */
  is(word: string, at = this.i): boolean {
    const t = this.tokens[at];
    return t !== undefined && t.kind === 'word' && t.text.toUpperCase() === word;
  }

  /** Consume these keywords in order when they all come next. */
  take(...words: string[]): boolean {
    if (!words.every((w, k) => this.is(w, this.i + k))) return false;
    this.i += words.length;
    return true;
  }

  isPunct(p: string, at = this.i): boolean {
    const t = this.tokens[at];
    return t !== undefined && t.kind === 'punct' && t.text === p;
  }

  /** One identifier part: a word (folded as the dialect folds) or a quoted identifier. */
  part(): string | undefined {
    const t = this.tokens[this.i];
    if (!t || (t.kind !== 'word' && t.kind !== 'ident')) return undefined;
    this.i++;
    return t.kind === 'word' && this.syntax.foldLower ? asciiLower(t.text) : t.text;
  }

  /** A possibly qualified name `a.b.c`. */
  name(): string[] | undefined {
    const first = this.part();
    if (first === undefined) return undefined;
    const parts = [first];
    while (this.isPunct('.')) {
      this.i++;
      const p = this.part();
      if (p === undefined) return undefined;
      parts.push(p);
    }
    return parts;
  }

  /** A comma-separated list of names. */
  names(): string[][] | undefined {
    const list: string[][] = [];
    do {
      const n = this.name();
      if (!n) return undefined;
      list.push(n);
    } while (this.isPunct(',') && ++this.i);
    return list;
  }

  /** Any remaining word (outside strings) equals one of these keywords. */
  restHas(words: readonly string[]): string | undefined {
    for (let k = this.i; k < this.tokens.length; k++) {
      const t = this.tokens[k]!;
      if (t.kind !== 'word') continue;
      const up = t.text.toUpperCase();
      if (words.includes(up)) return up;
    }
    return undefined;
  }
}

/** ASCII-only lower case: what PostgreSQL does to unquoted names in UTF-8 databases. */
export function asciiLower(text: string): string {
  return text.replace(/[A-Z]+/g, (m) => m.toLowerCase());
}

const full = (reason: string): StatementEffect => ({ kind: 'full', reason });

/** Words that, anywhere in an ALTER TABLE, change objects beyond the table or its key. */
const ALTER_TABLE_UNSAFE = ['RENAME', 'CHANGE', 'CASCADE', 'ATTACH', 'DETACH', 'INHERIT', 'SCHEMA', 'PARTITION', 'CLUSTER', 'EXCHANGE', 'DISCARD', 'IMPORT'];

/**
 * Classify one statement. Recognised: CREATE TABLE [IF NOT EXISTS] t, ALTER TABLE t ... (not
 * renames, CASCADE, partitions, schema moves), DROP TABLE [IF EXISTS] a, b (not CASCADE),
 * CREATE [UNIQUE] INDEX [CONCURRENTLY] [IF NOT EXISTS] [name] ON [ONLY] t, DROP INDEX name
 * (MySQL: ON t), COMMENT ON TABLE/COLUMN (PostgreSQL), CREATE TYPE ... AS ENUM, ALTER TYPE ...
 * ADD VALUE, DROP TYPE (PostgreSQL), and INSERT/UPDATE/DELETE/SELECT/WITH/REPLACE as data.
 * Everything else is `full`.
 * @example classifyStatement('ALTER TABLE "Users" ADD COLUMN x int', ddlSyntax(dialect)) // { kind: 'tables', tables: [{ parts: ['Users'] }] }
 */
export function classifyStatement(text: string, syntax: DdlSyntax): StatementEffect {
  const tokens = tokenize(text, syntax.lexer);
  if (!tokens) return full('the statement holds text the recogniser does not read (executable comment or unbalanced quotes)');
  if (tokens.length === 0) return { kind: 'data' };
  const c = new Cursor(tokens, syntax);
  const head = tokens[0]!.kind === 'word' ? tokens[0]!.text.toUpperCase() : '';
  switch (head) {
    case 'INSERT':
    case 'UPDATE':
    case 'DELETE':
    case 'REPLACE':
    case 'SELECT':
    case 'WITH':
      return dataStatement(c, head);
    case 'CREATE':
      c.i++;
      if (c.take('TABLE')) return createTable(c);
      if (c.is('INDEX') || c.is('UNIQUE') || (syntax.dialect === 'mysql' && (c.is('FULLTEXT') || c.is('SPATIAL')))) return createIndex(c);
      if (syntax.namedEnums && c.take('TYPE')) return createType(c);
      return full(`CREATE ${c.tokens[c.i]?.text ?? ''} is not recognised`);
    case 'ALTER':
      c.i++;
      if (c.take('TABLE')) return alterTable(c);
      if (syntax.namedEnums && c.take('TYPE')) return alterType(c);
      return full(`ALTER ${c.tokens[c.i]?.text ?? ''} is not recognised`);
    case 'DROP':
      c.i++;
      if (c.take('TABLE')) return dropTable(c);
      if (c.take('INDEX')) return dropIndex(c);
      if (syntax.namedEnums && c.take('TYPE')) return dropType(c);
      return full(`DROP ${c.tokens[c.i]?.text ?? ''} is not recognised`);
    case 'COMMENT':
      c.i++;
      if (syntax.dialect === 'postgresql' && c.take('ON')) return commentOn(c);
      return full('COMMENT is not recognised');
    default:
      return full(`${tokens[0]!.text} statements are not recognised`);
  }
}

function tables(...refs: NameRef[]): StatementEffect {
  for (const r of refs) {
    // ClickHouse keeps a materialized view's storage in `.inner.<view>`: the view changes with it.
    if (r.parts.some((p) => p.startsWith('.inner'))) return full(`'${r.parts.join('.')}' belongs to a materialized view`);
  }
  return { kind: 'tables', tables: refs };
}

/** `CREATE TABLE [IF NOT EXISTS] name ...` (CREATE TEMP/UNLOGGED/OR REPLACE ... are not recognised). */
function createTable(c: Cursor): StatementEffect {
  c.take('IF', 'NOT', 'EXISTS');
  const name = c.name();
  if (!name) return full('CREATE TABLE without a name it can read');
  if (c.syntax.dialect === 'postgresql') {
    // Partitions and inheritance children tie the new table to another one.
    const tied = c.restHas(['PARTITION', 'INHERITS', 'EXECUTE']);
    if (tied && (tied !== 'PARTITION' || c.tokens.some((t, k) => t.kind === 'word' && t.text.toUpperCase() === 'PARTITION' && c.is('OF', k + 1)))) {
      return full(`CREATE TABLE ... ${tied} is not recognised`);
    }
    // CREATE TABLE ... AS SELECT runs the query: the same function check as data statements.
    const as = c.tokens.findIndex((t, k) => k >= c.i && t.depth === 0 && t.kind === 'word' && t.text.toUpperCase() === 'AS');
    if (as >= 0) {
      const query = dataStatement(new Cursor(c.tokens.slice(as + 1), c.syntax), 'SELECT');
      if (query.kind === 'full') return query;
    }
  }
  return tables({ parts: name, created: true });
}

/** `ALTER TABLE [IF EXISTS] [ONLY] name [*] action, ...`. */
function alterTable(c: Cursor): StatementEffect {
  c.take('IF', 'EXISTS');
  c.take('ONLY');
  if (c.is('ALL')) return full('ALTER TABLE ALL IN TABLESPACE is not recognised');
  const name = c.name();
  if (!name) return full('ALTER TABLE without a name it can read');
  for (let k = c.i; k < c.tokens.length; k++) {
    const t = c.tokens[k]!;
    if (t.kind !== 'word') continue;
    const word = t.text.toUpperCase();
    if (!ALTER_TABLE_UNSAFE.includes(word)) continue;
    // ON DELETE CASCADE / ON UPDATE CASCADE is a foreign key's action, not a cascading change.
    if (word === 'CASCADE' && (c.is('DELETE', k - 1) || c.is('UPDATE', k - 1))) continue;
    return full(`ALTER TABLE ... ${word} may change other objects or the table's key`);
  }
  return tables({ parts: name });
}

/** `DROP TABLE [IF EXISTS] a [, b] [RESTRICT]` (not CASCADE, not TEMPORARY). */
function dropTable(c: Cursor): StatementEffect {
  c.take('IF', 'EXISTS');
  const list = c.names();
  if (!list) return full('DROP TABLE without names it can read');
  c.take('RESTRICT');
  if (!c.done) return full(`DROP TABLE ... ${c.tokens[c.i]!.text} is not recognised`);
  return tables(...list.map((parts) => ({ parts })));
}

/** `CREATE [UNIQUE] INDEX [CONCURRENTLY] [IF NOT EXISTS] [name] [USING m] ON [ONLY] table ...`. */
function createIndex(c: Cursor): StatementEffect {
  c.take('UNIQUE') || c.take('FULLTEXT') || c.take('SPATIAL');
  if (!c.take('INDEX')) return full('CREATE ... INDEX form is not recognised');
  c.take('CONCURRENTLY');
  c.take('IF', 'NOT', 'EXISTS');
  if (!c.is('ON')) {
    if (!c.name()) return full('CREATE INDEX without a name it can read');
    if (c.take('USING') && !c.part()) return full('CREATE INDEX ... USING without a method');
  }
  if (!c.take('ON')) return full('CREATE INDEX without ON table');
  c.take('ONLY');
  const table = c.name();
  if (!table) return full('CREATE INDEX ON without a table name it can read');
  return tables({ parts: table });
}

/** PostgreSQL/SQLite `DROP INDEX [CONCURRENTLY] [IF EXISTS] a [, b] [RESTRICT]`; MySQL `DROP INDEX a ON t [...]`. */
function dropIndex(c: Cursor): StatementEffect {
  c.take('CONCURRENTLY');
  c.take('IF', 'EXISTS');
  const list = c.names();
  if (!list) return full('DROP INDEX without names it can read');
  if (c.take('ON')) {
    const table = c.name();
    if (!table || list.length !== 1) return full('DROP INDEX ... ON form is not recognised');
    return tables({ parts: table });
  }
  c.take('RESTRICT');
  if (!c.done) return full(`DROP INDEX ... ${c.tokens[c.i]!.text} is not recognised`);
  return { kind: 'indexes', indexes: list.map((parts) => ({ parts })) };
}

/** PostgreSQL `COMMENT ON TABLE t IS ...` / `COMMENT ON COLUMN t.c IS ...`. */
function commentOn(c: Cursor): StatementEffect {
  const column = c.take('COLUMN');
  if (!column && !c.take('TABLE')) return full('COMMENT ON objects other than tables and columns is not recognised');
  const name = c.name();
  if (!name || !c.take('IS')) return full('COMMENT ON without a name it can read');
  const parts = column ? name.slice(0, -1) : name;
  if (parts.length === 0) return full('COMMENT ON COLUMN without its table');
  return tables({ parts });
}

/** PostgreSQL `CREATE TYPE name AS ENUM (...)`. */
function createType(c: Cursor): StatementEffect {
  if (!c.name() || !c.take('AS', 'ENUM')) return full('CREATE TYPE other than AS ENUM is not recognised');
  return { kind: 'enums' };
}

/**
 * PostgreSQL `ALTER TYPE name ADD VALUE ...`. RENAME VALUE is not recognised: column defaults
 * of the type read back with the new label, so tables change too.
 */
function alterType(c: Cursor): StatementEffect {
  if (!c.name() || !c.take('ADD', 'VALUE')) return full('ALTER TYPE other than ADD VALUE is not recognised');
  return { kind: 'enums' };
}

/** PostgreSQL `DROP TYPE [IF EXISTS] a [, b] [RESTRICT]` (a type still in use cannot go without CASCADE). */
function dropType(c: Cursor): StatementEffect {
  c.take('IF', 'EXISTS');
  if (!c.names()) return full('DROP TYPE without names it can read');
  c.take('RESTRICT');
  if (!c.done) return full(`DROP TYPE ... ${c.tokens[c.i]!.text} is not recognised`);
  return { kind: 'enums' };
}

/** Words that may stand before `(` without being a function call. */
const NOT_CALLS = new Set(
  'VALUES IN EXISTS ANY ALL SOME AS USING ON OVER FILTER GROUP CONFLICT AND OR NOT WHERE SELECT FROM JOIN BY SET WHEN THEN ELSE RETURNING LATERAL IS BETWEEN LIKE ILIKE ROW ARRAY CASE DISTINCT UNION INTERSECT EXCEPT LIMIT OFFSET HAVING WINDOW PARTITION DEFAULT NULL RECURSIVE DO UPDATE ONLY FETCH FOR OF WITHIN MATERIALIZED INTO TABLE'.split(' '),
);

/**
 * PostgreSQL functions a data statement may call without running DDL: built-in, side-effect free
 * (or touching sequences only). A call to anything else is read in full.
 */
const SAFE_CALLS = new Set(
  `now current_timestamp current_date localtimestamp clock_timestamp statement_timestamp transaction_timestamp timeofday
  gen_random_uuid uuid_generate_v4 md5 sha256 encode decode lower upper initcap length char_length octet_length concat concat_ws format replace
  split_part left right lpad rpad trim btrim ltrim rtrim substr substring position strpos regexp_replace regexp_match translate repeat reverse
  to_char to_date to_timestamp to_number date_trunc date_part extract age make_date make_time make_timestamp make_timestamptz make_interval
  abs round trunc ceil ceiling floor mod power sqrt exp ln log sign random greatest least coalesce nullif cast
  count sum min max avg array_agg string_agg bool_and bool_or every json_agg jsonb_agg json_object_agg jsonb_object_agg
  json_build_object jsonb_build_object json_build_array jsonb_build_array to_json to_jsonb jsonb_set jsonb_insert jsonb_strip_nulls row_to_json
  array_length array_append array_prepend array_cat array_remove array_position cardinality unnest generate_series
  row_number rank dense_rank percent_rank cume_dist ntile lag lead first_value last_value nth_value
  nextval currval setval lastval
  varchar char character numeric decimal timestamp timestamptz time timetz interval bit varbit float4 float8 int2 int4 int8 text`.split(/\s+/),
);

/** INSERT / UPDATE / DELETE / SELECT / WITH: data only, unless it creates a table or may run code. */
function dataStatement(c: Cursor, head: string): StatementEffect {
  const t = c.tokens;
  if (head === 'SELECT' || head === 'WITH') {
    // SELECT ... INTO new_table creates a table (PostgreSQL); WITH ... INSERT INTO is fine.
    const into = t.findIndex((x, k) => x.depth === 0 && x.kind === 'word' && x.text.toUpperCase() === 'INTO' && !c.is('INSERT', k - 1));
    if (into >= 0) return full(`${head} ... INTO is not recognised`);
  }
  if (!c.syntax.codeRunsDdl) return { kind: 'data' };
  for (let k = 1; k < t.length; k++) {
    if (!c.isPunct('(', k)) continue;
    const before = t[k - 1]!;
    if (before.kind !== 'word' && before.kind !== 'ident') continue;
    if (before.kind === 'word' && NOT_CALLS.has(before.text.toUpperCase())) continue;
    // The name before `(` may be qualified: `INSERT INTO app.t (a, b)` lists columns, it calls nothing.
    let start = k - 1;
    while (start >= 2 && c.isPunct('.', start - 1) && (t[start - 2]!.kind === 'word' || t[start - 2]!.kind === 'ident')) start -= 2;
    if (c.is('INTO', start - 1)) continue;
    // A qualified call is safe only into pg_catalog: `app.now()` is whatever the project made it.
    if (start < k - 1 && !(start === k - 3 && t[start]!.kind === 'word' && t[start]!.text.toLowerCase() === 'pg_catalog')) {
      return full(`the statement calls ${t.slice(start, k).map((x) => x.text).join('')}(), which may run DDL`);
    }
    const fn = before.kind === 'word' ? before.text.toLowerCase() : before.text;
    if (SAFE_CALLS.has(fn)) continue;
    return full(`the statement calls ${fn}(), which may run DDL`);
  }
  return { kind: 'data' };
}

// ---------------------------------------------------------------------------------------------
// One migration

/**
 * The most SQL of one migration {@link migrationEffect} reads (characters). Its tokens take
 * many times the memory of the text and ~50 ms per MiB on the main thread before the migration
 * starts: on SQLite a `migrate` of a 100 MB INSERT took 27 s (its statement ran in 4.5 s) and
 * 1.6 GB, of a 300 MB one 106 s and 3.5 GB. A larger migration is `full`: one read of the
 * schema after it.
 */
const READ_CHARS = 8 * 1024 * 1024;

/**
 * What a migration's statements do, resolved against the IR before it: `none` (data only),
 * `partial` (the table keys to re-read, every key that may name a touched table, and whether enum
 * types changed) or `full`.
 *
 * Resolution is conservative: on PostgreSQL an unqualified name of an existing table must be a
 * table of the default schema in `previous` (else the search path may find it elsewhere); a
 * qualified `s.t` asks for both `s.t` and `t` (`s` may be the default schema, whose tables the
 * IR keys bare); elsewhere a qualifier is another database and only the last part counts (asking
 * for more tables than changed is always right). A DROP INDEX whose index is not in `previous`,
 * and any name of a view, materialized view or dictionary, make it `full`.
 * @example migrationEffect(file.upgrade.map((s) => s.text), ddlSyntax(dialect), previousIr)
 */
export function migrationEffect(statements: readonly string[], syntax: DdlSyntax, previous: SchemaIR, code: DatabaseCode = NO_CODE): MigrationEffect {
  if (code.eventTriggers) return { kind: 'full', reason: 'the database has event triggers, which may run DDL of their own' };
  let chars = 0;
  for (const text of statements) chars += text.length;
  if (chars > READ_CHARS) return { kind: 'full', reason: `its statements hold ${(chars / (1024 * 1024)).toFixed(1)} MiB of SQL, more than the recogniser reads` };
  const keys = new Set<string>();
  const created = new Set<string>();
  let enums = false;
  let changes = false;
  for (const text of statements) {
    const effect = classifyStatement(text, syntax);
    switch (effect.kind) {
      case 'full':
        return { kind: 'full', reason: effect.reason };
      case 'data':
        if (code.dmlCode) return { kind: 'full', reason: 'the database has triggers or rules, which may run DDL on data statements' };
        break;
      case 'enums':
        enums = true;
        changes = true;
        break;
      case 'tables':
        changes = true;
        for (const ref of effect.tables) {
          const resolved = tableKeys(ref, syntax, previous, created);
          if (typeof resolved === 'string') return { kind: 'full', reason: resolved };
          for (const key of resolved) keys.add(key);
          if (ref.created && ref.parts.length === 1) created.add(ref.parts[0]!);
        }
        break;
      case 'indexes':
        changes = true;
        for (const ref of effect.indexes) {
          const owners = indexTables(ref, syntax, previous);
          if (owners.length === 0) return { kind: 'full', reason: `DROP INDEX ${ref.parts.join('.')}: the index is not in the previous snapshot` };
          for (const key of owners) keys.add(key);
        }
        break;
    }
  }
  if (!changes) return { kind: 'none' };
  return { kind: 'partial', tables: [...keys], enums };
}

/** The IR keys a table reference may have, or why it cannot be resolved. */
function tableKeys(ref: NameRef, syntax: DdlSyntax, previous: SchemaIR, created: ReadonlySet<string>): string[] | string {
  const parts = ref.parts;
  const limit = syntax.identifierBytes;
  const overlong = limit === undefined ? undefined : parts.find((p) => Buffer.byteLength(p) > limit);
  if (overlong !== undefined) return `'${overlong}' is longer than ${limit} bytes, which the server cuts names to`;
  const bare = parts[parts.length - 1]!;
  let keys: string[];
  if (!syntax.schemas || parts.length === 1) {
    keys = [bare];
    if (syntax.schemas && !ref.created && !hasEntry(previous.tables, bare) && !created.has(bare)) {
      return `'${bare}' is not a table of the default schema in the previous snapshot; the search path may find it elsewhere`;
    }
  } else {
    keys = [`${parts[parts.length - 2]!}.${bare}`, bare];
  }
  for (const key of keys) {
    // Own entries only: a table called `constructor` or `__proto__` is no inherited member.
    const table = getEntry(previous.tables, key);
    if (table && table.object_type !== 'table') return `'${key}' is a ${table.object_type.replace('_', ' ')}`;
  }
  return keys;
}

/** Keys of the tables owning the index a DROP INDEX names (empty when the previous IR lacks it). */
function indexTables(ref: NameRef, syntax: DdlSyntax, previous: SchemaIR): string[] {
  const name = ref.parts[ref.parts.length - 1]!;
  const schema = syntax.schemas && ref.parts.length > 1 ? ref.parts[ref.parts.length - 2] : undefined;
  const owners = new Set<string>();
  for (const index of Object.values(previous.indexes)) {
    if (index.name !== name) continue;
    const tableSchema = getEntry(previous.tables, index.table)?.schema;
    // Unqualified: only the default schema (keyed bare) is certain. Qualified: that schema, or the
    // default schema when the qualifier names it.
    if (!syntax.schemas || tableSchema === undefined || tableSchema === schema) owners.add(index.table);
  }
  return [...owners];
}

/**
 * Whether the statements may declare a foreign key without a column list where such a key
 * follows its target's primary key ({@link DdlSyntax.looseReferences}): a `REFERENCES name` not
 * followed by `(`, or text the tokenizer does not read.
 * @example declaresLooseReference(['CREATE TABLE posts (user_id int REFERENCES users)'], ddlSyntax(sqlite)) // true
 */
export function declaresLooseReference(statements: readonly string[], syntax: DdlSyntax): boolean {
  if (!syntax.looseReferences) return false;
  for (const text of statements) {
    const tokens = tokenize(text, syntax.lexer);
    if (!tokens) return true;
    const c = new Cursor(tokens, syntax);
    for (let k = 0; k < tokens.length; k++) {
      if (!c.is('REFERENCES', k)) continue;
      c.i = k + 1;
      if (!c.name() || !c.isPunct('(')) return true;
    }
  }
  return false;
}
