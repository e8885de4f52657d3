import { describe, expect, it } from 'vitest';
import { formatMs } from '../../src/main/engine/format-ms.js';

describe('formatMs', () => {
  it('shows what this side timed with the precision its clock has', () => {
    expect(formatMs(0.4213)).toBe('0.42 ms');
    expect(formatMs(12.34)).toBe('12.3 ms');
    expect(formatMs(999.94)).toBe('999.9 ms');
  });

  it('shows whole milliseconds (a server-measured execution_ms) whole, and 0 as under a millisecond', () => {
    expect(formatMs(0)).toBe('<1 ms');
    expect(formatMs(3)).toBe('3 ms');
    expect(formatMs(417)).toBe('417 ms');
  });

  it('shows a second and more in seconds', () => {
    expect(formatMs(1000)).toBe('1.00 s');
    expect(formatMs(1523.7)).toBe('1.52 s');
  });
});
