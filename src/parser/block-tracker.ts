import {
  K_ALTER, K_ATOMIC, K_BEGIN, K_CASE, K_CREATE, K_DO, K_ELSE, K_END, K_HEADER_END, K_IF, K_LOOP, K_NOT,
  K_NOT_ROUTINE, K_OTHER, K_REPEAT, K_ROUTINE, K_TEMP, K_THEN, K_TRIGGER, K_WHILE, P_COLON, P_RPAREN,
  P_SEMICOLON, P_STRING,
} from './block-keywords.js';
import type { BlockMode } from './presets.js';

/** How many words after CREATE/ALTER may come before PROCEDURE/FUNCTION/TRIGGER/EVENT (OR REPLACE, DEFINER = x@y ...). */
const MAX_HEADER_WORDS = 8;

/**
 * Follows the tokens of one statement and says whether a `;` is inside a `BEGIN ... END`
 * body (and so does not end the statement).
 *
 * MySQL needs the most care: `IF` is also a function (`IF(a, b, c)`) and a DDL clause
 * (`DROP TABLE IF EXISTS`), and `END` closes BEGIN, CASE and, as `END IF` / `END LOOP` ..., the
 * other compound statements. An IF only opens a block where a statement can start (after `;`,
 * BEGIN, THEN, ELSE, DO, LOOP, REPEAT, a label's `:`, or the end of a routine header). A bare
 * END closes the innermost BEGIN or CASE and anything wrongly opened above it; `END IF` etc.
 * close their own kind only if it is open. So a misread IF can never swallow the statements
 * that follow: the next END heals it.
 *
 * In SQLite and MySQL `end` is also a valid column name (`SELECT end FROM periods`, `NEW.end`):
 * an END only closes a block where it can ({@link #endCloses}).
 */
export class BlockTracker {
  readonly #mode: BlockMode;
  /** Open block kinds (K_BEGIN, K_CASE, K_IF ...), innermost last. */
  readonly #stack: number[] = [];
  /** String index of the outermost open block's first keyword, for errors. */
  #outerStart = -1;
  #tokens = 0;
  #firstKw = K_OTHER;
  #firstStart = -1;
  #prev = K_OTHER;
  #prevStart = -1;
  #routine = false;
  #header = false;
  #headerWords = 0;
  /** MySQL: an END whose kind (END IF, END LOOP ...) depends on the next token. */
  #pendingEnd = false;
  /** Something was recorded since the last reset. */
  #touched = false;
  /**
   * True while tokens that are not keywords cannot change anything, so the scanner may skip
   * calling {@link word} for them and {@link punct} altogether. Most tokens of most statements
   * are skipped that way, which matters on large scripts.
   */
  idle: boolean;
  /**
   * True while no token can change anything except a word of `wakeWords(mode, depth > 0)`: the
   * scanner may then jump over plain code with a native search for those words and the
   * characters that open quotes, comments and terminators, without reading the code between.
   */
  skippable: boolean;

  constructor(mode: BlockMode) {
    this.#mode = mode;
    this.idle = this.#idleAtStart();
    this.skippable = this.idle;
  }

