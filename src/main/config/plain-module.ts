import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * An isolated configuration file that is plain JavaScript, made ready to import without a
 * compiler: its `mtool` and `mtool/...` imports pointed at this installation's files, nothing
 * else changed. Most configuration files are (`mtool init` writes one, and a `mtool.config.ts`
 * rarely holds anything TypeScript adds), and a first run in a fresh clone (a deployment's
 * `mtool migrate`) then skips esbuild, whose import and service start took 70-90 ms of a
 * ~250 ms command (module-loader.ts caches the result either way).
 *
 * `undefined` when esbuild must judge the file: any import that is not a plain static import
 * of one of mtool's own modules (esbuild names the refused import exactly), a dynamic
 * `import()` or `import.meta`, `require` anywhere in the code, or syntax this check does not
 * follow (`/` outside a comment, `<`, `@`). A file that passes may still hold TypeScript: it
 * then fails to parse as JavaScript before any of it runs, and the caller falls back to esbuild
 * (see module-loader.ts). Without `<` (type arguments, angle-bracket assertions) no TypeScript
 * construct parses as JavaScript with another meaning.
 * @example await plainModule("import { databaseConfig } from 'mtool';\ndatabaseConfig({ ... });\n", ownModules())
 */
export async function plainModule(source: string, own: ReadonlyMap<string, string>): Promise<string | undefined> {
  if (!plainSyntax(source)) return undefined;
  const { init, parse } = await import('es-module-lexer');
  await init;
  let imports: ReturnType<typeof parse>[0];
  try {
    [imports] = parse(source);
  } catch {
    return undefined;
  }
  let code = '';
  let copied = 0;
  for (const found of imports) {
    // Static (1), without import attributes; dynamic import(), import.meta and phase imports are esbuild's to judge.
    if (found.t !== 1 || found.a !== -1 || found.n === undefined || found.n.startsWith('#')) return undefined;
    const url = own.get(found.n);
    if (url === undefined || !existsSync(fileURLToPath(url))) return undefined;
    // The quotes go too: a file URL may hold a quote character.
    code += source.slice(copied, found.s - 1) + JSON.stringify(url);
    copied = found.e + 1;
  }
  return code + source.slice(copied);
}

const SLASH = 0x2f;
const STAR = 0x2a;
const BACKSLASH = 0x5c;
const BACKTICK = 0x60;
const DOLLAR = 0x24;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const NEWLINE = 0x0a;

/**
 * Whether the code outside comments, strings and template text is free of what this check does
 * not follow: `/` (a division or a regular expression, whose text could hide a quote), `<`,
 * `@` (decorators) and the word `require`; comments, strings and templates must end.
 */
export function plainSyntax(source: string): boolean {
  const n = source.length;
  // Brace depths at which an open template substitution (`${`) ends.
  const substitutions: number[] = [];
  let depth = 0;
  let i = 0;
  while (i < n) {
    const c = source.charCodeAt(i);
    if (c === SLASH) {
      const next = source.charCodeAt(i + 1);
      if (next === SLASH) {
        const end = source.indexOf('\n', i);
        i = end < 0 ? n : end;
        continue;
      }
      if (next !== STAR) return false;
      const end = source.indexOf('*/', i + 2);
      if (end < 0) return false;
      i = end + 2;
      continue;
    }
    if (c === 0x27 || c === 0x22) {
      i = stringEnd(source, i, c);
      if (i < 0) return false;
      continue;
    }
    if (c === BACKTICK || (c === CLOSE_BRACE && substitutions.at(-1) === depth)) {
      if (c === CLOSE_BRACE) substitutions.pop();
      const end = templateTextEnd(source, i + 1);
      if (end < 0) return false;
      if (source.charCodeAt(end) === DOLLAR) {
        substitutions.push(depth);
        i = end + 2;
      } else {
        i = end + 1;
      }
      continue;
    }
    if (c === 0x3c || c === 0x40) return false;
    if (c === OPEN_BRACE) depth++;
    else if (c === CLOSE_BRACE) depth--;
    else if (c === 0x72 && source.startsWith('require', i) && !identifierPart(source.charCodeAt(i - 1)) && !identifierPart(source.charCodeAt(i + 7))) return false;
    i++;
  }
  return substitutions.length === 0;
}

/** The index after the string that starts at `start` with `quote`; -1 when it does not end on its line. */
function stringEnd(source: string, start: number, quote: number): number {
  for (let i = start + 1; i < source.length; i++) {
    const c = source.charCodeAt(i);
    if (c === quote) return i + 1;
    if (c === BACKSLASH) i++;
    else if (c === NEWLINE) return -1;
  }
  return -1;
}

/** Where template text from `start` ends: at its closing backtick or at a `${`; -1 when it never does. */
function templateTextEnd(source: string, start: number): number {
  for (let i = start; i < source.length; i++) {
    const c = source.charCodeAt(i);
    if (c === BACKTICK || (c === DOLLAR && source.charCodeAt(i + 1) === OPEN_BRACE)) return i;
    if (c === BACKSLASH) i++;
  }
  return -1;
}

/** A code unit that can continue an identifier (NaN, outside the text, cannot); non-ASCII counts, to be safe. */
function identifierPart(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f || c === DOLLAR || c >= 0x80;
}
