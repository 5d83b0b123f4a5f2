import { SvcError } from '../errors.js';
import { addressSpaceLimitKiB } from '../system/system-errors.js';
import { ConnectionError } from './errors.js';

/**
 * What svc needs of virtual address space (`ulimit -v`, KiB) to make a request where V8 reserves
 * guard regions for a Wasm memory: undici parses HTTP with llhttp compiled to WebAssembly, and
 * such a V8 reserves about 10 GiB for it, on top of Node's own. Measured (Node 20, Linux x86-64,
 * session 21): `svc roles ls` fails at 11,000,000 and works at 11,500,000; a bulk run at
 * --concurrency 16 aborts at 11,500,000 and works at 12,000,000. Only such a V8 fails to make the
 * parser, so this is the need its failure names (Node 24's V8 does without the guard regions).
 */
export const ADDRESS_SPACE_NEEDED_KIB = 12_000_000;

/**
 * What a bulk run needs of virtual address space (KiB), by Node's major version, measured (Linux
 * x86-64, session 22, `roles assign --file` and `roles revoke --file` of 500 rows at --concurrency
 * 16 and 64, twice each): under it the run is killed by V8 or libuv (SIGABRT, exit 134) once it
 * holds its journal's lock (review21c F3), which no handler of svc's can word. Node 20: aborts at
 * 11,500,000 (libuv cannot map a thread's stack once the parser's reservation is made), works from
 * 11,550,000: 12,000,000 as a request needs. Node 24: aborts at 1,450,000 (V8's heap cannot grow),
 * works from 1,500,000: 1,600,000. A Node not measured (22, 25…) is not judged: its run goes on.
 */
const BULK_RUN_NEEDS_KIB: Readonly<Record<string, number>> = {
  '20': ADDRESS_SPACE_NEEDED_KIB,
  '24': 1_600_000,
};

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
    const { message, hint } = addressSpaceWords(
      `${HTTP_CLIENT_SHORT}: it needs`,
      ADDRESS_SPACE_NEEDED_KIB,
      addressSpaceLimitKiB(),
    );
    return new ConnectionError(message, {
      code: 'address_space_limit',
      hint,
      cause: error,
      mayHaveArrived: false,
      retryable: false,
    });
  }
  return undefined;
}

/** The address-space failure of a request in a few words (`auth status`'s status row says it). */
export const HTTP_CLIENT_SHORT = "svc's HTTP client could not reserve its memory";

/**
 * A bulk run that will not fit in this process's virtual address space (`ulimit -v` under what
 * BULK_RUN_NEEDS_KIB measured for this Node), refused before it locks its journal or sends a
 * change, in the words a request's failure uses (review21c F3: it was killed by SIGABRT, exit
 * 134, no word of svc's, its journal's lock left); undefined when it fits or is not known. Exit 1.
 * Dry runs too (one was measured killed). It comes after the verb's usage checks (exit 2) and the
 * reads they make (a role, a webhook): nothing was changed, not "nothing was sent" (review22a F2).
 */
export function bulkRunShortfall(
  limitKiB: number | undefined = addressSpaceLimitKiB(),
  nodeVersion: string = process.versions.node,
): SvcError | undefined {
  const needed = BULK_RUN_NEEDS_KIB[nodeVersion.split('.')[0]!];
  if (needed === undefined || limitKiB === undefined || limitKiB >= needed) return undefined;
  const { message, hint } = addressSpaceWords('this bulk run needs', needed, limitKiB, 'nothing was changed');
  return new SvcError('failure', message, { code: 'address_space_limit', hint });
}

/** Throws bulkRunShortfall's error: first thing in a bulk run (src/bulk/operation.ts), before its journal's lock. */
export function refuseShortAddressSpace(): void {
  const short = bulkRunShortfall();
  if (short !== undefined) throw short;
}

/** `<what> about 12 GB of virtual address space, and this process may use …; nothing was sent`, and the fix. */
function addressSpaceWords(
  what: string,
  neededKiB: number,
  limitKiB: number | undefined,
  nothing = 'nothing was sent',
): { message: string; hint: string } {
  const gb = neededKiB / 1_000_000;
  const about = gb >= 10 ? gb.toFixed(0) : gb.toFixed(1);
  return {
    message: `${what} about ${about} GB of virtual address space, and ${
      limitKiB === undefined
        ? 'a limit on it (ulimit -v) is lower'
        : `this process may use ${limitKiB.toLocaleString('en')} KiB (ulimit -v)`
    }; ${nothing}`,
    hint: `raise the limit for svc (\`ulimit -v unlimited\`, or at least \`ulimit -v ${neededKiB}\`: ${neededKiB.toLocaleString('en')} KiB), then run the command again`,
  };
}
