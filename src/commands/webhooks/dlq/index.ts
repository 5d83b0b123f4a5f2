import { Command } from 'commander';
import type { MakeContext } from '../../kit.js';
import { discardCommand } from './discard.js';
import { getCommand } from './get.js';
import { lsCommand } from './ls.js';

/** `svc webhooks dlq`: the dead-letter queue. `svc webhooks dlq WEBHOOK` still lists it (ls is the default). */
export function dlqCommand(make: MakeContext): Command {
  return new Command('dlq')
    .summary('The dead-letter queue of a webhook: list, get one, discard')
    .description(
      "Deliveries that failed permanently (every attempt used) wait in their webhook's dead-letter queue\n" +
        'until someone replays (`svc webhooks replay`) or discards them. `svc webhooks dlq WEBHOOK` lists\n' +
        'the queue (it is `svc webhooks dlq ls WEBHOOK`).',
    )
    .addCommand(lsCommand(make), { isDefault: true })
    .addCommand(getCommand(make))
    .addCommand(discardCommand(make));
}
