import { createRequire } from 'node:module';

/**
 * Runs a bulk operation with V8's old generation kept close to its live size. A run of
 * thousands of requests allocates a few hundred megabytes of short-lived objects; with default
 * settings V8 lets the old generation grow to about three times the live data between full
 * collections, which put a 10,000-row grant near 155 MB of resident memory. Growing by at most
 * 30% costs a few more, small, full collections (no measurable time at this heap size) and
 * keeps it near 125 MB (bench/grants.mjs).
 *
 * The flag is V8's and process-wide, so it is put back afterwards: V8 stamps code caches with
 * its flags, and bin/svc.js writes one at exit (see also src/http/wasm-flags.ts).
 */
export async function withCompactHeap<T>(run: () => Promise<T>): Promise<T> {
  const v8 = require_('node:v8') as typeof import('node:v8');
  v8.setFlagsFromString(`--heap-growing-percent=${GROWING_PERCENT}`);
  try {
    return await run();
  } finally {
    v8.setFlagsFromString('--heap-growing-percent=0');
  }
}

const GROWING_PERCENT = 30;
const require_ = createRequire(import.meta.url);
