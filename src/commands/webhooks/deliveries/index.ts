import { Command } from 'commander';
import type { MakeContext } from '../../kit.js';
import { getCommand } from './get.js';
import { lsCommand } from './ls.js';

/** `svc webhooks deliveries`: a webhook's deliveries. `svc webhooks deliveries WEBHOOK` still lists them (ls is the default). */
export function deliveriesCommand(make: MakeContext): Command {
  return new Command('deliveries')
    .summary('Deliveries of a webhook: list (with outcome counts), get one')
    .description(
      "A webhook's deliveries. `svc webhooks deliveries WEBHOOK` lists them under a summary (it is\n" +
        '`svc webhooks deliveries ls WEBHOOK`); `svc webhooks deliveries get WEBHOOK DELIVERY` shows one,\n' +
        'with its attempts, or its raw payload.',
    )
    .addCommand(lsCommand(make), { isDefault: true })
    .addCommand(getCommand(make));
}
