// Setup for mutation runs only (vitest.mutation.config.ts). Stryker's vitest runner always uses
// worker threads, where process.umask(mask) throws. Setting the umask the process already has
// changes nothing, so that call is allowed; any other mask still throws, as it would in a worker.
import { isMainThread } from 'node:worker_threads';

if (!isMainThread) {
  const current = process.umask();
  const original = process.umask.bind(process);
  process.umask = ((mask?: string | number) => {
    if (mask === undefined) return current;
    const wanted = typeof mask === 'string' ? Number.parseInt(mask, 8) : mask;
    if (wanted === current) return current;
    return original(mask as number);
  }) as typeof process.umask;
}
