const ESCAPES: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** Control characters, and the invisible marks and overrides that change how the rest of a line reads. */
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;

/**
 * A file path as messages quote it: in single quotes, so that spaces and a trailing dot read as
 * part of it, with line breaks, other control characters and bidirectional overrides written as
 * escapes (`\n`, `\u{202e}`), so that a path can neither break the line it is printed on (a second
 * log line) nor disguise it.
 * @example quotedPath('/srv/my data/app.db') // "'/srv/my data/app.db'"
 */
export function quotedPath(path: string): string {
  return `'${path.replace(UNPRINTABLE, (ch) => ESCAPES[ch] ?? `\\u{${ch.codePointAt(0)!.toString(16)}}`)}'`;
}
