import { Command } from 'commander';
import type { MakeContext } from '../kit.js';
import { apiKeysCommand } from './api-keys/index.js';
import { lsCommand } from './ls.js';

export default function tenants(make: MakeContext): Command {
  return new Command('tenants')
    .description('Tenants visible to you, and their API keys')
    .addCommand(lsCommand(make))
    .addCommand(apiKeysCommand(make));
}
