import { Command } from 'commander';
import type { MakeContext } from '../kit.js';
import { createCommand } from './create.js';
import { deleteCommand } from './delete.js';
import { getCommand } from './get.js';
import { lsCommand } from './ls.js';
import { updateCommand } from './update.js';

export default function records(make: MakeContext): Command {
  return new Command('records')
    .description(
      'The generic record surface /v1/SURFACE (reconciliations, exceptions, evidence_packs, …): list, get,\n' +
        'create, update (JSON Merge Patch) and soft-delete records (purged 30 days later).',
    )
    .addCommand(lsCommand(make))
    .addCommand(getCommand(make))
    .addCommand(createCommand(make))
    .addCommand(updateCommand(make))
    .addCommand(deleteCommand(make));
}
