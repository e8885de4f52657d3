import { mergeTables, type SchemaStep } from '../../src/main/snapshot/schema-window.js';
import type { SchemaIR } from '../../src/schema/ir.js';

/**
 * The schema after a window entry's step, from the schema before it: the step's meaning, as
 * whole schemas. The snapshot writer applies steps to its text instead (SnapshotWriter.stageStep);
 * tests hold both to this.
 */
export function applyStep(previous: SchemaIR, step: SchemaStep): SchemaIR {
  switch (step.kind) {
    case 'none':
      return previous;
    case 'full':
      return step.schema;
    case 'partial':
      return mergeTables(previous, step.part, step.replaced, step.enums);
  }
}
