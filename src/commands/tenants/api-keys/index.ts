import { Command } from 'commander';
import type { MakeContext } from '../../kit.js';
import { createCommand } from './create.js';
import { getCommand } from './get.js';
import { lsCommand } from './ls.js';
import { revokeCommand } from './revoke.js';

export function apiKeysCommand(make: MakeContext): Command {
  const group = new Command('api-keys').description(
    'Tenant API keys: publishable (read-only) and service-role (full access, needs a justification)',
  );
  return group
    .addCommand(createCommand(make))
    .addCommand(getCommand(make))
    .addCommand(lsCommand(make))
    .addCommand(revokeCommand(make));
}
