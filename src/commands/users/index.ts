import { Command } from 'commander';
import type { MakeContext } from '../kit.js';
import { lsCommand } from './ls.js';

export default function users(make: MakeContext): Command {
  return new Command('users')
    .description('The users who may hold roles in the tenant (the members of its organisation)')
    .addCommand(lsCommand(make));
}
