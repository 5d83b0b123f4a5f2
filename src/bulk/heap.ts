// The compact heap of bulk runs is one of the V8 flags svc changes; all of them, and putting
// them back before a code cache is written, live in src/runtime/v8-flags.ts.
export { withCompactHeap } from '../runtime/v8-flags.js';
