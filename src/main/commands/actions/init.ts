import { existsSync } from 'node:fs';
import { mkdir, readFile, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { MtoolError } from '../../../errors.js';
import { announceWarnings, CONFIG_FILE_NAMES, findProjectRoot, scanCandidates } from '../../config/load-config.js';
import { writeFileAtomic } from '../../fs/atomic-write.js';
import type { CommandContext, CommandInput, CommandResult } from '../command.js';

/** The commented scaffold `init` writes: one SQLite database, the embedded default. */
function configScaffold(databaseName: string): string {
  return `// mtool configuration: one databaseConfig({...}) per database.
// Exactly one database has \`default: true\`; commands use it when --database is omitted.
// Migrations of a database live in migrations/<databaseName>/.
import { databaseConfig } from 'mtool';

export const ${identifierFor(databaseName)} = databaseConfig({
  databaseName: ${JSON.stringify(databaseName)},
  default: true,
  // postgresql | mysql | mariadb | sqlite | clickhouse
  databaseType: 'sqlite',
  // A path relative to the project root. For a server, read the URL from the environment so no
  // password lands in this file: databaseUrl: env('DATABASE_URL') (import { env } from 'mtool').
  databaseUrl: 'sqlite:///db.sqlite3',
  // Where your models live (required when several databases are configured):
  // modelPaths: ['src/models'],
  // Swapped in under --dev:
  // devDatabaseType: 'sqlite',
  // devDatabaseUrl: 'sqlite:///dev.sqlite3',
});
`;
}

/** `default` → `defaultDb`, `my-app` → `myAppDb`: a valid, readable export name. */
function identifierFor(name: string): string {
  const camel = name.replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ? c.toUpperCase() : ''));
  const safe = /^[A-Za-z_]/.test(camel) ? camel : `db${camel}`;
  return `${safe.charAt(0).toLowerCase()}${safe.slice(1)}Db`;
}

type Outcome = { path: string; action: 'created' | 'updated' | 'kept' };

/** A line `.gitignore` gets, unless one of `covers` (trimmed) is there already. */
interface IgnoreEntry {
  line: string;
  covers: ReadonlySet<string>;
  comment: string;
}

/** The folder of compiled configuration modules (config/module-loader.ts): machine-specific, never committed. */
const CACHE_IGNORE: IgnoreEntry = {
  line: '.mtool/cache/',
  covers: new Set(['.mtool/cache', '.mtool/cache/', '/.mtool/cache', '/.mtool/cache/', '.mtool/cache/*', '/.mtool/cache/*']),
  comment: '# mtool: compiled configuration cache (machine-specific)',
};
/** The SQLite database of the configuration init writes, and its journal: local data, not source. */
const SCAFFOLD_DATABASE_IGNORE: IgnoreEntry = {
  line: '/db.sqlite3*',
  covers: new Set(['/db.sqlite3*', 'db.sqlite3*', '*.sqlite3*', '/*.sqlite3*']),
  comment: '# mtool: the SQLite database of mtool.config.ts (local data)',
};

/**
 * Make `<root>/.gitignore` hold `entries`: create the file, or append the lines missing (keeping
 * the file's line endings and mode), or leave it when lines already cover them. The write is
 * atomic, so a crash leaves the old file or the new one, never a half-written one.
 */
