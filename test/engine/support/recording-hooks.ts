import type { EngineHooks } from '../../../src/main/engine/hooks.js';

/**
 * Engine hooks that push one line per call to `calls` (`before 0001`, `after 0001`, `commit
 * 0001,0002`, `batch 0001,0002 failed=false`). With `runLengths`, they also answer `runLength`
 * (`run 0001,0002 remaining=2`) with its entries in turn (1 once they run out; an Error is thrown).
 */
export function recordingHooks(calls: string[], runLengths?: (number | Error)[]): EngineHooks {
  const hooks: EngineHooks = {
    async beforeVersionedMigration(e) {
      calls.push(`before ${e.file.version}`);
    },
    async afterVersionedMigration(e) {
      calls.push(`after ${e.file.version}`);
    },
    async afterCommit(e) {
      calls.push(`commit ${e.committed.map((c) => c.file.version).join(',')}`);
    },
    async afterBatch(e) {
      calls.push(`batch ${e.applied.map((a) => a.file.version).join(',')} failed=${e.failed}`);
    },
  };
  if (runLengths) {
    hooks.runLength = async (e) => {
      calls.push(`run ${e.pending.map((f) => f.version).join(',')} remaining=${e.remaining}`);
      const next = runLengths.shift() ?? 1;
      if (next instanceof Error) throw next;
      return next;
    };
  }
  return hooks;
}
