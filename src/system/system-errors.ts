/**
 * System errors (Node's ErrnoException: `ENOSPC: no space left on device, write`) in words. No
 * imports of svc's own: output/errors.ts words one that reached the top with it.
 */
import { readFileSync } from 'node:fs';
import { hasConcurrency } from './command-scope.js';

/** The reason in words: `no space left on device`, not the code and the call; out of descriptors with the limit and the fix. */
export function systemReason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EMFILE' || code === 'ENFILE') return tooManyOpenFiles(code);
  const words =
    typeof code !== 'string' ? undefined : new RegExp(`^${code}: ([^,]+),`).exec((error as Error).message);
  return words ? words[1]! : (error as Error).message;
}

/**
 * A system error's own message (`EACCES: permission denied, open 'F'`), but out of file descriptors
 * in words with the limit and the fix: the one a bulk run meets reading the store per row.
 */
export function systemErrorWords(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'EMFILE' || code === 'ENFILE' ? tooManyOpenFiles(code) : (error as Error).message;
}

/**
 * Out of file descriptors (EMFILE, ENFILE), in tooManyOpenFiles' words, or undefined for any other
 * error: its code, or its cause's (undici's socket errors carry it themselves: `connect EMFILE
 * 127.0.0.1:9 - Local (undefined:undefined)`, code EMFILE, syscall connect).
 */
export function outOfDescriptors(error: unknown): string | undefined {
  const codes = [
    (error as NodeJS.ErrnoException)?.code,
    (error as { cause?: NodeJS.ErrnoException })?.cause?.code,
  ];
  const code = codes.find((one) => one === 'EMFILE' || one === 'ENFILE');
  return code === undefined ? undefined : tooManyOpenFiles(code);
}

/**
 * Out of file descriptors, with the limit and the fix (attack21 F3: a bulk run's rows failed as
 * `EMFILE: too many open files, open '…/credentials.json'`): a run at a high --concurrency under a
 * small `ulimit -n` (a container's, launchd's) holds a socket per row in flight. "lower
 * --concurrency" only where the running command has it (review21c F7, command-scope.ts).
 */
function tooManyOpenFiles(code: 'EMFILE' | 'ENFILE'): string {
  const lower = hasConcurrency() ? 'lower --concurrency or ' : '';
  if (code === 'ENFILE')
    return `too many open files on this system (the kernel's limit, not this process's): ${lower}raise fs.file-max`;
  // The limit is read before the descriptors run out where it matters (a bulk run); elsewhere it may
  // not be known then, and is not shown as a "?" (review21c F7).
  const limit = openFilesLimit();
  return `too many open files (${limit === undefined ? 'this process’s limit, ulimit -n' : `ulimit -n ${limit}`}): ${lower}raise the limit`;
}

let limitRead: { soft: number | undefined } | undefined;

/**
 * This process's soft limit of open files (`ulimit -n`), read once: call it before the descriptors
 * run out (a bulk run does as it starts), as the read takes one. Undefined where there is no /proc,
 * or it could not be read (then tried again on the next call).
 */
export function openFilesLimit(): number | undefined {
  if (limitRead === undefined) {
    const soft = processLimit('Max open files');
    if (soft === null) return undefined;
    limitRead = { soft };
  }
  return limitRead.soft;
}

/** This process's soft limit of virtual memory (`ulimit -v`) in KiB, as ulimit says it; undefined: none, or not known. */
export function addressSpaceLimitKiB(): number | undefined {
  const bytes = processLimit('Max address space');
  return bytes === null || bytes === undefined ? undefined : Math.floor(bytes / 1024);
}

/**
 * A soft limit from /proc/self/limits (Linux): its number, undefined when unlimited, null when it
 * cannot be read (no /proc: macOS; no descriptor left).
 */
function processLimit(name: string): number | undefined | null {
  try {
    const line = new RegExp(`^${name}\\s+(\\d+|unlimited)`, 'm').exec(
      readFileSync('/proc/self/limits', 'latin1'),
    );
    if (line === null) return null;
    return line[1] === 'unlimited' ? undefined : Number(line[1]);
  } catch {
    return null;
  }
}
