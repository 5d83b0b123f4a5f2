import { Command } from 'commander';
import { isoSeconds, serverTime } from '../../api/time.js';
import { jwtExpiry } from '../../auth/jwt.js';
import { loginHint } from '../../auth/login-hint.js';
import type { Context } from '../../context.js';
import { AuthError } from '../../errors.js';
import { examples, type MakeContext } from '../kit.js';

export async function runAuthToken(ctx: Context): Promise<void> {
  const settings = ctx.profileSettings();
  // The origin check every API request makes: a stored credential is printed only for the
  // origin it was issued for, since what is printed goes to the base URL in use (README's curl).
  const baseUrl = settings.values.base_url;
  const token = await ctx.credentials().token(baseUrl ? new URL(baseUrl) : undefined);
  if (!token) {
    throw new AuthError(`not logged in: profile "${settings.profile}" has no credential`, {
      hint: loginHint(settings, ctx.env),
    });
  }
  // A valid token is promised (README's curl; `TOKEN=$(svc auth token) || exit 3`): one whose
  // expiry svc can read and has passed (a token logged in with --with-token, SVC_TOKEN; an OAuth
  // login's is refreshed above, or refused there) is refused as `auth status` refuses it.
  // Not an OAuth login's: its own expiry (on this machine's clock) decides when it refreshes.
  const refreshed = !ctx.env.SVC_TOKEN && ctx.store().credential(settings.profile)?.type === 'oauth';
  const expiry = refreshed ? undefined : jwtExpiry(token);
  const expiredAt = expiry === undefined ? undefined : serverTime(expiry);
  if (expiredAt !== undefined && expiredAt <= ctx.clock.now()) {
    const whose = ctx.env.SVC_TOKEN ? 'SVC_TOKEN' : `the access token of profile "${settings.profile}"`;
    throw new AuthError(
      `${whose} expired at ${isoSeconds(expiredAt)}; svc prints no token the platform will refuse`,
      { code: 'token_expired', hint: loginHint(settings, ctx.env) },
    );
  }
  if (ctx.out.isMachine) return ctx.out.json({ access_token: token });
  await ctx.out.write(`${token}\n`);
}

export function tokenCommand(make: MakeContext): Command {
  return new Command('token')
    .description(
      'Print a valid access token for the profile (refreshed first when it is about to expire). A stored\n' +
        'credential is printed only when the base URL in use is the origin it was issued for (exit 3 otherwise).\n' +
        'A token svc knows has expired (a JWT past its exp: a --with-token login, SVC_TOKEN) is not printed:\n' +
        'exit 3, with how to log in again.',
    )
    .addHelpText(
      'after',
      examples([
        'curl -H "Authorization: Bearer $(svc auth token)" "$(svc config get base_url)/v1/me"',
        'call the API with curl',
      ]),
    )
    .action(async (_f: unknown, cmd: Command) => runAuthToken(await make(cmd)));
}
