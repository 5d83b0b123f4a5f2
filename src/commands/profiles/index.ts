import { Command } from 'commander';
import type { MakeContext } from '../kit.js';
import { lsCommand } from './ls.js';
import { rmCommand } from './rm.js';
import { showCommand } from './show.js';
import { useCommand } from './use.js';

export default function profiles(make: MakeContext): Command {
  return new Command('profiles')
    .description(
      'Profiles: named sets of settings (base URL, tenant, org, client id) with their own credential',
    )
    .addCommand(lsCommand(make))
    .addCommand(useCommand(make))
    .addCommand(showCommand(make))
    .addCommand(rmCommand(make));
}
