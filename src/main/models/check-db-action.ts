import { MtoolError } from '../../errors.js';
import { canonicalize, canonicalJson } from '../../schema/canonical-json.js';
import { schemaIo } from '../../schema/schema-io.js';
import type { CommandContext, CommandInput, CommandResult } from '../commands/command.js';
import { introspectSession, onDatabase, targetDatabase } from './live-schema.js';
import { schemaListing } from './schema-listing.js';

export const CHECK_DB_FORMATS = ['txt', 'json', 'yaml', 'sql'] as const;
type Format = (typeof CHECK_DB_FORMATS)[number];

/**
 * `mtool check-db`: read the live schema (mtool's tracking tables left out) and print it as a
 * listing (`txt`, default), the canonical IR (`json`, also under global `--json` when `--out` is
 * not given), YAML of the same IR, or the DDL that recreates it in an empty database (`sql`).
 */
export async function checkDbAction(ctx: CommandContext, input: CommandInput): Promise<CommandResult> {
  const out = input.options.out;
  const format: Format = typeof out === 'string' ? (out as Format) : ctx.globals.json ? 'json' : 'txt';
  if (!CHECK_DB_FORMATS.includes(format)) throw new MtoolError('MTOOL_USAGE', `--out must be one of ${CHECK_DB_FORMATS.join(', ')}, got '${String(out)}'`);
  const { config, entries } = await targetDatabase(ctx, input.options);
  const entry = entries[0]!;
  const ir = await onDatabase(config, entry, ctx, introspectSession);
  const data = canonicalize(ir);
  let text: () => string;
  switch (format) {
    case 'json':
      text = () => canonicalJson(ir);
      break;
    case 'yaml': {
      const { stringify } = await import('yaml');
      text = () => stringify(data, { sortMapEntries: true, lineWidth: 0 });
      break;
    }
    case 'sql': {
      const statements = await (await schemaIo(entry.type)).renderSchema(ir);
      text = () => statements.map((s) => `${s};`).join('\n\n');
      break;
    }
    default:
      text = () => schemaListing(ir, `Database ${entry.name} (${entry.type})`);
  }
  return { data, text, ownFormat: typeof out === 'string' };
}
