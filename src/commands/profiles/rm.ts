import { Command, Option } from 'commander';
import { endSession, warnAboutSession } from '../../auth/end-session.js';
import { chooseProfileHint } from '../../config/settings.js';
import { checkProfileName } from '../../config/store.js';
import type { Context } from '../../context.js';
import { confirmDestructive, examples, type MakeContext } from '../kit.js';
import { existing } from './shared.js';

/**
 * Removes a profile after ending its session exactly as `svc logout` does (auth/end-session.ts):
 * a server that cannot be reached leaves the profile in place unless --no-revoke.
 */
export async function runProfilesRm(
  ctx: Context,
  name: string,
  options: { revoke: boolean } = { revoke: true },
): Promise<void> {
  existing(ctx, checkProfileName(name));
  await confirmDestructive(
    ctx,
    `Remove profile "${name}" and its stored credential?`,
    `removing profile "${name}"`,
  );
  const store = ctx.store();
  // Its own settings and API client: the session is revoked at the server it was issued by.
  const target = ctx.forProfile(name);
  try {
    // Read before the profile goes: the warnings name its tenant.
    target.settings();
    const end = await endSession(target, {
      profile: name,
      revoke: options.revoke,
      remove: () => store.removeProfile(name),
      files: ['credentials', 'config'],
      done: `removed profile "${name}"`,
      retry: `svc profiles rm ${name}`,
      noRevoke: `svc profiles rm ${name} --no-revoke`,
    });
    const { revocation } = end;
    const active = store.activeProfile();
    if (ctx.out.isMachine)
      return ctx.out.json({ removed: name, revocation: revocation.outcome, active_profile: active ?? null });
    ctx.out.success(
      revocation.outcome === 'revoked'
        ? `Removed profile "${name}" (revoked its session at ${new URL(revocation.endpoint).origin})`
        : `Removed profile "${name}"`,
    );
    warnAboutSession(target, end);
    // It was the active one: the next command would fall back to "default" (or fail) unexplained.
    if (active === undefined) {
      ctx.out.warn(`no profile is active now; ${chooseProfileHint(Object.keys(store.profiles()))}`);
    }
  } finally {
    await target.close();
  }
}

export function rmCommand(make: MakeContext): Command {
  return new Command('rm')
    .alias('remove')
    .argument('<name>', 'profile to remove')
    .description(
      'Remove a profile and its stored credential (asks first; --yes when not on a terminal). Its OAuth\n' +
        'session is revoked first, as `svc logout` does; when the server cannot be reached, nothing is\n' +
        'removed (exit 1) unless --no-revoke, nor when Ctrl-C interrupts it (exit 130). Removing the active\n' +
        'profile leaves none active: svc says so and how to choose another.',
    )
    .addOption(
      new Option(
        '--no-revoke',
        'remove without contacting the server (an OAuth session stays valid until it expires)',
      ),
    )
    .addHelpText('after', examples(['svc profiles rm old --yes', 'remove without asking']))
    .action(async (name: string, flags: { revoke?: boolean }, cmd: Command) =>
      runProfilesRm(await make(cmd), name, { revoke: flags.revoke !== false }),
    );
}
