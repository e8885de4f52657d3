import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Script } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseMigrationFile } from '../../src/parser/migration-file.js';
import { CLI_DIR } from '../support/cli.js';

/**
 * The CLI bundle (scripts/bundle-cli.mjs, run by `npm run build`): its files link up, it leaves
 * the public modules to tsc's output, and its worker-pool entry is found from its chunks.
 */
const built = existsSync(join(CLI_DIR, 'bin.js'));
const ROOT = resolve(CLI_DIR, '..', '..');
/** The ES module entries; every other .js file of the bundle is a script chunk (src/main/startup/script-chunks.ts). */
const ENTRIES = ['bin.js', 'parse-worker.js', 'snapshot-worker.js'];
/** tsc's build of the chunk loader, which runs a chunk as the entries do. */
const loader = pathToFileURL(join(ROOT, 'dist', 'main', 'startup', 'script-chunks.js')).href;

describe.runIf(built || process.env.CI === 'true')('the CLI bundle', () => {
  const scripts = built ? readdirSync(CLI_DIR).filter((name) => name.endsWith('.js')) : [];

  it('holds files only, directly in dist/cli, and every relative import among them resolves', () => {
    expect(readdirSync(CLI_DIR, { withFileTypes: true }).filter((entry) => !entry.isFile())).toEqual([]);
    const missing: string[] = [];
    for (const name of scripts) {
      const code = readFileSync(join(CLI_DIR, name), 'utf8');
      for (const [, specifier] of code.matchAll(/(?:from|import\(|require\(|__load\(|[[,])\s*"(\.{1,2}\/[^"]+)"/g)) {
        if (!existsSync(resolve(CLI_DIR, specifier))) missing.push(`${name}: ${specifier}`);
      }
    }
    expect(scripts).toContain('bin.js');
    expect(scripts).toContain('parse-worker.js');
    expect(scripts).toContain('snapshot-worker.js');
    expect(scripts).toContain('cli.js');
    expect(missing).toEqual([]);
  });

  it('has three ES module entries (the executable and two worker entries) and turns every other file of the ES module build into an ASCII script chunk', () => {
    const chunks = scripts.filter((name) => !ENTRIES.includes(name));
    expect(chunks.length).toBeGreaterThan(10);
    for (const name of chunks) {
      const bytes = readFileSync(join(CLI_DIR, name));
      const lines = bytes.toString('latin1').split('\n');
      expect(lines[0], name).toMatch(/^\/\/mtool-chunk \{"chunks":\[.*\],"imports":\[.*\]\}$/);
      expect(lines[1], name).toBe('(function (exports, require, module, __load, __mtoolMeta) {');
      expect(bytes.some((byte) => byte > 0x7f), name).toBe(false);
      // A script, not a module: V8 compiles it as one (an import or export statement would not).
      expect(() => new Script(bytes.toString('latin1'), { filename: name }), name).not.toThrow();
    }
    for (const name of ENTRIES) expect(readFileSync(join(CLI_DIR, name), 'utf8').startsWith('//mtool-chunk'), name).toBe(false);
    // The public modules a chunk requires are named on its first line, to be imported before it runs.
    const cli = readFileSync(join(CLI_DIR, 'cli.js'), 'utf8');
    const header = JSON.parse(cli.slice('//mtool-chunk '.length, cli.indexOf('\n'))) as { imports: string[] };
    expect(header.imports).toContain('../errors.js');
    expect(cli).toContain('require("../errors.js")');
  });

  it('leaves the public modules and the logger to tsc output, so users and the CLI share one instance', () => {
    const bundled = new Set<string>();
    for (const name of scripts) {
      const map = JSON.parse(readFileSync(join(CLI_DIR, `${name}.map`), 'utf8')) as { sources: string[] };
      for (const source of map.sources) bundled.add(relative(ROOT, resolve(CLI_DIR, source)));
    }
    const publicModules = [...bundled].filter(
      (source) =>
        /^src\/(index|config-api|errors)\.ts$/.test(source) ||
        /^src\/(seed|plugin)\//.test(source) ||
        (source.startsWith('src/schema/') && source !== 'src/schema/schema-io.ts') ||
        source === 'src/main/log.ts',
    );
    expect(publicModules).toEqual([]);
    // The check can fail: the bundle does hold the command line and the engine.
    expect(bundled).toContain('src/main/cli.ts');
    expect(bundled).toContain('src/main/engine/load-migrations.ts');
    const code = scripts.map((name) => readFileSync(join(CLI_DIR, name), 'utf8')).join('\n');
    expect(code).toContain('require("../schema/columns.js")');
    expect(code).toContain('require("../errors.js")');
  });

  /** Source files (relative to the package root) of each bundle file, from its source map. */
  const sourcesOf = (name: string): string[] =>
    (JSON.parse(readFileSync(join(CLI_DIR, `${name}.map`), 'utf8')) as { sources: string[] }).sources.map((source) => relative(ROOT, resolve(CLI_DIR, source)));

  const vendorFiles = built ? readdirSync(CLI_DIR).filter((name) => /^vendor-[a-z0-9-]+-[A-Z0-9]+\.cjs$/.test(name)) : [];
  const vendorFile = (name: string): string | undefined => vendorFiles.find((file) => file.startsWith(`vendor-${name}-`));
  const packagesIn = (files: string[]): Set<string> =>
    new Set(
      files
        .flatMap(sourcesOf)
        .filter((source) => source.startsWith('node_modules/'))
        .map((source) => source.split('/')[1]),
    );

  it('carries pg, mysql2, better-sqlite3 (its JavaScript) and pino as vendor files, sade and es-module-lexer in its chunks, and leaves native and path-bound packages to node_modules', () => {
    expect(vendorFiles.map((file) => file.replace(/-[A-Z0-9]+\.cjs$/, '')).sort()).toEqual(['vendor-better-sqlite3', 'vendor-mysql2', 'vendor-pg', 'vendor-pino']);
    // Each inside Node's module wrapper, ASCII only (the loader compiles the text as read, as latin1).
    for (const file of vendorFiles) {
      const bytes = readFileSync(join(CLI_DIR, file));
      expect(bytes.toString('latin1').startsWith('(function (exports, require, module, __filename, __dirname) {'), file).toBe(true);
      expect(bytes.some((byte) => byte > 0x7f), file).toBe(false);
    }
    expect(packagesIn([vendorFile('pg')!])).toEqual(new Set(['pg', 'pg-protocol', 'pg-pool', 'pg-types', 'pg-connection-string', 'pgpass', 'split2', 'postgres-array', 'postgres-bytea', 'postgres-date', 'postgres-interval', 'pg-int8', 'xtend']));
    for (const [name, dependency] of [['mysql2', 'iconv-lite'], ['pino', 'sonic-boom']]) expect(packagesIn([vendorFile(name)!]), name).toContain(dependency);
    // Its JavaScript only: the driver hands over the native addon from node_modules as `nativeBinding`.
    expect(packagesIn([vendorFile('better-sqlite3')!]).has('better-sqlite3')).toBe(true);
    const inChunks = packagesIn(scripts);
    expect([...inChunks].sort()).toEqual(['es-module-lexer', 'mri', 'sade']);
    const everywhere = packagesIn([...scripts, ...vendorFiles]);
    for (const external of ['chdb', 'piscina', 'esbuild', 'yaml', 'tinyglobby', 'undici', 'pg-native', 'pg-cloudflare']) {
      expect(everywhere.has(external), external).toBe(false);
    }
    const code = scripts.map((name) => readFileSync(join(CLI_DIR, name), 'utf8')).join('\n');
    // Every vendor file the chunks name exists (the build wrote the names it hashed).
    const named = [...code.matchAll(/loadVendor\("([^"]+)"\)|"(vendor-[^"]+\.cjs)"/g)].map((m) => m[1] ?? m[2]);
    expect(new Set(named)).toEqual(new Set(vendorFiles));
  });

  it("runs the vendored pg without pg's Cloudflare probe touching the global Response (which loads undici)", () => {
    const probe = (load: string) => {
      // undici first: reading the global Response afterwards loads it.
      const script = `${load}.then((pg) => console.log(JSON.stringify({ client: typeof (pg.default ?? pg).Client, undici: process.moduleLoadList.some((m) => m.includes('undici')), response: typeof Response })))`;
      const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' });
      expect(result.status, result.stderr).toBe(0);
      return JSON.parse(result.stdout) as { client: string; undici: boolean; response: string };
    };
    // pg from node_modules does load undici: the check can fail.
    expect(probe("import('pg')")).toEqual({ client: 'function', undici: true, response: 'function' });
    // The vendored copy does not, and puts the global back.
    const loader = pathToFileURL(join(ROOT, 'dist', 'main', 'startup', 'vendor.js')).href;
    const vendored = `import(${JSON.stringify(loader)}).then((m) => m.runCachedCommonJs(${JSON.stringify(join(CLI_DIR, vendorFile('pg')!))}))`;
    expect(probe(vendored)).toEqual({ client: 'function', undici: false, response: 'function' });
  });

  it('runs the vendored mysql2 without loading tls for a plain session, and still names a server error (its error table loaded once needed)', () => {
    const probe = (load: string) => {
      const script = `${load}.then(async (m) => {
        const mysql = m.default ?? m;
        const conn = await mysql.createConnection({ host: '127.0.0.1', user: 'root' });
        const tlsLoaded = () => process.moduleLoadList.includes('NativeModule tls');
        const before = tlsLoaded();
        const error = await conn.query('SELECT * FROM mtool_no_such_schema.t').then(() => undefined, (e) => e);
        await conn.end();
        console.log(JSON.stringify({ tls: before, code: error?.code, errno: error?.errno }));
      })`;
      const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' });
      expect(result.status, result.stderr).toBe(0);
      return JSON.parse(result.stdout) as { tls: boolean; code: string; errno: number };
    };
    // mysql2 from node_modules loads tls at once: the check can fail.
    expect(probe("import('mysql2/promise')")).toEqual({ tls: true, code: 'ER_NO_SUCH_TABLE', errno: 1146 });
    const loader = pathToFileURL(join(ROOT, 'dist', 'main', 'startup', 'vendor.js')).href;
    const vendored = `import(${JSON.stringify(loader)}).then((m) => m.runCachedCommonJs(${JSON.stringify(join(CLI_DIR, vendorFile('mysql2')!))}))`;
    expect(probe(vendored)).toEqual({ tls: false, code: 'ER_NO_SUCH_TABLE', errno: 1146 });
  });

  describe('worker pool', () => {
    let dir: string;
    const filenames = Array.from({ length: 40 }, (_, i) => `app__${String(i + 1).padStart(4, '0')}_t.sql`);
    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'mtool-bundle-pool-'));
      for (const [i, filename] of filenames.entries()) {
        await writeFile(join(dir, filename), `-- upgrade\nCREATE TABLE t_${i} (id int, note text DEFAULT 'a;b');\n-- rollback\nDROP TABLE t_${i};\n`);
      }
    });
    afterAll(() => rm(dir, { recursive: true, force: true }));

    it('runs dist/cli/parse-worker.js from the bundled pool and parses as the main thread does', async () => {
      const chunk = scripts.find((name) => /^parse-pool-[A-Z0-9]+\.js$/.test(name));
      expect(chunk, 'the bundle has a parse-pool chunk').toBeDefined();
      const { importChunk } = (await import(loader)) as { importChunk(file: string): Promise<unknown> };
      const { parseInPool } = (await importChunk(join(CLI_DIR, chunk!))) as {
        parseInPool(task: { dir: string; database: string; dialect: string; filenames: string[] }): Promise<unknown[]>;
      };
      const pooled = await parseInPool({ dir, database: 'app', dialect: 'postgresql', filenames });
      const main = filenames.map((filename) =>
        parseMigrationFile({ filename, path: join(dir, filename), content: readFileSync(join(dir, filename)), database: 'app', dialect: 'postgresql' }),
      );
      expect(pooled).toHaveLength(filenames.length);
      expect(JSON.parse(JSON.stringify(pooled))).toEqual(JSON.parse(JSON.stringify(main)));
    });
  });
});
