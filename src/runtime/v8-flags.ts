import { createRequire } from 'node:module';

/**
 * The V8 flags svc changes while it runs, and how to put them back. They are process-wide, and
 * V8 stamps a code cache with a hash of all its flags, so bin/svc.js calls restoreDefaultFlags()
 * before writing one: a cache must match the default flags the next process starts with.
 */

/**
 * undici parses HTTP with llhttp compiled to WebAssembly. Under V8's default tiering, the
 * optimising compiler's background work makes every command's exit about 80 ms slower on the
 * machines we measured (bench/RESULTS.md); the baseline compiler (Liftoff) parses a CLI's
 * responses just as well. Applied by the entry point before any command runs; long-running
 * commands (the sandbox, whose delivery engine parses many responses) keep V8's tiering.
 */
export function useBaselineWasmCompiler(): void {
  v8().setFlagsFromString('--liftoff-only');
}

/**
 * Runs a bulk operation with V8's old generation kept close to its live size. A run of
 * thousands of requests allocates a few hundred megabytes of short-lived objects; with default
 * settings V8 lets the old generation grow to about three times the live data between full
 * collections, which put a 10,000-row grant near 155 MB of resident memory. Growing by at most
 * 30% costs a few more, small, full collections (no measurable time at this heap size) and
 * keeps it near 125 MB (bench/grants.mjs). Put back afterwards, and again by
 * restoreDefaultFlags() should the process end inside the run.
 */
export async function withCompactHeap<T>(run: () => Promise<T>): Promise<T> {
  v8().setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  try {
    return await run();
  } finally {
    v8().setFlagsFromString(DEFAULT_HEAP);
  }
}

/** Every flag above back to V8's default (the flags --liftoff-only implies included). */
export function restoreDefaultFlags(): void {
  v8().setFlagsFromString(`--no-liftoff-only --wasm-tier-up --wasm-dynamic-tiering ${DEFAULT_HEAP}`);
}

const HEAP_GROWING_PERCENT = 30;
/** 0 is V8's "not set": its own heuristics decide how far the heap grows. */
const DEFAULT_HEAP = '--heap-growing-percent=0';

// node:v8 is loaded only when a flag is changed (not at every start).
function v8(): typeof import('node:v8') {
  return createRequire(import.meta.url)('node:v8');
}
