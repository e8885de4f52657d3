import type { Reporter, TestModule } from 'vitest/node';

/**
 * Prints the closing line CI reads: `tests: N passed, N failed, N skipped`.
 * Vitest's own summary is kept; this adds one plain line after it.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>, errors: ReadonlyArray<unknown>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const mod of modules) {
      for (const test of mod.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failed++;
        else skipped++;
      }
      // A file that failed to load has no tests but must count as a failure.
      if (mod.state() === 'failed' && [...mod.children.allTests()].length === 0) failed++;
    }
    failed += errors.length;
    process.stdout.write(`\ntests: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
