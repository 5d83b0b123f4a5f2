import { Command } from 'commander';
import type { MakeContext } from '../kit.js';
import { openapiCommand } from './openapi.js';
import { startCommand } from './start.js';
import { targetCommand } from './target.js';
import { triggerCommand } from './trigger.js';

export default function sandbox(make: MakeContext): Command {
  return new Command('sandbox')
    .description('The local platform: a faithful, stateful implementation of the whole API on loopback')
    .addCommand(startCommand(make))
    .addCommand(openapiCommand(make))
    .addCommand(triggerCommand(make))
    .addCommand(targetCommand(make));
}
