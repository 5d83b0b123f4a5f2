import { Command } from 'commander';
import type { MakeContext } from '../kit.js';
import { assignCommand } from './assign.js';
import { assignmentsCommand } from './assignments.js';
import { createCommand } from './create.js';
import { deleteCommand } from './delete.js';
import { getCommand } from './get.js';
import { holdersCommand } from './holders.js';
import { lsCommand } from './ls.js';
import { permissionsCommand } from './permissions.js';
import { revokeCommand } from './revoke.js';
import { updateCommand } from './update.js';

export default function roles(make: MakeContext): Command {
  return new Command('roles')
    .description('Built-in and custom roles, and granting them to users (one at a time or from a file)')
    .addCommand(lsCommand(make))
    .addCommand(getCommand(make))
    .addCommand(createCommand(make))
    .addCommand(updateCommand(make))
    .addCommand(deleteCommand(make))
    .addCommand(assignCommand(make))
    .addCommand(revokeCommand(make))
    .addCommand(assignmentsCommand(make))
    .addCommand(holdersCommand(make))
    .addCommand(permissionsCommand(make));
}
