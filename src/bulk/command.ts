import { refuseShortAddressSpace } from '../http/address-space.js';
import { withConcurrency } from '../system/command-scope.js';

/**
 * A bulk command's run (roles assign|revoke --file, webhooks replay, dlq discard, apply): refused
 * first when it will not fit in the address space (before it reads, sends or locks anything), and
 * its words may say "lower --concurrency", a flag it has (command-scope.ts).
 */
export function runBulkCommand<T>(run: () => Promise<T>): Promise<T> {
  return withConcurrency(async () => {
    refuseShortAddressSpace();
    return await run();
  });
}
