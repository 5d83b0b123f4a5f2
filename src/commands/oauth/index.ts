import { Command } from 'commander';
import type { MakeContext } from '../kit.js';
import { authorizeCommand } from './authorize.js';
import { createCommand } from './create.js';
import { rotateSecretCommand } from './rotate-secret.js';
import { tokenCommand } from './token.js';

export default function oauth(make: MakeContext): Command {
  return new Command('oauth')
    .description('OAuth clients for integrations: register, try the flow, call the token endpoint')
    .addCommand(createCommand(make))
    .addCommand(authorizeCommand(make))
    .addCommand(tokenCommand(make))
    .addCommand(rotateSecretCommand(make));
}
