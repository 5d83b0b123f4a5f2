import { Command } from 'commander';
import type { MakeContext } from '../kit.js';
import { getCommand } from './get.js';
import { lsCommand } from './ls.js';
import { setCommand } from './set.js';
import { KEYS } from './shared.js';
import { unsetCommand } from './unset.js';

export default function config(make: MakeContext): Command {
  return new Command('config')
    .description(`Settings of a profile: ${KEYS}.\nPrecedence: flag > environment variable > profile.`)
    .addCommand(lsCommand(make))
    .addCommand(getCommand(make))
    .addCommand(setCommand(make))
    .addCommand(unsetCommand(make));
}
