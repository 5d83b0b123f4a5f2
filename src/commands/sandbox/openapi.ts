import { Command } from 'commander';
import type { Context } from '../../context.js';
import { examples, type MakeContext } from '../kit.js';

export async function runSandboxOpenapi(ctx: Context): Promise<void> {
  const { openapiDocument } = await import('../../sandbox/server.js');
  await ctx.out.write(`${JSON.stringify(await openapiDocument(), null, 2)}\n`);
}

export function openapiCommand(make: MakeContext): Command {
  return new Command('openapi')
    .description('Print the OpenAPI 3.1 document of everything the sandbox serves')
    .addHelpText('after', examples(['svc sandbox openapi > openapi.json', 'save the document']))
    .action(async (_f: unknown, cmd: Command) => runSandboxOpenapi(await make(cmd)));
}
