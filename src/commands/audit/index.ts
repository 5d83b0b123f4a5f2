import { Command } from 'commander';
import type { MakeContext } from '../kit.js';
import { getCommand } from './get.js';
import { lsCommand } from './ls.js';

export default function audit(make: MakeContext): Command {
  return new Command('audit')
    .description('The audit trail of the tenant: who changed roles, grants, keys, webhooks and OAuth clients')
    .addCommand(lsCommand(make))
    .addCommand(getCommand(make));
}
