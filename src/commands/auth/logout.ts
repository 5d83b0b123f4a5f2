import { Command } from 'commander';
import type { Revocation } from '../../auth/revocation.js';
import type { Context } from '../../context.js';
import { SvcError } from '../../errors.js';
import { examples, type MakeContext } from '../kit.js';

/**
 * Ends the profile's session: an OAuth session is revoked server-side first (RFC 7009, when the
 * server offers it), then the stored credential is removed. The credential is removed even when
 * revocation fails — and then svc says so and exits 1, since the session may still be alive.
 */
export async function runLogout(ctx: Context): Promise<void> {
  const profile = ctx.profileSettings().profile;
  const store = ctx.store();
  const { withCredentialLock } = await import('../../auth/lock.js');
  // Under the lock, so no other svc process refreshes (and rotates) the token being revoked.
  const { removed, revocation, failure } = await withCredentialLock(store, async () => {
    const credential = store.credential(profile);
    let outcome: Revocation = { outcome: 'not_applicable' };
    let error: unknown;
    if (credential?.type === 'oauth') {
      const { revokeSession } = await import('../../auth/revocation.js');
      try {
        outcome = await revokeSession(await ctx.api(), credential);
      } catch (caught) {
        error = caught;
      }
    }
    return { removed: await store.removeCredential(profile), revocation: outcome, failure: error };
  });
  if (failure !== undefined) {
    const reason = failure instanceof Error ? failure.message : String(failure);
    throw new SvcError(
      'failure',
      `removed the credential of profile "${profile}", but the server did not revoke its session: ${reason}`,
      {
        code: 'revocation_failed',
        hint: 'the refresh token stays valid until it expires; run `svc logout` again once the server answers, or revoke it there',
        cause: failure,
      },
    );
  }
  const revoked = revocation.outcome === 'revoked';
  if (ctx.out.isMachine) return ctx.out.json({ profile, removed, revoked, revocation: revocation.outcome });
  if (revocation.outcome === 'revoked') {
    ctx.out.success(
      `Logged out: revoked the session at ${new URL(revocation.endpoint).origin} and removed the credential of profile "${profile}"`,
    );
  } else if (removed) {
    ctx.out.success(`Logged out: removed the credential of profile "${profile}"`);
  } else {
    ctx.out.info(`Profile "${profile}" has no stored credential; nothing to do`);
  }
  if (revocation.outcome === 'unsupported') {
    ctx.out.warn(
      `${revocation.server} does not offer token revocation (RFC 7009): the refresh token stays valid until it expires`,
    );
  }
  if (ctx.env.SVC_TOKEN) ctx.out.warn('SVC_TOKEN is still set in your environment');
}

export default function logout(make: MakeContext): Command {
  return new Command('logout')
    .summary("End the session and remove the profile's stored credential")
    .description(
      "End the profile's session: revoke its OAuth tokens at the server when the server offers token revocation " +
        '(RFC 7009, found through its RFC 8414 metadata), then remove the stored credential. Settings (base URL, tenant, …) stay.',
    )
    .addHelpText(
      'after',
      examples(['svc logout', 'revoke the session and forget the credential of the profile in use']),
    )
    .action(async (_f: unknown, cmd: Command) => runLogout(await make(cmd)));
}
