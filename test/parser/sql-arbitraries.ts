/**
 * fast-check generators of SQL statements built from pieces whose lexical form is known per
 * dialect: identifiers, strings holding `;` and quotes, E'' strings, dollar quotes and ClickHouse
 * heredocs with random tags, quoted identifiers, line and (nested) block comments. A statement starts and ends with a
 * token, so its source text is exactly what the splitter must give back.
 */
import fc from 'fast-check';
import type { SplitDialect } from '../../src/parser/split-statements.js';

/** Words the block trackers react to, kept out of generated identifiers. */
const KEYWORDS = new Set([
  'begin', 'end', 'case', 'atomic', 'if', 'loop', 'while', 'repeat', 'create', 'alter', 'delimiter', 'e', 'not',
  'then', 'else', 'do', 'trigger', 'procedure', 'function', 'event', 'temp', 'temporary',
]);

/** Characters that make quoting and comments interesting. */
const TRICKY = [';', "'", '"', '`', '\\', '$', '$$', '--', '#', '/*', '*/', '\n', '\r\n', '[', ']', 'é', '😀', ' ', 'a', 'Z', '1'];

const content = (exclude: string[] = []) =>
  fc.array(fc.constantFrom(...TRICKY.filter((t) => !exclude.some((x) => t.includes(x)))), { maxLength: 8 }).map((a) => a.join(''));

const identifier = (withDollar: boolean) =>
  fc.stringMatching(withDollar ? /^[a-z_][a-z0-9_$]{0,8}$/ : /^[a-z_][a-z0-9_]{0,8}$/).filter((w) => !KEYWORDS.has(w));

const punctuation = fc.constantFrom('(', ')', ',', '=', '+', '*', '.', '<>', '42', '3.14', '::', '[1]');

/** `'...'` with the dialect's escapes. */
function singleQuoted(backslash: boolean) {
  return fc.tuple(content(), fc.boolean()).map(([s, doubled]) => {
    const body = backslash ? s.replaceAll('\\', '\\\\').replaceAll("'", doubled ? "''" : "\\'") : s.replaceAll("'", "''");
    return `'${body}'`;
  });
}

/** A run quoted by `q` where the quote is doubled (and, if asked, backslashes are escaped). */
function quotedRun(q: string, backslash: boolean) {
  return content().map((s) => {
    let body = backslash ? s.replaceAll('\\', '\\\\') : s;
    body = body.replaceAll(q, q + q);
    return `${q}${body}${q}`;
  });
}

const eString = fc.tuple(content(), fc.boolean(), fc.constantFrom('E', 'e')).map(([s, doubled, e]) =>
  `${e}'${s.replaceAll('\\', '\\\\').replaceAll("'", doubled ? "''" : "\\'")}'`);

const dollarQuoted = fc
  .tuple(fc.stringMatching(/^([a-z_][a-z0-9_]{0,5})?$/), content())
  .map(([tag, body]) => ({ tag: `$${tag}$`, body }))
  // The body must not contain the closing tag (nor end in a way that forms it early).
  .filter(({ tag, body }) => (body + tag).indexOf(tag) === body.length)
  .map(({ tag, body }) => `${tag}${body}${tag}`);

/** ClickHouse heredocs: ASCII tags, possibly empty or starting with a digit, case-sensitive. */
const heredoc = fc
  .tuple(fc.stringMatching(/^[A-Za-z0-9_]{0,5}$/), content())
  .map(([tag, body]) => ({ tag: `$${tag}$`, body }))
  .filter(({ tag, body }) => (body + tag).indexOf(tag) === body.length)
  .map(({ tag, body }) => `${tag}${body}${tag}`);

/** Words the block trackers react to, as parts of qualified names: `t.end`, `"t" . case`, `end/* c *\/.x`. */
const qualifiedKeyword = fc
  .tuple(
    fc.constantFrom('end', 'END', 'case', 'begin', 'Begin', 'atomic', 'if', 'loop', 'while', 'repeat', 'then', 'else', 'do', 'not'),
    fc.constantFrom('t', 'new', 'old', '"t"', 't1', '_x'),
    fc.constantFrom('.', ' . ', '.\n', '/* c; */.', ' -- c;\n.'),
    fc.boolean(),
  )
  .map(([kw, name, dot, after]) => (after ? `${name}${dot}${kw}` : `${kw}${dot}${name === '"t"' ? 't' : name}`));

