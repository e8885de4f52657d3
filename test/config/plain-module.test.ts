import { describe, expect, it } from 'vitest';
import { ownModules } from '../../src/main/config/module-loader.js';
import { plainModule, plainSyntax } from '../../src/main/config/plain-module.js';

describe('plainSyntax', () => {
  it.each([
    ['comments and strings holding < / @ require', "// see <docs> at https://x/y @here, required\n/* a < b / c */\nconst s = 'a<b/c @ require', t = \"x/y<z\\\"\";\n"],
    ['a template whose substitutions nest braces', 'const u = `postgres://${({ h: `in${1}` }).h}/db`;\nconst v = { a: { b: 1 } };\n'],
    ['words that only contain require', 'const required = 1, requires2 = 2, $require = 3;\n'],
    ['mtool init\'s configuration', "// Migrations of a database live in migrations/<databaseName>/.\nimport { databaseConfig } from 'mtool';\nexport const defaultDb = databaseConfig({ databaseName: \"default\", default: true });\n"],
  ])('accepts %s', (_what, code) => {
    expect(plainSyntax(code)).toBe(true);
  });

  it.each([
    ['a type argument', "const m = new Set<string>(['a']);\n"],
    ['a generic call that parses as JavaScript with another meaning', 'const n = f<Date>(x);\n'],
    ['a < inside a template substitution', 'const s = `${a < b}`;\n'],
    ['a division', 'const half = 1 / 2;\n'],
    ['a regular expression', "const r = /'/;\n"],
    ['require', "const fs = require('node:fs');\n"],
    ['a property named require', 'const r = module.require;\n'],
    ['a decorator', '@sealed class A {}\n'],
    ['a string that does not end on its line', "const s = 'abc\n';\n"],
    ['a block comment that never ends', 'const a = 1; /* open\n'],
    ['a template that never ends', 'const s = `abc\n'],
    ['a substitution that never ends', 'const s = `${a\n'],
  ])('refuses %s', (_what, code) => {
    expect(plainSyntax(code)).toBe(false);
  });
});

describe('plainModule', () => {
  const own = ownModules();

  it("points mtool's own imports at this installation and changes nothing else", async () => {
    const source = "import { databaseConfig } from 'mtool';\nimport * as schema from \"mtool/schema\";\n// kept\nexport const a = 1;\n";
    const code = await plainModule(source, own);
    expect(code).toBe(`import { databaseConfig } from ${JSON.stringify(own.get('mtool'))};\nimport * as schema from ${JSON.stringify(own.get('mtool/schema'))};\n// kept\nexport const a = 1;\n`);
  });

  it.each([
    ['a relative import', "import { x } from './helper.js';\n"],
    ['a package', "import pg from 'pg';\n"],
    ['a builtin', "import { sep } from 'node:path';\n"],
    ['an mtool module that does not exist', "import { x } from 'mtool/nope';\n"],
    ["mtool's internal aliases", "import { x } from '#errors';\n"],
    ['a dynamic import', "export const m = () => import('mtool');\n"],
    ['import.meta', 'export const u = import.meta.url;\n'],
    ['import attributes', "import data from 'mtool' with { type: 'json' };\n"],
  ])('leaves %s to esbuild', async (_what, code) => {
    expect(await plainModule(code, own)).toBeUndefined();
  });
});