  /** SQLite and MySQL must see the first tokens of every statement; PostgreSQL waits for a keyword. */
  #idleAtStart(): boolean {
    return this.#mode === 'pg-atomic' || this.#mode === 'none';
  }

  /** Blocks open now (after resolving a pending END only when `resolve` is called). */
  get depth(): number {
    return this.#stack.length;
  }

  /** String index where the outermost open block began. */
  get outerStart(): number {
    return this.#outerStart;
  }

  /** Forget everything: a new statement begins. */
  reset(): void {
    if (!this.#touched) return;
    this.#touched = false;
    this.idle = this.#idleAtStart();
    this.skippable = this.idle;
    if (this.#stack.length > 0) this.#stack.length = 0;
    this.#outerStart = -1;
    this.#tokens = 0;
    this.#firstKw = K_OTHER;
    this.#firstStart = -1;
    this.#prev = K_OTHER;
    this.#prevStart = -1;
    this.#routine = false;
    this.#header = false;
    this.#headerWords = 0;
    this.#pendingEnd = false;
  }

  /**
   * A word token. `kw` is its keyword code; `parenFollows` says `(` comes right after it
   * (MySQL's `REPEAT(` is the string function, not the loop).
   */
  word(kw: number, start: number, parenFollows: boolean): void {
    this.#touched = true;
    const t = this.#tokens++;
    if (this.#pendingEnd) {
      this.#pendingEnd = false;
      if (kw === K_IF || kw === K_CASE || kw === K_LOOP || kw === K_WHILE || kw === K_REPEAT) {
        this.#closeKind(kw);
        // `END IF` is complete: what follows it cannot be a statement start until the `;`.
        this.#prev = K_OTHER;
        this.#prevStart = start;
        this.#updateIdle();
        return;
      }
      this.#closeBare();
    }
    if (t === 0) {
      this.#firstKw = kw;
      this.#firstStart = start;
    }
    switch (this.#mode) {
      case 'pg-atomic':
        if (kw === K_ATOMIC && this.#prev === K_BEGIN) this.#push(K_BEGIN, this.#prevStart);
        else if (this.#stack.length > 0) {
          if (kw === K_CASE) this.#push(K_CASE, start);
          else if (kw === K_END) this.#closeBare();
        }
        break;
      case 'sqlite-trigger':
        if (t === 0) this.#header = kw === K_CREATE;
        else if (this.#header) {
          if (kw !== K_TEMP) {
            this.#header = false;
            this.#routine = kw === K_TRIGGER;
          }
        } else if (this.#routine) {
          // The body is the one BEGIN ... END (a trigger's body holds no other): a `begin` inside it is a name.
          if (kw === K_BEGIN) {
            if (!this.#stack.includes(K_BEGIN)) this.#push(kw, start);
          } else if (kw === K_CASE) this.#push(kw, start);
          else if (kw === K_END && this.#endCloses()) this.#closeBare();
        }
        break;
      case 'mysql':
        this.#mysqlWord(kw, start, t, parenFollows);
        break;
      case 'none':
        break;
    }
    this.#prev = kw;
    this.#prevStart = start;
    this.#updateIdle();
  }

  /**
   * PostgreSQL only needs to see what follows BEGIN. SQLite and MySQL need the first words of
   * a statement (CREATE [TEMP] TRIGGER, CREATE ... PROCEDURE, BEGIN NOT ATOMIC); MySQL then
   * needs every token of a stored program, because IF opens a block only where a statement
   * can start.
   */
  #updateIdle(): void {
    switch (this.#mode) {
      case 'pg-atomic':
        // Only keywords count here, and the scanner searches for those (see wakeWords).
        this.idle = this.#prev !== K_BEGIN;
        this.skippable = this.idle;
        break;
      case 'sqlite-trigger':
        // A trigger needs every token: whether an END closes its body depends on the one before.
        this.idle = this.#tokens > 0 && !this.#header && !this.#routine;
        this.skippable = this.idle;
        break;
      case 'mysql':
        // Not a stored program after its first words: nothing can open a block until the `;`.
        this.idle = this.#tokens > 2 && !this.#header && !this.#routine && !this.#pendingEnd;
        this.skippable = this.idle;
        break;
      case 'none':
        this.idle = true;
        this.skippable = true;
        break;
    }
  }

  #mysqlWord(kw: number, start: number, t: number, parenFollows: boolean): void {
    if (t === 0) {
      this.#header = kw === K_CREATE || kw === K_ALTER;
      this.#headerWords = 0;
      return;
    }
    if (this.#header) {
      if (kw === K_ROUTINE) {
        this.#header = false;
        this.#routine = true;
      } else if (kw === K_NOT_ROUTINE || ++this.#headerWords > MAX_HEADER_WORDS) {
        this.#header = false;
      }
      return;
    }
    // MariaDB's anonymous block: BEGIN NOT ATOMIC ... END (a plain `BEGIN` is a transaction).
    if (t === 2 && kw === K_ATOMIC && this.#prev === K_NOT && this.#firstKw === K_BEGIN) {
      this.#routine = true;
      this.#push(K_BEGIN, this.#firstStart);
      return;
    }
    if (!this.#routine) return;
    switch (kw) {
      case K_BEGIN:
      case K_CASE:
      case K_LOOP:
      case K_WHILE:
        this.#push(kw, start);
        break;
      case K_REPEAT:
        if (!parenFollows) this.#push(kw, start);
        break;
      case K_IF:
        if (this.#atStatementStart()) this.#push(kw, start);
        break;
      case K_END:
        if (this.#endCloses()) this.#pendingEnd = true;
        break;
    }
  }

  /**
   * SQLite and MySQL: whether an END closes a block here, or is a name (`end` is a valid column
   * name in both; the scanner already reads `NEW.end` as a name). Where the innermost BEGIN or
   * CASE is a CASE, any END closes (`THEN 1 END`, also healing a misread IF above it); where it
   * is a BEGIN, only an END where a statement can start: after `;`, or right after BEGIN
   * (`BEGIN END`, MariaDB's `BEGIN NOT ATOMIC END`).
   */
  #endCloses(): boolean {
    const s = this.#stack;
    let at = s.length - 1;
    while (at >= 0 && s[at] !== K_BEGIN && s[at] !== K_CASE) at--;
    if (at >= 0 && s[at] === K_CASE) return true;
    const p = this.#prev;
    return s.length > 0 && (p === P_SEMICOLON || p === K_BEGIN || p === K_ATOMIC);
  }

  /** MySQL: can a compound statement (IF ...) start after the previous token? */
  #atStatementStart(): boolean {
    const p = this.#prev;
    if (p === P_SEMICOLON || p === K_BEGIN || p === K_THEN || p === K_ELSE || p === K_DO || p === K_LOOP
      || p === K_REPEAT || p === P_COLON) return true;
    // A body that is a bare IF right after the routine header: `... FOR EACH ROW IF`, `p() IF`, `COMMENT 'x' IF`.
    return this.#stack.length === 0 && (p === K_HEADER_END || p === P_RPAREN || p === P_STRING);
  }

  /** A punctuation, string or quoted-identifier token (`code` is a P_* value). */
  punct(code: number, start: number): void {
    this.#touched = true;
    if (this.#pendingEnd) {
      this.#pendingEnd = false;
      this.#closeBare();
    }
    if (this.#tokens++ === 0) {
      this.#firstKw = K_OTHER;
      this.#firstStart = start;
    }
    this.#prev = code;
    this.#prevStart = start;
    this.#updateIdle();
  }

  /**
   * A `;` at string index `at`. Returns true when it is inside a block (so it does not end
   * the statement) and records it as a token.
   */
  semicolon(at: number): boolean {
    this.resolve();
    if (this.#stack.length === 0) return false;
    this.punct(P_SEMICOLON, at);
    return true;
  }

  /** Settle a pending END (at a terminator or the end of input). */
  resolve(): void {
    if (this.#pendingEnd) {
      this.#pendingEnd = false;
      this.#closeBare();
      this.#updateIdle();
    }
  }

  #push(kind: number, start: number): void {
    if (this.#stack.length === 0) this.#outerStart = start;
    this.#stack.push(kind);
  }

  /** A bare END closes the innermost BEGIN or CASE, and any misread IF/LOOP above it. */
  #closeBare(): void {
    const s = this.#stack;
    while (s.length > 0) {
      const k = s.pop();
      if (k === K_BEGIN || k === K_CASE) break;
    }
    if (s.length === 0) this.#outerStart = -1;
  }

  /** `END IF`, `END CASE` ...: close up to the innermost open block of that kind, if any. */
  #closeKind(kind: number): void {
    const s = this.#stack;
    const at = s.lastIndexOf(kind);
    if (at < 0) return;
    s.length = at;
    if (s.length === 0) this.#outerStart = -1;
  }
}
