import { Command } from 'commander';
import type { MakeContext } from '../kit.js';
import { deliveriesCommand } from './deliveries.js';
import { dlqCommand } from './dlq/index.js';
import { listenCommand } from './listen.js';
import { lsCommand } from './ls.js';
import { replayCommand } from './replay.js';
import { signCommand } from './sign.js';
import { testCommand } from './test.js';
import { verifyCommand } from './verify.js';

export default function webhooks(make: MakeContext): Command {
  return new Command('webhooks')
    .description(
      'Webhook deliveries, the dead-letter queue and replay; verify, sign and receive signed events',
    )
    .addCommand(lsCommand(make))
    .addCommand(deliveriesCommand(make))
    .addCommand(dlqCommand(make))
    .addCommand(replayCommand(make))
    .addCommand(testCommand(make))
    .addCommand(verifyCommand(make))
    .addCommand(signCommand(make))
    .addCommand(listenCommand(make));
}
