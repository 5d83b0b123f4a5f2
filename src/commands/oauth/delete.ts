import { Command } from 'commander';
import type { Context } from '../../context.js';
import { changedIn } from '../changed-in.js';
import { confirmDestructive, deleted, examples, type MakeContext, tenantLabel } from '../kit.js';
import { verdict } from '../verdict.js';
import { clientArg } from './shared.js';

export interface OAuthDeleteOptions {
  clientId: string;
}

export function parseOAuthDelete(clientId: unknown): OAuthDeleteOptions {
  return { clientId: clientArg(clientId) };
}

export async function runOAuthDelete(ctx: Context, options: OAuthDeleteOptions): Promise<void> {
  const platform = await ctx.platform();
  const client = await platform.oauth.clients.get(options.clientId);
  await confirmDestructive(
    ctx,
    async () =>
      `Delete OAuth client ${client.name} (${client.client_id}) in ${await tenantLabel(ctx)}? Its secret and every token issued to it stop working at once.`,
    `deleting OAuth client ${client.client_id}`,
  );
  const data = await deleted(ctx, platform.oauth.clients.delete(client.client_id), {
    act: 'delete',
    thing: 'the client',
    done: 'deleted',
    subject: `OAuth client ${client.name} (${client.client_id})${changedIn(ctx.settings())} is gone`,
    target: { client_id: client.client_id, name: client.name },
    noun: 'client',
  });
  if (data === undefined) return;
  // The one verdict (verdict.ts): the answer (`client_id`, `deleted`, `deleted_at`) under `client`, and at the top as before.
  if (ctx.out.isMachine) await ctx.out.json(verdict('deleted', 'client', data, data));
  else
    ctx.out.success(
      `deleted OAuth client ${client.name} (${data.client_id})${changedIn(ctx.settings())}; its tokens no longer work`,
    );
}

export function deleteCommand(make: MakeContext): Command {
  return new Command('delete')
    .alias('rm')
    .summary('Delete an OAuth client (its tokens stop working)')
    .description(
      'Delete an OAuth client: its secret, refresh tokens and access tokens stop working at once.\n' +
        'Asks first on a terminal, naming the client and the tenant; needs --yes otherwise.\n' +
        'With --json: {client_id, deleted, deleted_at, outcome: "deleted", client: {…}} (the answer at the top,\n' +
        'as before, and under client; null there when no answer gave it).',
    )
    .argument('<client-id>', 'the client')
    .addHelpText('after', examples(['svc oauth delete cli_0123 --yes', 'in a script']))
    .action(async (clientId: string, _flags: unknown, cmd: Command) => {
      const options = parseOAuthDelete(clientId);
      await runOAuthDelete(await make(cmd), options);
    });
}