async function ensureIgnored(root: string, entries: readonly IgnoreEntry[]): Promise<Outcome & { added: string[] }> {
  const path = join(root, '.gitignore');
  let current: string | undefined;
  try {
    current = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const block = (missing: readonly IgnoreEntry[], eol: string) => missing.map((e) => `${e.comment}${eol}${e.line}${eol}`).join('');
  if (current === undefined) {
    try {
      await writeFileAtomic(path, block(entries, '\n'), { exclusive: true });
      return { path: '.gitignore', action: 'created', added: entries.map((e) => e.line) };
    } catch (error) {
      // Created by someone else since we looked: fall through and update theirs.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      current = await readFile(path, 'utf8');
    }
  }
  const lines = new Set(current.split(/\r?\n/).map((line) => line.trim()));
  const missing = entries.filter((e) => ![...e.covers].some((line) => lines.has(line)));
  if (missing.length === 0) return { path: '.gitignore', action: 'kept', added: [] };
  const eol = current.includes('\r\n') ? '\r\n' : '\n';
  const separator = current === '' || current.endsWith('\n') ? '' : eol;
  await writeFileAtomic(path, `${current}${separator}${block(missing, eol)}`, { mode: (await stat(path)).mode & 0o777 });
  return { path: '.gitignore', action: 'updated', added: missing.map((e) => e.line) };
}

async function ensureDir(root: string, relativePath: string): Promise<Outcome> {
  const path = join(root, relativePath);
  if (existsSync(path)) return { path: `${relativePath}/`, action: 'kept' };
  await mkdir(path, { recursive: true });
  return { path: `${relativePath}/`, action: 'created' };
}

/** `added`: the lines appended to `.gitignore`. */
function outcomeNote(outcome: Outcome, added: readonly string[]): string {
  const ignore = outcome.path === '.gitignore';
  if (outcome.action === 'kept') return ignore ? ` (already ignores ${CACHE_IGNORE.line})` : ' (already there)';
  return outcome.action === 'updated' && ignore ? ` (added ${added.join(', ')})` : '';
}

/**
 * `mtool init [--database NAME]`: creates `migrations/`, `migrations/<database>/` and, when no
 * configuration exists, a commented `mtool.config.ts`; makes `.gitignore` ignore `.mtool/cache/`
 * (and, with the configuration it writes, that configuration's SQLite database file)
 * (appending one line at most). Other existing files are never changed, so the command is safe
 * to repeat. With an existing configuration the database folder is the one of
 * `--database` (or the default database) of that configuration.
 */
export async function init(ctx: CommandContext, input: CommandInput): Promise<CommandResult> {
  const requested = input.options.database as string | undefined;
  if (requested !== undefined && !/^[A-Za-z0-9_][A-Za-z0-9_-]*$/.test(requested)) {
    throw new MtoolError('MTOOL_USAGE', `--database '${requested}' is not a usable database name: use letters, digits, '_' and '-'`);
  }
  // The same root the loader uses: a configuration in a parent folder counts as existing.
  let root = findProjectRoot(ctx.cwd);
  const existing = CONFIG_FILE_NAMES.find((name) => existsSync(join(root, name)));
  const outcomes: Outcome[] = [];
  let database = requested ?? 'default';

  // A configuration found by scanning (src/db.ts with databaseConfig(...)) counts too: a root
  // file written beside it would take its place, unannounced, in every later command.
  if (existing !== undefined || ctx.env.MTOOL_CONFIG_MODULE || (await scanCandidates(root)).length > 0) {
    const config = await ctx.loadConfig();
    root = config.root;
    const entry = requested === undefined ? config.databases.find((d) => d.isDefault) : config.databases.find((d) => d.name === requested);
    if (!entry) {
      const known = config.databases.map((d) => d.name).join(', ');
      throw new MtoolError(
        'MTOOL_CONFIG',
        `database '${requested}' is not in the configuration (configured: ${known}); add a databaseConfig({ databaseName: '${requested}', ... }) to ${existing ?? 'the configuration'} and run init again`,
      );
    }
    announceWarnings(config, [entry]);
    database = entry.name;
    outcomes.push({ path: existing ?? (ctx.env.MTOOL_CONFIG_MODULE || relative(root, config.source.files[0]!)), action: 'kept' });
  } else {
    const path = join(root, CONFIG_FILE_NAMES[0]);
    try {
      await writeFileAtomic(path, configScaffold(database), { exclusive: true });
      outcomes.push({ path: CONFIG_FILE_NAMES[0], action: 'created' });
    } catch (error) {
      // Another init created it between our check and the write: keep theirs.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      outcomes.push({ path: CONFIG_FILE_NAMES[0], action: 'kept' });
    }
  }
  outcomes.push(await ensureDir(root, 'migrations'));
  outcomes.push(await ensureDir(root, `migrations/${database}`));
  // The database file of a configuration written now is local data; a configuration the user
  // wrote may name any database, so only the cache is ignored for it.
  const scaffolded = outcomes[0]?.path === CONFIG_FILE_NAMES[0] && outcomes[0].action === 'created';
  const { added, ...ignored } = await ensureIgnored(root, scaffolded ? [CACHE_IGNORE, SCAFFOLD_DATABASE_IGNORE] : [CACHE_IGNORE]);
  outcomes.push(ignored);

  const data = { root, database, files: outcomes };
  return {
    data,
    text: () =>
      [
        ...outcomes.map((o) => `${o.action.padEnd(7)} ${o.path}${outcomeNote(o, added)}`),
        `next: mtool new "describe your change"${database === 'default' ? '' : ` --database ${database}`}`,
      ].join('\n'),
  };
}
