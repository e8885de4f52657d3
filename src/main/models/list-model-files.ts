import { readFile, stat } from 'node:fs/promises';
import { relative, resolve, sep } from 'node:path';
import { MtoolConfigError } from '../../errors.js';
import type { Logger } from '../log.js';

/** Extensions of files that can hold models. */
export const MODEL_EXTENSIONS = ['ts', 'mts', 'js', 'mjs'] as const;

const GLOB_CHARS = /[*?[\]{}()!]/;

/**
 * Folders never scanned: dependencies, build output, and test folders (tests define throwaway
 * models that must not reach a database). Dot-folders (`.git`, `.mtool`) are skipped by the glob.
 */
const IGNORED = ['**/node_modules/**', '**/dist/**', '**/build/**', '**/coverage/**', '**/test/**', '**/tests/**', '**/__tests__/**', '**/*.d.ts', '**/*.d.mts', '**/*.test.*', '**/*.spec.*'];

/** A whole-project scan loads only files that import the model API (checked on the text, cheap). */
const IMPORTS_SCHEMA = /\bfrom\s*['"]mtool\/schema['"]|\bimport\s*\(\s*['"]mtool\/schema['"]\s*\)|\brequire\s*\(\s*['"]mtool\/schema['"]\s*\)/;

export interface ModelFiles {
  /** Absolute paths, sorted, without duplicates. */
  files: string[];
  /** True when `modelPaths` was empty and the whole project was scanned. */
  scanned: boolean;
}

/**
 * The files holding a database's models.
 * - `modelPaths` set: each entry is a file, a folder (every `.ts/.mts/.js/.mjs` below it) or a
 *   glob, relative to the project root. An entry that matches no such file is an error naming it.
 * - `modelPaths` empty: the whole project is scanned (not `node_modules`, `dist`, `build`,
 *   `coverage`, dot-folders, `test`/`tests`/`__tests__` folders, `*.test.*`/`*.spec.*`/`.d.ts`
 *   files), keeping only files that import `mtool/schema`.
 * Every file is logged at DEBUG (`--debug`).
 * @example await listModelFiles('/p', 'app', ['models', 'src/**\/*.model.ts'], logger)
 */
export async function listModelFiles(root: string, database: string, modelPaths: readonly string[], log: Pick<Logger, 'debug'>): Promise<ModelFiles> {
  const { glob } = await import('tinyglobby');
  const exts = `{${MODEL_EXTENSIONS.join(',')}}`;
  const found = new Set<string>();
  if (modelPaths.length === 0) {
    const candidates = await glob([`**/*.${exts}`], { cwd: root, ignore: IGNORED, onlyFiles: true, followSymbolicLinks: false, absolute: true });
    const texts = await readAll(candidates);
    candidates.forEach((file, i) => {
      const hit = IMPORTS_SCHEMA.test(texts[i] ?? '');
      log.debug(`model scan: ${shown(root, file)}${hit ? '' : ' (no mtool/schema import, skipped)'}`);
      if (hit) found.add(file);
    });
    return { files: [...found].sort(), scanned: true };
  }
  for (const entry of modelPaths) {
    let matches: string[];
    if (GLOB_CHARS.test(entry)) {
      matches = (await glob([entry], { cwd: root, ignore: ['**/node_modules/**'], onlyFiles: true, followSymbolicLinks: false, absolute: true })).filter(isModelFile);
    } else {
      const path = resolve(root, entry);
      const info = await stat(path).catch(() => undefined);
      if (!info) throw new MtoolConfigError(`modelPaths entry '${entry}' of database '${database}' does not exist under the project root ${root}; fix the path or remove it`, { database });
      matches = info.isDirectory()
        ? await glob([`**/*.${exts}`], { cwd: path, ignore: ['**/node_modules/**', '**/*.d.ts', '**/*.d.mts'], onlyFiles: true, followSymbolicLinks: false, absolute: true })
        : [path];
      if (!info.isDirectory() && !isModelFile(path)) {
        throw new MtoolConfigError(`modelPaths entry '${entry}' of database '${database}' is not a .ts, .mts, .js or .mjs file`, { database });
      }
    }
    if (matches.length === 0) {
      throw new MtoolConfigError(`modelPaths entry '${entry}' of database '${database}' matches no .ts, .mts, .js or .mjs file under ${root}`, { database });
    }
    for (const file of matches) {
      log.debug(`model scan: ${shown(root, file)} (modelPaths '${entry}')`);
      found.add(file);
    }
  }
  return { files: [...found].sort(), scanned: false };
}

function isModelFile(path: string): boolean {
  return /\.(?:ts|mts|js|mjs)$/.test(path) && !/\.d\.m?ts$/.test(path);
}

/** Read files with bounded parallelism (a project may hold thousands). */
async function readAll(files: readonly string[]): Promise<string[]> {
  const out = new Array<string>(files.length);
  let next = 0;
  const worker = async () => {
    while (next < files.length) {
      const i = next++;
      out[i] = await readFile(files[i] as string, 'utf8').catch(() => '');
    }
  };
  await Promise.all(Array.from({ length: Math.min(32, files.length) }, worker));
  return out;
}

/** A path as messages show it: relative to the root with forward slashes. */
export function shown(root: string, file: string): string {
  return relative(root, file).split(sep).join('/');
}
