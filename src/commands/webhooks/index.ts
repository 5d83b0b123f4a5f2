import { Command } from 'commander';
import { type MakeContext, type Verb, verbsOnly } from '../kit.js';
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

const VERBS: readonly Verb[] = [
  [['ls', 'list'], lsCommand],
  [['get'], getCommand],
  [['create'], createCommand],
  [['update'], updateCommand],
  [['delete', 'rm'], deleteCommand],
  [['rotate-secret'], rotateSecretCommand],
  [['deliveries'], deliveriesCommand],
  [['dlq'], dlqCommand],
  [['replay'], replayCommand],
  [['test'], testCommand],
  [['verify'], verifyCommand],
  [['sign'], signCommand],
  [['listen'], listenCommand],
];

/** The webhooks group: only the verb named when the line names one (verbsOnly), every verb otherwise. */
export default function webhooks(make: MakeContext, verb?: string): Command {
  const group = new Command('webhooks').description(
    'Webhooks and their deliveries, the dead-letter queue and replay; verify, sign and receive signed events',
  );
  for (const [, build] of verbsOnly(VERBS, verb)) group.addCommand(build(make));
  return group;
}

/** Every verb's names, as built (test/commands/lazy-groups.test.ts). */
export const WEBHOOKS_VERBS = VERBS;
