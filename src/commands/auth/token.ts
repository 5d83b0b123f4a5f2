import { Command } from 'commander';
import { isoSeconds, serverTime } from '../../api/time.js';
import { jwtExpiry } from '../../auth/jwt.js';
import { loginHint } from '../../auth/login-hint.js';
import type { Context } from '../../context.js';
import { AuthError, lookupMayFail } from '../../errors.js';
import { timeSpan } from '../../output/format.js';
import { platformTime } from '../../platform/clock.js';
import type { Platform } from '../../platform/index.js';
import { examples, type MakeContext } from '../kit.js';
import { learnPlatformClock } from '../platform-clock.js';

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
  if (expiredAt !== undefined) {
    // `exp` is on the issuer's clock: judged, as every expiry svc judges, on the platform's time
    // (attack22 F2: this machine's clock hours off refused a token the platform took, or printed
    // one it refused). One cheap GET /v1/me tells it; unread, it is said to be this machine's.
    const clock = await platformClock(ctx);
    if (expiredAt <= clock.now) {
      const whose = ctx.env.SVC_TOKEN ? 'SVC_TOKEN' : `the access token of profile "${settings.profile}"`;
      throw new AuthError(`${whose} expired at ${isoSeconds(expiredAt)}${clock.said}`, {
        code: 'token_expired',
        hint: loginHint(settings, ctx.env),
      });
    }
  }
  if (ctx.out.isMachine) return ctx.out.json({ access_token: token });
  await ctx.out.write(`${token}\n`);
}

/** How long `auth token` waits for the platform's clock before judging on this machine's. */
const CLOCK_LOOKUP_MS = 5_000;

/**
 * The platform's time now (learnPlatformClock, platformTime) and the words a refusal says of it:
 * nothing more when the two clocks agree, the gap when they do not, and this machine's clock when
 * the platform could not be asked (no server set, unreachable, no Date header).
 */
async function platformClock(ctx: Context): Promise<{ now: number; said: string }> {
  const machine = ctx.clock.now();
  const refuses = '; svc prints no token the platform will refuse';
  let platform: Platform | undefined;
  try {
    platform = await ctx.platform();
    // Best effort, bounded: one attempt of a few seconds (a script's `$(svc auth token)` must not
    // wait out a slow platform's retries only to have svc judge on this machine's clock anyway).
    await learnPlatformClock(platform, { timeoutMs: CLOCK_LOOKUP_MS, maxRetries: 0 });
  } catch (error) {
    if (!lookupMayFail(error)) throw error;
  }
  const offset = platform?.serverClockOffsetMs;
  if (platform === undefined || offset === undefined) {
    return {
      now: machine,
      said: " on this machine's clock (the platform's could not be read); svc prints no token that has expired",
    };
  }
  const now = platformTime(platform, machine);
  if (now === machine) return { now, said: refuses };
  return {
    now,
    said: ` on the platform's clock (${timeSpan(offset)} ${offset > 0 ? 'ahead of' : 'behind'} this machine's)${refuses}`,
  };
}

export function tokenCommand(make: MakeContext): Command {
  return new Command('token')
    .description(
      'Print a valid access token for the profile (refreshed first when it is about to expire). A stored\n' +
        'credential is printed only when the base URL in use is the origin it was issued for (exit 3 otherwise).\n' +
        "A token svc knows has expired (a JWT past its exp on the platform's clock, read with one GET /v1/me\n" +
        "of at most 5 s, else this machine's clock:\n" +
        'a --with-token login, SVC_TOKEN) is not printed: exit 3, with how to log in again.',
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
