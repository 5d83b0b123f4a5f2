import { Command } from 'commander';
import type { MakeContext } from '../kit.js';
import { authorizeCommand } from './authorize.js';
import { createCommand } from './create.js';
import { deleteCommand } from './delete.js';
import { getCommand } from './get.js';
import { lsCommand } from './ls.js';
import { rotateSecretCommand } from './rotate-secret.js';
import { tokenCommand } from './token.js';
import { updateCommand } from './update.js';

export default function oauth(make: MakeContext): Command {
  return new Command('oauth')
    .description(
      'OAuth clients for integrations: register and manage them, try the flow, call the token endpoint',
    )
    .addCommand(lsCommand(make))
    .addCommand(getCommand(make))
    .addCommand(createCommand(make))
    .addCommand(updateCommand(make))
    .addCommand(deleteCommand(make))
    .addCommand(authorizeCommand(make))
    .addCommand(tokenCommand(make))
    .addCommand(rotateSecretCommand(make));
}
