import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

// expectTypeOf is a no-op at run time; type-check the type tests so a wrong InferRow fails this suite.
describe('InferRow type tests', () => {
  it('type-check without errors', async () => {
    const file = fileURLToPath(new URL('./infer-row.test-d.ts', import.meta.url));
    const tsc = fileURLToPath(new URL('../../node_modules/typescript/bin/tsc', import.meta.url));
    const args = [tsc, '--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', '--skipLibCheck', '--types', 'node', file];
    const result = await promisify(execFile)(process.execPath, args).then(
      () => '',
      (error: { stdout?: string }) => error.stdout ?? String(error),
    );
    expect(result).toBe('');
  });
});