/** `x AS end`: an alias spelled like the words that open and close a body, which it must never do. */
const aliasKeyword = fc
  .tuple(fc.constantFrom('x', '1', "'s'", ')'), fc.constantFrom('AS', 'as', 'As'), fc.constantFrom(' ', '\n', ' /* c; */ '), fc.constantFrom('end', 'END', 'begin', 'Begin'))
  .map(([before, as, gap, kw]) => `${before === ')' ? '(1)' : before} ${as}${gap}${kw}`);

const commentText = content(['/', '*', '\n', '\r']);

/** `/* ... *\/`, nested up to `depth` levels where the dialect nests them. */
function blockComment(nested: boolean): fc.Arbitrary<string> {
  if (!nested) return commentText.filter((t) => !t.startsWith('!') && !t.startsWith('M!')).map((t) => `/* ${t} */`);
  const { tree } = fc.letrec<{ tree: string }>((tie) => ({
    tree: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      commentText.map((t) => `/* ${t} */`),
      fc.tuple(commentText, tie('tree'), commentText).map(([a, inner, b]) => `/* ${a}${inner}${b} */`),
    ),
  }));
  return tree;
}

function lineComment(prefixes: string[]) {
  return fc.tuple(fc.constantFrom(...prefixes), content(['\n', '\r'])).map(([p, t]) => `${p}${t}\n`);
}

interface Pieces {
  tokens: fc.Arbitrary<string>[];
  comments: fc.Arbitrary<string>[];
}

function piecesFor(dialect: SplitDialect, qualified: boolean): Pieces {
  const pieces = basePieces(dialect);
  return qualified ? { ...pieces, tokens: [...pieces.tokens, qualifiedKeyword, aliasKeyword] } : pieces;
}

function basePieces(dialect: SplitDialect): Pieces {
  switch (dialect) {
    case 'postgresql':
      return {
        tokens: [identifier(true), punctuation, singleQuoted(false), eString, dollarQuoted, quotedRun('"', false), fc.constantFrom('$1', '$23')],
        comments: [blockComment(true), lineComment(['--', '-- '])],
      };
    case 'mysql':
      return {
        tokens: [identifier(false), punctuation, singleQuoted(true), quotedRun('"', true), quotedRun('`', false)],
        comments: [blockComment(false), lineComment(['-- ', '#', '# '])],
      };
    case 'sqlite':
      return {
        tokens: [identifier(true), punctuation, singleQuoted(false), quotedRun('"', false), quotedRun('`', false),
          content([']', '\n']).map((s) => `[${s}]`)],
        comments: [blockComment(false), lineComment(['--', '-- '])],
      };
    case 'clickhouse':
      return {
        tokens: [identifier(false), punctuation, singleQuoted(true), quotedRun('"', true), quotedRun('`', true), heredoc,
          identifier(false).map((w) => `$${w}`), identifier(true).map((w) => `${w}$$${w}`)],
        comments: [blockComment(true), lineComment(['--', '# ', '#!'])],
      };
  }
}

const separator = fc.constantFrom(' ', '\n', '\t', '  ', '\r\n', ' \n ');

/**
 * One statement: a token, then tokens and comments, then a token (when there is more than one
 * piece). With `qualified`, tokens include qualified names whose parts are spelled like block
 * keywords (`t.end`, `begin . x`) and aliases spelled like them (`x AS end`), which must never
 * open or close a block.
 */
export function statement(dialect: SplitDialect, qualified = false): fc.Arbitrary<string> {
  const { tokens, comments } = piecesFor(dialect, qualified);
  const token = fc.oneof(...tokens);
  const piece = fc.oneof({ weight: 3, arbitrary: token }, { weight: 1, arbitrary: fc.oneof(...comments) });
  return fc
    .tuple(token, fc.array(fc.tuple(separator, piece), { maxLength: 6 }), fc.option(fc.tuple(separator, token), { nil: undefined }))
    .map(([first, middle, last]) => {
      let s = first;
      for (const [sep, p] of middle) s += sep + p;
      // A trailing comment would not be part of the text: close with a token.
      if (last !== undefined) s += last[0] + last[1];
      else if (middle.length > 0) s += ` x`;
      return s;
    });
}

/** Whitespace and comments that may sit between statements without being part of any. */
export function gap(dialect: SplitDialect): fc.Arbitrary<string> {
  const { comments } = piecesFor(dialect, false);
  return fc.array(fc.oneof(separator, ...comments), { maxLength: 3 }).map((a) => a.join(''));
}
