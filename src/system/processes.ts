/** The user this process runs as (undefined on Windows). */
export const uid = (): number | undefined =>
  typeof process.getuid === 'function' ? process.getuid() : undefined;

/**
 * Whether process `pid` still runs: signal 0 checks without sending anything. EPERM means it runs
 * as another user; only ESRCH says it is gone. The callers decide what their own pid means.
 */
export function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}
