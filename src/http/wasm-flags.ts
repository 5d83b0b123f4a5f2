import { createRequire } from 'node:module';

/**
 * undici parses HTTP with llhttp compiled to WebAssembly. Under V8's default tiering, the
 * optimising compiler's background work makes every command's exit about 80 ms slower on the
 * machines we measured (bench/RESULTS.md); the baseline compiler (Liftoff) parses a CLI's
 * responses just as well. Switched on before the first connection compiles the module.
 */
export function useBaselineWasmCompiler(): void {
  v8().setFlagsFromString('--liftoff-only');
}

/**
 * Undoes useBaselineWasmCompiler, flags implied by it included. V8 stamps a code cache with a
 * hash of all its flags, so bin/svc.js calls this before writing one (caches must match the
 * default flags the next process starts with).
 */
export function restoreDefaultWasmFlags(): void {
  v8().setFlagsFromString('--no-liftoff-only --wasm-tier-up --wasm-dynamic-tiering');
}

// node:v8 is loaded only when needed (not at every start).
function v8(): typeof import('node:v8') {
  return createRequire(import.meta.url)('node:v8');
}
