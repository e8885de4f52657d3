/** Temporary project folders for configuration tests. */
import { tempProject } from '../support/temp-project.js';

export { rejection } from '../support/temp-project.js';

/** Create a project folder holding `files` (path → text; a value `{ symlink }` makes a symlink). */
export function project(files: Record<string, string | { symlink: string }>): Promise<string> {
  return tempProject(files, 'mtool-config-test-');
}

/** A scratch folder outside any project (for symlink targets). */
export async function outside(files: Record<string, string>): Promise<string> {
  return project(files);
}

/** One sqlite database declaration. */
export function sqliteDb(name: string, extra = ''): string {
  return `databaseConfig({ databaseName: '${name}', databaseType: 'sqlite', databaseUrl: 'sqlite:///${name}.db'${extra ? `, ${extra}` : ''} });\n`;
}

export const IMPORT = "import { databaseConfig, MtoolDatabase, env } from 'mtool';\n";
