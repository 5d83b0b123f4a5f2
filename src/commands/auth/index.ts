import { Command } from 'commander';
import type { MakeContext } from '../kit.js';
import { statusCommand } from './status.js';
import { tokenCommand } from './token.js';

export default function auth(make: MakeContext): Command {
  return new Command('auth')
    .description('Login status and access tokens')
    .addCommand(statusCommand(make))
    .addCommand(tokenCommand(make));
}
