import { MtoolError } from '../../errors.js';
import { schemaIo } from '../../schema/schema-io.js';
import type { CommandContext, CommandInput, CommandResult } from '../commands/command.js';
import { closeNamesHint, findTableKey, introspectSession, onDatabase, targetDatabase, trackingTables } from './live-schema.js';

/**
 * `mtool snapshot TABLE`: the DDL of one live table on stdout. SQL backends: CREATE TABLE, its
 * indexes and foreign keys (and comments), rendered from introspection. ClickHouse: the server's
 * own `create_table_query` from `system.tables`, verbatim.
 * @throws MtoolError MTOOL_NOT_FOUND (exit 1) for an unknown table, listing close names.
 */
export async function snapshotAction(ctx: CommandContext, input: CommandInput): Promise<CommandResult> {
  const wanted = input.args.table;
  if (typeof wanted !== 'string' || wanted.trim() === '') throw new MtoolError('MTOOL_USAGE', 'snapshot needs the name of a table: mtool snapshot <TABLE>');
  const { config, entries } = await targetDatabase(ctx, input.options);
  const entry = entries[0]!;
  const result = await onDatabase(config, entry, ctx, async (session) => {
    if (entry.type === 'clickhouse') {
      const rows = (await session.conn.query(`SELECT name, create_table_query FROM system.tables WHERE database = currentDatabase() ORDER BY name`)).rows;
      const hidden = new Set(trackingTables(entry));
      const names = rows.map((r) => String(r.name)).filter((n) => !hidden.has(n) && !n.startsWith('.inner.'));
      const row = rows.find((r) => r.name === wanted);
      if (!row || hidden.has(wanted)) throw new MtoolError('MTOOL_NOT_FOUND', `table '${wanted}' does not exist in database '${entry.name}'${closeNamesHint(wanted, names)}`, { database: entry.name });
      return { table: wanted, statements: [String(row.create_table_query)] };
    }
    const ir = await introspectSession(session);
    const key = findTableKey(ir, wanted, entry.name);
    return { table: key, statements: await (await schemaIo(entry.type)).renderTable(ir, key) };
  });
  return {
    data: { database: entry.name, database_type: entry.type, ...result },
    text: () => result.statements.map((s) => `${s};`).join('\n\n'),
  };
}
