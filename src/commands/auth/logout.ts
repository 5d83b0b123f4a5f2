import { Command } from 'commander';
import type { Context } from '../../context.js';
import { examples, type MakeContext } from '../kit.js';

export async function runLogout(ctx: Context): Promise<void> {
  const profile = ctx.settings().profile;
  const store = ctx.store();
  const { withCredentialLock } = await import('../../auth/lock.js');
  const removed = await withCredentialLock(store, () => store.removeCredential(profile));
  if (ctx.out.isMachine) return ctx.out.json({ profile, removed });
  if (removed) ctx.out.success(`Logged out: removed the credential of profile "${profile}"`);
  else ctx.out.info(`Profile "${profile}" has no stored credential; nothing to do`);
  if (ctx.env.SVC_TOKEN) ctx.out.warn('SVC_TOKEN is still set in your environment');
}

export default function logout(make: MakeContext): Command {
  return new Command('logout')
    .summary("Remove the profile's stored credential")
    .description("Remove the profile's stored credential. Settings (base URL, tenant, …) stay.")
    .addHelpText('after', examples(['svc logout', 'forget the credential of the profile in use']))
    .action(async (_f: unknown, cmd: Command) => runLogout(await make(cmd)));
}
