import { Command } from 'commander';
import type { MakeContext } from '../../kit.js';
import { lsCommand } from './ls.js';

/** `svc webhooks dlq`: the dead-letter queue; `ls` is the default, so `svc webhooks dlq WEBHOOK` lists. */
export function dlqCommand(make: MakeContext): Command {
  return new Command('dlq')
    .description('The dead-letter queue of a webhook: deliveries that failed permanently')
    .addCommand(lsCommand(make), { isDefault: true });
}
