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
        'create, update (JSON Merge Patch) and soft-delete records (purged 30 days later). Numbers are\n' +
        'shown as the platform wrote them (9007199254740993, 1.000000000000000001, 100.50, -0), not as\n' +
        'doubles, and update sends a patch of a field holding such a number (the platform decides).',
    )
    .addCommand(lsCommand(make))
    .addCommand(getCommand(make))
    .addCommand(createCommand(make))
    .addCommand(updateCommand(make))
    .addCommand(deleteCommand(make));
}
