import { Command } from 'commander';
import type { MakeContext } from '../kit.js';
import { lsCommand } from './ls.js';

export default function tenants(make: MakeContext): Command {
  return new Command('tenants').description('Tenants visible to you').addCommand(lsCommand(make));
}
