import { Command } from 'commander';
import type { MakeContext } from '../kit.js';
import { createCommand } from './create.js';
import { deleteCommand } from './delete.js';
import { deliveriesCommand } from './deliveries/index.js';
import { dlqCommand } from './dlq/index.js';
import { getCommand } from './get.js';
import { listenCommand } from './listen.js';
import { lsCommand } from './ls.js';
import { replayCommand } from './replay.js';
import { rotateSecretCommand } from './rotate-secret.js';
import { signCommand } from './sign.js';
import { testCommand } from './test.js';
import { updateCommand } from './update.js';
import { verifyCommand } from './verify.js';

export default function webhooks(make: MakeContext): Command {
  return new Command('webhooks')
    .description(
      'Webhooks and their deliveries, the dead-letter queue and replay; verify, sign and receive signed events',
    )
    .addCommand(lsCommand(make))
    .addCommand(getCommand(make))
    .addCommand(createCommand(make))
    .addCommand(updateCommand(make))
    .addCommand(deleteCommand(make))
    .addCommand(rotateSecretCommand(make))
    .addCommand(deliveriesCommand(make))
    .addCommand(dlqCommand(make))
    .addCommand(replayCommand(make))
    .addCommand(testCommand(make))
    .addCommand(verifyCommand(make))
    .addCommand(signCommand(make))
    .addCommand(listenCommand(make));
}
