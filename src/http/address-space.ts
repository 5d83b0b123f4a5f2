import { addressSpaceLimitKiB } from '../system/system-errors.js';
import { ConnectionError } from './errors.js';

/**
 * What svc needs of virtual address space (`ulimit -v`, KiB) to make a request: undici parses HTTP
 * with llhttp compiled to WebAssembly, and V8 reserves about 10 GiB of address space for a Wasm
 * memory (its guard regions), on top of Node's own. Measured (Node 20, Linux x86-64, session 21):
 * `svc roles ls` fails at 11,000,000 and works at 11,500,000; a bulk run at --concurrency 16 aborts
 * at 11,500,000 and works at 12,000,000.
 */
export const ADDRESS_SPACE_NEEDED_KIB = 12_000_000;

/** V8's words when it cannot reserve a Wasm memory: `WebAssembly.Instance(): Out of memory: Cannot allocate Wasm memory for new instance`. */
const WASM_OUT_OF_MEMORY = /Cannot allocate Wasm memory|WebAssembly\.\w+\(\): Out of memory/;

/**
 * The failure of a request whose HTTP client could not reserve its memory, under a `ulimit -v`
 * (attack21 F8: it was worded "cannot reach … is the server running?", pointing a job's owner at
 * the server, the URL and the proxy), in words with the limit and the fix; undefined for anything
 * else. Nothing was sent: the parser is made before the connection carries a request. Exit 1.
 */
export function addressSpaceFailure(error: unknown): ConnectionError | undefined {
  let at: unknown = error;
  for (let depth = 0; at instanceof Error && depth < 5; depth++, at = at.cause) {
    if (!WASM_OUT_OF_MEMORY.test(at.message)) continue;
    const limit = addressSpaceLimitKiB();
    const needed = ADDRESS_SPACE_NEEDED_KIB.toLocaleString('en');
    return new ConnectionError(
      `svc's HTTP client could not reserve its memory: it needs about 12 GB of virtual address space, and ${
        limit === undefined
          ? 'a limit on it (ulimit -v) is lower'
          : `this process may use ${limit.toLocaleString('en')} KiB (ulimit -v)`
      }; nothing was sent`,
      {
        code: 'address_space_limit',
        hint: `raise the limit for svc (\`ulimit -v unlimited\`, or at least \`ulimit -v ${ADDRESS_SPACE_NEEDED_KIB}\`: ${needed} KiB), then run the command again`,
        cause: error,
        mayHaveArrived: false,
        retryable: false,
      },
    );
  }
  return undefined;
}
