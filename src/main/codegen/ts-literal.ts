import { setEntry } from '../../schema/name-map.js';
import { isSql, sqlText, type SqlExpression } from '../../schema/sql.js';

/**
 * Values the code generator writes, each both as TypeScript source text and as the runtime value
 * that text evaluates to, so generated models can be compiled in-process and checked against the
 * schema they came from before any file is written.
 */
export type Lit = string | number | boolean | null | undefined | SqlExpression | CodeRef | readonly Lit[] | { readonly [key: string]: Lit };

/** A piece of code with its value: an identifier (`users`), a thunk (`() => users`), a call. */
export interface CodeRef {
  readonly kind: 'code';
  readonly code: string;
  readonly value: unknown;
}

export function codeRef(code: string, value: unknown): CodeRef {
  return { kind: 'code', code, value };
}

function isCodeRef(value: unknown): value is CodeRef {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'code' && typeof (value as { code?: unknown }).code === 'string';
}

/** A SQL expression literal: written as sql`...`. */
export function sqlLit(text: string): SqlExpression {
  return sqlText(text);
}

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * An object key as TypeScript writes it: bare when it is an identifier, else quoted; `__proto__`
 * computed (`['__proto__']`), because in an object literal `__proto__: x` and `'__proto__': x`
 * set the object's prototype instead of adding a member (a column called that would vanish).
 */
export function propertyKey(key: string): string {
  if (key === '__proto__') return `[${quote(key)}]`;
  return IDENT.test(key) ? key : JSON.stringify(key);
}

/** sql`...` with backslashes, backticks and `${` escaped. */
function sqlTemplate(text: string): string {
  return `sql\`${text.replace(/\\/g, '\\\\').replace(/`/g, '\\`').replace(/\$\{/g, '\\${')}\``;
}

function quote(text: string): string {
  // Single quotes read better in TypeScript; JSON.stringify does the escaping.
  const json = JSON.stringify(text);
  return `'${json.slice(1, -1).replace(/\\"/g, '"').replace(/'/g, "\\'")}'`;
}

/** TypeScript source text of a literal; `indent` is the indentation of the line it starts on. */
export function emit(value: Lit, indent = ''): string {
  if (value === undefined) return 'undefined';
  if (value === null) return 'null';
  if (typeof value === 'string') return quote(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (isSql(value)) return sqlTemplate(value.text);
  if (isCodeRef(value)) return value.code;
  if (Array.isArray(value)) {
    const items = (value as Lit[]).map((v) => emit(v, `${indent}  `));
    const flat = `[${items.join(', ')}]`;
    if (flat.length + indent.length <= 100 && !flat.includes('\n')) return flat;
    return `[\n${items.map((i) => `${indent}  ${i},`).join('\n')}\n${indent}]`;
  }
  const entries = Object.entries(value as Record<string, Lit>).filter(([, v]) => v !== undefined);
  if (entries.length === 0) return '{}';
  const parts = entries.map(([k, v]) => `${propertyKey(k)}: ${emit(v, `${indent}  `)}`);
  const flat = `{ ${parts.join(', ')} }`;
  if (flat.length + indent.length <= 100 && !flat.includes('\n')) return flat;
  return `{\n${parts.map((p) => `${indent}  ${p},`).join('\n')}\n${indent}}`;
}

/** The runtime value of a literal (undefined members dropped, code references resolved). */
export function valueOf(value: Lit): unknown {
  if (value === null || value === undefined || typeof value !== 'object' || isSql(value)) return value;
  if (isCodeRef(value)) return value.value;
  if (Array.isArray(value)) return (value as Lit[]).map(valueOf);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, Lit>)) if (v !== undefined) setEntry(out, k, valueOf(v));
  return out;
}

const RESERVED = new Set(
  'break case catch class const continue debugger default delete do else enum export extends false finally for function if import in instanceof new null return super switch this throw true try typeof var void while with yield let static implements interface package private protected public await arguments eval undefined NaN Infinity'.split(' '),
);

/**
 * A camelCase identifier for a database name (`user_events` → `userEvents`, `app.events` →
 * `appEvents`), not reserved, not in `taken` (a numeric suffix is added), then added to `taken`.
 */
export function identifierFor(name: string, taken: Set<string>, suffixIfReserved = 'Table'): string {
  const words = name.split(/[^A-Za-z0-9]+/).filter((w) => w !== '');
  let id = words.map((w, i) => (i === 0 ? w.charAt(0).toLowerCase() + w.slice(1) : w.charAt(0).toUpperCase() + w.slice(1))).join('');
  if (id === '') id = 'model';
  if (/^[0-9]/.test(id)) id = `t${id}`;
  if (RESERVED.has(id) || taken.has(id)) id = `${id}${suffixIfReserved}`;
  let candidate = id;
  for (let n = 2; taken.has(candidate); n++) candidate = `${id}${n}`;
  taken.add(candidate);
  return candidate;
}
