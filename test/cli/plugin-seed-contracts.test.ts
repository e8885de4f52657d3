import { afterEach, describe, expect, it } from 'vitest';
import { configureLogging } from '../../src/main/log.js';
import { definePlugin, versionSatisfies } from '../../src/plugin/index.js';
import { describeSeed, Seed, seedData } from '../../src/seed/index.js';

const command = { name: 'seed apply', description: 'apply seeds', examples: ['mtool seed apply'], run: async () => ({ data: {}, text: () => '' }) };

describe('definePlugin', () => {
  it('returns a well-formed plugin unchanged', () => {
    const plugin = { name: 'mtool-seeds', version: '0.1.0', mtool: '>=0.1.0 <1.0.0', hooks: { afterMigrate: () => undefined }, commands: [command] };
    expect(definePlugin(plugin)).toBe(plugin);
  });

  it.each([
    [{ name: 'Bad Name', version: '1.0.0', mtool: '*' }, /name must be the npm package name/],
    [{ name: 'mtool-x', version: '1.0', mtool: '*' }, /plugin mtool-x: version '1.0' must be a semantic version/],
    [{ name: 'mtool-x', version: '1.0.0', mtool: '' }, /plugin mtool-x: mtool must be the range/],
    [{ name: 'mtool-x', version: '1.0.0', mtool: 'soon' }, /'soon' is not a version range/],
    [{ name: 'mtool-x', version: '1.0.0', mtool: '*', hooks: { onMigrate: () => undefined } }, /unknown hook 'onMigrate'; hooks are: beforeMigrate, afterMigrate/],
    [{ name: 'mtool-x', version: '1.0.0', mtool: '*', hooks: { afterMigrate: 'yes' } }, /hook afterMigrate must be a function/],
    [{ name: 'mtool-x', version: '1.0.0', mtool: '*', commands: [{ ...command, examples: [] }] }, /command seed apply: give at least one example/],
    [{ name: 'mtool-x', version: '1.0.0', mtool: '*', objectHandlers: [{ objectType: 'extension', databaseTypes: ['postgresql'], create: () => [] }] }, /object handler extension: create and drop must be functions/],
  ])('rejects %j', (plugin, message) => {
    expect(() => definePlugin(plugin as never)).toThrow(message);
  });
});

describe('versionSatisfies', () => {
  it.each([
    ['0.1.3', '>=0.1.0 <1.0.0', true],
    ['1.0.0', '>=0.1.0 <1.0.0', false],
    ['0.1.9', '^0.1.0', true],
    ['0.2.0', '^0.1.0', false],
    ['1.4.0', '^1.2.0', true],
    ['2.0.0', '^1.2.0', false],
    ['1.2.9', '~1.2.0', true],
    ['1.3.0', '~1.2.0', false],
    ['1.3.0', '1.x', true],
    ['0.17.0', '0.17.0', true],
    ['0.17.1', '0.17.0', false],
    ['3.0.0', '<2.0.0 || >=3.0.0', true],
    ['5.5.5', '*', true],
  ])('%s satisfies %s: %s', (version, range, expected) => {
    expect(versionSatisfies(version, range)).toBe(expected);
  });
});

describe('Seed', () => {
  afterEach(() => configureLogging({ level: 'info', json: false, sink: undefined }));

  it('describes a row seed from its statics', () => {
    const users = { name: 'users' };
    class Admin extends Seed {
      static override version = 'C0001';
      static override database = 'app';
      static override model = users;
      static override rows = [{ id: 1, email: 'a@example.com' }];
    }
    expect(describeSeed(Admin)).toMatchObject({ version: 'C0001', database: 'app', onConflict: 'ignore', model: users, identifier: 'Admin', deprecated: false });
  });

  it.each([
    [class extends Seed { static override version = 'V0001'; static override forward = () => undefined; }, /version 'V0001' must be 'C' plus four digits/],
    [class extends Seed { static override forward = () => undefined; }, /set static version = 'C0001'/],
    [class extends Seed { static override version = 'C0002'; static override onConflict = 'update' as const; static override forward = () => undefined; }, /onConflict 'update' needs conflictColumns/],
    [class extends Seed { static override version = 'C0003'; static override rows = [{ id: 1 }]; }, /rows need a model/],
    [class extends Seed { static override version = 'C0004'; }, /define rows \(with model\) or a static forward/],
  ])('rejects an invalid seed class (%#)', (cls, message) => {
    expect(() => describeSeed(cls)).toThrow(message);
  });

  it('accepts the deprecated seedData form and warns once', () => {
    const lines: string[] = [];
    configureLogging({ level: 'info', json: true, sink: { write: (l) => void lines.push(l) } });
    const a = seedData({ description: 'colors', model: { name: 'colors' }, rows: [{ name: 'red' }] });
    seedData({ description: 'sizes', model: { name: 'sizes' }, rows: [{ name: 'xl' }] });
    expect(a).toMatchObject({ version: undefined, database: 'default', deprecated: true, identifier: 'seedData:colors' });
    expect(lines.map((l) => JSON.parse(l).level)).toEqual(['WARNING']);
    expect(JSON.parse(lines[0]).message).toContain('seedData({...}) is deprecated');
  });
});
