import { Command, Option } from 'commander';
import { endSession, warnAboutSession, warnTokenStillSet } from '../../auth/end-session.js';
import { chooseProfileHint } from '../../config/settings.js';
import { checkProfileName, credentialAsProfileName } from '../../config/store.js';
import type { Context } from '../../context.js';
import { redactText } from '../../http/redact.js';
import { confirmDestructive, examples, type MakeContext, profileAt } from '../kit.js';
import { verdict } from '../verdict.js';
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
  const store = ctx.store();
  // A profile an older svc saved under a credential's name can be removed (never made), its name
  // masked in every line: it removes the key from config.json, where it was.
  const masked = credentialAsProfileName(name) !== undefined && store.hasProfile(name);
  const shown = masked ? redactText(name) : name;
  if (!masked) existing(ctx, checkProfileName(name), 'remove');
  // The question is of the profile removed, its own server (masked as `profiles ls` shows it) and
  // its credential only when it holds one; never of the run's (-p, SVC_PROFILE; attack26a F3).
  const credential = store.credential(name) === undefined ? '' : ' and its stored credential';
  await confirmDestructive(
    ctx,
    `Remove ${profileAt(shown, store.profile(name)?.base_url)}${credential}?`,
    `removing profile "${shown}"`,
    { ownWhere: true },
  );
  // Its own settings and API client: the session is revoked at the server it was issued by.
  const target = ctx.forProfile(name, { removing: true });
  try {
    // Read before the profile goes: the warnings name its tenant, the ✓ line its server.
    const removed = profileAt(shown, store.profile(name)?.base_url);
    const end = await endSession(target, {
      profile: name,
      revoke: options.revoke,
      remove: () => store.removeProfile(name),
      files: ['credentials', 'config'],
      done: `removed profile "${shown}"`,
      retry: `svc profiles rm ${masked ? '"$NAME"' : name}`,
      noRevoke: `svc profiles rm ${masked ? '"$NAME"' : name} --no-revoke`,
    });
    const { revocation } = end;
    const active = store.activeProfile();
    if (ctx.out.isMachine)
      // The one verdict (verdict.ts): `outcome` and the profile's name under `profile`, as logout has it;
      // `removed` (the name, as before) stays for the scripts that read it.
      return ctx.out.json(
        verdict('removed', 'profile', shown, {
          removed: shown,
          revocation: revocation.outcome,
          active_profile: active ?? null,
        }),
      );
    ctx.out.success(
      revocation.outcome === 'revoked'
        ? `removed ${removed}: revoked its session at ${new URL(revocation.endpoint).origin}`
        : `removed ${removed}`,
    );
    warnAboutSession(target, end);
    if (masked) {
      ctx.out.warn(
        'the name of that profile was a credential, which an older svc kept in config.json (a file people copy and commit); rotate it (revoke it and make a new one)',
      );
    }
    // It was the active one: the next command would fall back to "default" (or fail) unexplained.
    if (active === undefined) {
      ctx.out.warn(`no profile is active now; ${chooseProfileHint(store.profileNames())}`);
    }
    warnTokenStillSet(ctx);
  } finally {
    await target.close();
  }
}

export function rmCommand(make: MakeContext): Command {
  return new Command('rm')
    .alias('remove')
    .argument('<name>', 'profile to remove')
    .description(
      'Remove a profile and its stored credential (asks first, naming the profile and its server;\n' +
        '--yes when not on a terminal). Its OAuth\n' +
        'session is revoked first, as `svc logout` does; when the server cannot be reached, nothing is\n' +
        'removed (exit 1) unless --no-revoke, nor when Ctrl-C interrupts it (exit 130). Removing the active\n' +
        'profile leaves none active: svc says so and how to choose another. With --json:\n' +
        '{removed, revocation, active_profile, outcome: "removed", profile} (removed and profile: its name).',
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
