import type { SplitPreset } from './presets.js';
import { endOfLine, quoteTagEnd } from './scanner.js';

/**
 * Statement text as tokens, by a dialect's lexical rules (its splitter preset): for the small
 * recognisers that read what a statement names (the DDL targets of a migration, the table of a
 * ClickHouse ALTER). Not the splitter: that one only finds where statements end.
 */

export type TokenKind = 'word' | 'ident' | 'string' | 'number' | 'punct';
export interface Token {
  kind: TokenKind;
  /** Words: as written; quoted identifiers: the name without quotes; punctuation: the character(s). */
  text: string;
  /** Parenthesis depth before the token. */
  depth: number;
}

const WORD_START = /[A-Za-z_\u0080-\uffff]/;
const WORD_CHAR = /[A-Za-z0-9_$\u0080-\uffff]/;

/**
 * Split statement text into tokens by the dialect's lexical rules. `undefined` when the text holds
 * something the recogniser will not reason about (an unterminated quote, a MySQL executable
 * comment, which runs as code).
 */
export function tokenize(text: string, lexer: SplitPreset): Token[] | undefined {
  const tokens: Token[] = [];
  let depth = 0;
  let i = 0;
  const n = text.length;
  const closeQuote = (start: number, quote: string, backslash: boolean): number => {
    for (let j = start; j < n; j++) {
      const c = text[j];
      if (backslash && c === '\\') {
        j++;
        continue;
      }
      if (c === quote) {
        if (text[j + 1] === quote) {
          j++;
          continue;
        }
        return j;
      }
    }
    return -1;
  };
  const unquote = (body: string, quote: string) => body.split(quote + quote).join(quote);
  while (i < n) {
    const ch = text[i]!;
    const next = text[i + 1];
    if (ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r' || ch === '\f' || ch === '\v') {
      i++;
      continue;
    }
    if (ch === '-' && next === '-' && (lexer.dashComment === 'always' || i + 2 >= n || /[\s\x00-\x1f]/.test(text[i + 2]!))) {
      i = endOfLine(text, i, true) + 1; // a lone CR ends the comment, as it does for the splitter
      continue;
    }
    if (ch === '#' && (lexer.hashComment === 'always' || (lexer.hashComment === 'space-or-bang' && (next === ' ' || next === '!')))) {
      i = endOfLine(text, i, true) + 1; // a lone CR ends the comment, as it does for the splitter
      continue;
    }
    if (ch === '/' && next === '*') {
      if (lexer.executableComments && (text[i + 2] === '!' || (text[i + 2] === 'M' && text[i + 3] === '!'))) return undefined;
      let level = 1;
      let j = i + 2;
      while (j < n && level > 0) {
        if (text[j] === '*' && text[j + 1] === '/') {
          level--;
          j += 2;
        } else if (lexer.nestedBlockComments && text[j] === '/' && text[j + 1] === '*') {
          level++;
          j += 2;
        } else j++;
      }
      if (level > 0) return undefined;
      i = j;
      continue;
    }
    if (ch === "'" || (ch === '"' && lexer.doubleQuote === 'string')) {
      const end = closeQuote(i + 1, ch, ch === "'" ? lexer.backslashInSingle : lexer.backslashInDouble);
      if (end < 0) return undefined;
      tokens.push({ kind: 'string', text: text.slice(i + 1, end), depth });
      i = end + 1;
      continue;
    }
    if (lexer.eStrings && (ch === 'E' || ch === 'e') && next === "'" && !(i > 0 && WORD_CHAR.test(text[i - 1]!))) {
      const end = closeQuote(i + 2, "'", true);
      if (end < 0) return undefined;
      tokens.push({ kind: 'string', text: text.slice(i + 2, end), depth });
      i = end + 1;
      continue;
    }
    if (ch === '"' || (ch === '`' && lexer.backticks) || (ch === '[' && lexer.brackets)) {
      const quote = ch === '[' ? ']' : ch;
      const backslash = ch === '"' ? lexer.backslashInDouble : ch === '`' ? lexer.backslashInBacktick : false;
      const end = ch === '[' ? text.indexOf(']', i + 1) : closeQuote(i + 1, quote, backslash);
      if (end < 0) return undefined;
      const body = text.slice(i + 1, end);
      // Backslash escapes in names are rare and ambiguous: let the caller fall back to full.
      if (backslash && body.includes('\\')) return undefined;
      tokens.push({ kind: 'ident', text: ch === '[' ? body : unquote(body, quote), depth });
      i = end + 1;
      continue;
    }
    if (ch === '$' && (lexer.dollarQuotes || lexer.heredocs)) {
      // PostgreSQL dollar quotes; ClickHouse heredocs, where an unclosed one is a name, which
      // this reader leaves alone.
      const tagEnd = quoteTagEnd(text, i, lexer.heredocs);
      if (tagEnd >= 0) {
        const tag = text.slice(i, tagEnd);
        const end = text.indexOf(tag, tagEnd);
        if (end < 0) return undefined;
        tokens.push({ kind: 'string', text: text.slice(tagEnd, end), depth });
        i = end + tag.length;
        continue;
      }
    }
    if (WORD_START.test(ch)) {
      // PostgreSQL U&"..." names carry escapes this reader does not decode.
      if ((ch === 'U' || ch === 'u') && next === '&') return undefined;
      let j = i + 1;
      while (j < n && WORD_CHAR.test(text[j]!)) j++;
      tokens.push({ kind: 'word', text: text.slice(i, j), depth });
      i = j;
      continue;
    }
    if (/[0-9]/.test(ch)) {
      let j = i + 1;
      while (j < n && /[0-9A-Za-z_.]/.test(text[j]!)) j++;
      tokens.push({ kind: 'number', text: text.slice(i, j), depth });
      i = j;
      continue;
    }
    if (ch === '(') {
      tokens.push({ kind: 'punct', text: ch, depth });
      depth++;
      i++;
      continue;
    }
    if (ch === ')') {
      depth--;
      if (depth < 0) return undefined;
      tokens.push({ kind: 'punct', text: ch, depth });
      i++;
      continue;
    }
    tokens.push({ kind: 'punct', text: ch, depth });
    i++;
  }
  return depth === 0 ? tokens : undefined;
}
