import { describe, expect, it } from 'vitest';
import { ERROR_CODES, LockError, MtoolError, isMtoolError } from '../../src/errors.js';

describe('error table', () => {
  it('gives every error its code and the exit code of its row', () => {
    const e = new LockError('held');
    expect(e.code).toBe('MTOOL_LOCKED');
    expect(e.exitCode).toBe(ERROR_CODES.MTOOL_LOCKED.exit);
    expect(isMtoolError(e)).toBe(true);
    expect(isMtoolError(new Error('x'))).toBe(false);
    expect(new MtoolError('MTOOL_CONFIG', 'bad').exitCode).toBe(2);
  });
});
