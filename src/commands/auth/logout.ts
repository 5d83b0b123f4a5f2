import { Command, Option } from 'commander';
import { endSession, sessionKey, warnAboutSession, warnTokenStillSet } from '../../auth/end-session.js';
import { profileOption } from '../../config/settings.js';
import { credentialAsProfileName } from '../../config/store.js';
import type { Context } from '../../context.js';
import { redactText } from '../../http/redact.js';
import { examples, type MakeContext, profileAt } from '../kit.js';
import { CREDENTIAL_NAMED_PROFILE } from '../profiles/shared.js';
import { verdict } from '../verdict.js';

/**
 * Ends the profile's session: an OAuth session is revoked server-side first (RFC 7009, when the
 * server offers it), then the stored credential is removed (auth/end-session.ts, shared with
 * `profiles rm`). When the server cannot be reached nothing is removed, so running it again
 * can still revoke the session; --no-revoke forgets the credential without asking the server.
 */
export async function runLogout(
  ctx: Context,
  options: { revoke: boolean } = { revoke: true },
): Promise<void> {
  // A profile an older svc saved under a credential's name can be logged out of (never made),
  // its name masked in every line (as `profiles rm`).
  const named = ctx.globals.profile || ctx.env.SVC_PROFILE;
  if (named && credentialAsProfileName(named) !== undefined && ctx.store().hasProfile(named)) {
    const target = ctx.forProfile(named, { removing: true });
    try {
      return await logoutOf(target, options, redactText(named));
    } finally {
      await target.close();
    }
  }
  return logoutOf(ctx, options, ctx.profileSettings().profile);
}

async function logoutOf(ctx: Context, options: { revoke: boolean }, shown: string): Promise<void> {
  const profile = ctx.profileSettings().profile;
  const again = shown === profile ? profileOption(profile) : '-p "$NAME"';
  const store = ctx.store();
  const end = await endSession(ctx, {
    profile,
    revoke: options.revoke,
    remove: () => store.removeCredential(profile),
    files: ['credentials'],
    done: `removed the credential of profile "${shown}"`,
    retry: `svc ${again} logout`,
    noRevoke: `svc ${again} logout --no-revoke`,
  });
  const { revocation } = end;
  const revoked = revocation.outcome === 'revoked';
  // api_key: what the lines say of a forgotten API key (null when the credential was none).
  if (ctx.out.isMachine) {
    // The one verdict (verdict.ts): `outcome` says whether the credential was removed, in logout's
    // own word, and the credential is the noun: `{outcome: "removed", profile}` is profiles rm's,
    // and here the profile stays (review27a F3). The keys printed before (`profile`, `removed` a
    // boolean, `revoked`, `revocation`, `api_key`: the forgotten key's state, not a revoked key's
    // record) stay for the scripts that read them.
    const apiKey = sessionKey(ctx, end);
    return ctx.out.json(
      verdict(
        end.removed ? 'logged_out' : 'nothing_to_remove',
        'credential',
        end.removed ? { profile: shown, api_key: apiKey } : null,
        { profile: shown, removed: end.removed, revoked, revocation: revocation.outcome, api_key: apiKey },
      ),
    );
  }
  const of = profileAt(shown, ctx.store().profile(profile)?.base_url);
  if (revocation.outcome === 'revoked') {
    ctx.out.success(
      `logged out of ${of}: revoked the session at ${new URL(revocation.endpoint).origin} and removed the credential`,
    );
  } else if (end.removed) {
    ctx.out.success(`logged out of ${of}: removed the credential`);
  } else {
    ctx.out.info(`profile "${shown}" has no stored credential; nothing to do`);
  }
  warnAboutSession(ctx, end);
  if (shown !== profile) {
    ctx.out.warn(CREDENTIAL_NAMED_PROFILE);
  }
  warnTokenStillSet(ctx);
}

export default function logout(make: MakeContext): Command {
  return new Command('logout')
    .summary("End the session and remove the profile's stored credential")
    .description(
      "End the profile's session: revoke its OAuth tokens at the server when the server offers token revocation " +
        '(RFC 7009, found through its RFC 8414 metadata), then remove the stored credential. Settings (base URL, tenant, …) stay.\n' +
        'When the server cannot be reached, nothing is removed (exit 1): run it again later, or pass --no-revoke;\n' +
        'nor when Ctrl-C interrupts it (exit 130): run it again to end the session.\n' +
        'A stored API key is only forgotten: svc asks the platform whether it still accepts it and says so — a key\n' +
        "stopped by its issuer's wind-down is not revoked and acts again once they hold its role without an end\n" +
        'date — with the `svc tenants api-keys revoke TENANT KEY_ID` command (its tenant and id) that revokes it,\n' +
        "to be run with a user's login that holds api_key.manage (a key cannot revoke keys).\n" +
        'With --json: {profile, removed, revoked, revocation, api_key, outcome, credential}; outcome is "logged_out"\n' +
        '(the credential removed: the profile stays; credential is {profile, api_key}) or "nothing_to_remove" (none\n' +
        'was stored; credential is null), as removed says; api_key is null unless the credential was an\n' +
        'API key, else {state: "valid"|"stopped"|"revoked_or_unknown"|"unknown", id, tenant, stopped_reason,\n' +
        'revoke_command} (svc never revokes the key itself: "valid" and "stopped" keys were only forgotten);\n' +
        'revoke_command is null when there is nothing to revoke or the id is not known ("unknown": find the key by\n' +
        'its prefix in `svc tenants api-keys ls TENANT`, as the warning without --json says).',
    )
    .addOption(
      new Option(
        '--no-revoke',
        'remove the credential without contacting the server (its session stays valid until it expires)',
      ),
    )
    .addHelpText(
      'after',
      examples(
        ['svc logout', 'revoke the session and forget the credential of the profile in use'],
        ['svc -p old logout --no-revoke', 'forget the credential of a server that is gone'],
      ),
    )
    .action(async (flags: { revoke?: boolean }, cmd: Command) =>
      runLogout(await make(cmd), { revoke: flags.revoke !== false }),
    );
}
