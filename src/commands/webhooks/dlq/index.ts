import { Command } from 'commander';
import type { MakeContext } from '../../kit.js';
import { discardCommand } from './discard.js';
import { lsCommand } from './ls.js';

/** `svc webhooks dlq`: the dead-letter queue. `svc webhooks dlq WEBHOOK` still lists it (ls is the default). */
export function dlqCommand(make: MakeContext): Command {
  return new Command('dlq')
    .summary('The dead-letter queue of a webhook: list, discard')
    .addCommand(lsCommand(make), { isDefault: true })
    .addCommand(discardCommand(make));
}
