const SQL_BRAND: unique symbol = Symbol.for('mtool.sql');

/** A SQL expression written in a model (defaults, index predicates, checks). Not a value: never quoted. */
export interface SqlExpression {
  readonly [SQL_BRAND]: true;
  /** The SQL text. */
  readonly text: string;
}

/**
 * Tagged template for SQL expressions in models: `default(sql\`CURRENT_TIMESTAMP\`)`,
 * `index('email').where(sql\`deleted_at IS NULL\`)`. Interpolated values are inserted as SQL
 * text (another `sql` fragment, a number, or a string such as a column name), never as quoted
 * literals: model definitions are code, not user input.
 * @example sql`lower(${'email'})` // text: 'lower(email)'
 */
export function sql(strings: TemplateStringsArray, ...values: (SqlExpression | string | number | boolean)[]): SqlExpression {
  let text = strings[0] ?? '';
  values.forEach((value, i) => {
    text += (isSql(value) ? value.text : String(value)) + (strings[i + 1] ?? '');
  });
  return sqlText(text);
}

/** A SQL expression from plain text (for generated models). */
export function sqlText(text: string): SqlExpression {
  return Object.freeze({ [SQL_BRAND]: true as const, text });
}

export function isSql(value: unknown): value is SqlExpression {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[SQL_BRAND] === true;
}
